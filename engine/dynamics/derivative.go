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
	w := min(2*radius+1, n)
	if w < degree+1 {
		degree = w - 1
	}
	a := mat.NewDense(w, degree+1, nil)
	b := mat.NewVecDense(w, nil)
	var c mat.VecDense
	for i := range n {
		lo := min(max(i-radius, 0), n-w)
		h := (t[lo+w-1] - t[lo]) / 2
		for k := range w {
			tau := (t[lo+k] - t[i]) / h
			p := 1.0
			for d := 0; d <= degree; d++ {
				a.Set(k, d, p)
				p *= tau
			}
			b.SetVec(k, x[lo+k])
		}
		if err := c.SolveVec(a, b); err != nil {
			smooth[i], deriv[i] = x[i], math.NaN()
			continue
		}
		smooth[i] = c.AtVec(0)
		if degree >= 1 {
			deriv[i] = c.AtVec(1) / h
		}
	}
	return smooth, deriv
}
