package dynamics

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// LocalPolynomial smooths x(t) and estimates its derivative at every sample
// by a least-squares polynomial of the given degree fitted to the 2·radius+1
// nearest samples in index order (shifted inwards at the ends). On an even
// grid this is the Savitzky–Golay filter (Savitzky & Golay 1964, Anal. Chem.
// 36:1627); fitting in t rather than in the index generalises it to uneven
// sampling. t must be strictly increasing with at least degree+1 samples.
func LocalPolynomial(t, x []float64, radius, degree int) (smooth, deriv []float64) {
	n := len(t)
	smooth = make([]float64, n)
	deriv = make([]float64, n)
	f := newLocalFit(t, x, radius, degree)
	for i := range n {
		smooth[i], deriv[i] = f.at(i)
	}
	return smooth, deriv
}

// localFit is LocalPolynomial at one sample at a time, for callers that
// need a few samples of a long trajectory (the held-out simulation's
// initial conditions).
type localFit struct {
	t, x           []float64
	radius, degree int
	w              int
	a              *mat.Dense
	b, c           *mat.VecDense
}

func newLocalFit(t, x []float64, radius, degree int) *localFit {
	w := min(2*radius+1, len(t))
	if w < degree+1 {
		degree = w - 1
	}
	return &localFit{t: t, x: x, radius: radius, degree: degree, w: w,
		a: mat.NewDense(w, degree+1, nil), b: mat.NewVecDense(w, nil), c: &mat.VecDense{}}
}

// at returns the smoothed value and the derivative at sample i; the
// derivative is NaN where the local fit is singular (and the value x[i]).
func (f *localFit) at(i int) (smooth, deriv float64) {
	t, w := f.t, f.w
	lo := min(max(i-f.radius, 0), len(t)-w)
	h := (t[lo+w-1] - t[lo]) / 2
	for k := range w {
		tau := (t[lo+k] - t[i]) / h
		p := 1.0
		for d := 0; d <= f.degree; d++ {
			f.a.Set(k, d, p)
			p *= tau
		}
		f.b.SetVec(k, f.x[lo+k])
	}
	if err := f.c.SolveVec(f.a, f.b); err != nil {
		return f.x[i], math.NaN()
	}
	if f.degree >= 1 {
		deriv = f.c.AtVec(1) / h
	}
	return f.c.AtVec(0), deriv
}
