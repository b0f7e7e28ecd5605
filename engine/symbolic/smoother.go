package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// smoother is a smooth surrogate of the data, y ≈ S(x): kernel ridge
// regression with a Gaussian kernel on standardised inputs (Rasmussen &
// Williams 2006, "Gaussian Processes for Machine Learning", ch. 2; the
// posterior mean of a Gaussian process). AI Feynman (Udrescu & Tegmark
// 2020) tests symmetry and separability on a neural network fitted to the
// data, because the tests need y at points that are not rows of the data;
// any smooth interpolant that generalises serves, and kernel ridge
// regression is one whose hyperparameters leave-one-out cross-validation
// chooses in closed form.
//
// The length scale ℓ (in standard deviations, times √d for d inputs) and
// the ridge λ are chosen from a small grid by the leave-one-out error, which
// for a linear smoother ŷ = H·y is r_i/(1 − H_ii) (Wahba 1990, "Spline
// Models for Observational Data", §4.2), computed for every λ from one
// eigendecomposition of the kernel matrix per ℓ.
type smoother struct {
	vars      []int     // columns of the problem the smoother reads
	mean, std []float64 // per var, for standardising
	lo, hi    []float64 // data range per var (original units)
	centres   [][]float64
	alpha     []float64
	yMean     float64
	gamma     float64 // 1/(2ℓ²)

	// r2LOO is 1 − (leave-one-out MSE)/var(y) of the chosen fit, and
	// sigma the smoother's own typical error at a data row,
	// sqrt(LOO MSE · mean H_ii): the spread of S(x) that the noise and
	// the fit leave (for a projection, σ²·H_ii is the variance of ŷ_i).
	r2LOO float64
	sigma float64
	// looMSE is the leave-one-out mean squared error.
	looMSE float64
}

const (
	// smootherRows bounds the rows the smoother is fitted on (evenly
	// spaced over the data); its cost grows as their cube.
	smootherRows = 200
	// smootherMinR2 is the leave-one-out R² below which the smoother does
	// not describe the data well enough for tests on it: pure noise has a
	// leave-one-out R² near or below 0.
	smootherMinR2 = 0.5
)

// smootherScales and smootherRidges are the grids of ℓ/√d and λ/n.
var (
	smootherScales = []float64{0.3, 0.6, 1.2}
	smootherRidges = []float64{1e-10, 1e-8, 1e-6, 1e-4, 1e-3, 1e-2, 1e-1, 1}
)

// fitSmoother fits S on vars over at most smootherRows evenly spaced rows
// of cols and y, or returns nil when the data are too few or degenerate or
// stop (checked between length scales; may be nil) reports true.
func fitSmoother(cols [][]float64, vars []int, y []float64, stop func() bool) *smoother {
	n := len(y)
	if n < 30 || len(vars) == 0 {
		return nil
	}
	m := min(n, smootherRows)
	rows := make([]int, m)
	for k := range rows {
		rows[k] = k * n / m
	}
	s := &smoother{vars: slices.Clone(vars)}
	for _, j := range vars {
		mu, sd := stat.PopMeanStdDev(cols[j], nil)
		if !(sd > 0) {
			return nil
		}
		lo, hi := slices.Min(cols[j]), slices.Max(cols[j])
		s.mean, s.std = append(s.mean, mu), append(s.std, sd)
		s.lo, s.hi = append(s.lo, lo), append(s.hi, hi)
	}
	s.centres = make([][]float64, m)
	yc := make([]float64, m)
	for k, i := range rows {
		s.centres[k] = s.standardise(func(v int) float64 { return cols[v][i] })
		yc[k] = y[i]
	}
	s.yMean = stat.Mean(yc, nil)
	_, sdY := stat.PopMeanStdDev(yc, nil)
	if !(sdY > 0) {
		return nil
	}
	for k := range yc {
		yc[k] -= s.yMean
	}
	d2 := mat.NewSymDense(m, nil)
	for a := 0; a < m; a++ {
		for b := a + 1; b < m; b++ {
			var d float64
			for q := range s.centres[a] {
				e := s.centres[a][q] - s.centres[b][q]
				d += e * e
			}
			d2.SetSym(a, b, d)
		}
	}
	bestLOO := math.Inf(1)
	yv := mat.NewVecDense(m, yc)
	for _, sc := range smootherScales {
		if stop != nil && stop() {
			return nil
		}
		l := sc * math.Sqrt(float64(len(vars)))
		gamma := 1 / (2 * l * l)
		K := mat.NewSymDense(m, nil)
		for a := 0; a < m; a++ {
			K.SetSym(a, a, 1)
			for b := a + 1; b < m; b++ {
				K.SetSym(a, b, math.Exp(-gamma*d2.At(a, b)))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(K, true) {
			continue
		}
		vals := eig.Values(nil)
		var Q mat.Dense
		eig.VectorsTo(&Q)
		var qty mat.VecDense
		qty.MulVec(Q.T(), yv)
		for _, rr := range smootherRidges {
			lambda := rr * float64(m)
			// ŷ = Q·diag(λ_k/(λ_k+λ))·Qᵀy; H_ii = Σ_k Q_ik²·λ_k/(λ_k+λ).
			shrink := make([]float64, m)
			for k, v := range vals {
				shrink[k] = math.Max(v, 0) / (math.Max(v, 0) + lambda)
			}
			var loo, hSum float64
			ok := true
			for i := 0; i < m && ok; i++ {
				var yh, h float64
				for k := 0; k < m; k++ {
					q := Q.At(i, k)
					yh += q * shrink[k] * qty.AtVec(k)
					h += q * q * shrink[k]
				}
				if h >= 1-1e-9 {
					ok = false
					break
				}
				r := (yc[i] - yh) / (1 - h)
				loo += r * r
				hSum += h
			}
			if !ok {
				continue
			}
			loo /= float64(m)
			if loo < bestLOO {
				bestLOO = loo
				s.gamma = gamma
				s.alpha = make([]float64, m)
				for k, v := range vals {
					c := qty.AtVec(k) / (math.Max(v, 0) + lambda)
					for i := 0; i < m; i++ {
						s.alpha[i] += Q.At(i, k) * c
					}
				}
				s.looMSE = loo
				s.sigma = math.Sqrt(loo * hSum / float64(m))
			}
		}
	}
	if s.alpha == nil {
		return nil
	}
	s.r2LOO = 1 - s.looMSE/(sdY*sdY)
	return s
}

// standardise maps a point, given by its value per problem column, to the
// smoother's standardised coordinates.
func (s *smoother) standardise(at func(v int) float64) []float64 {
	z := make([]float64, len(s.vars))
	for q, j := range s.vars {
		z[q] = (at(j) - s.mean[q]) / s.std[q]
	}
	return z
}

// at evaluates S at a point given in the original units of s.vars, in
// their order.
func (s *smoother) at(x []float64) float64 {
	z := make([]float64, len(x))
	for q := range x {
		z[q] = (x[q] - s.mean[q]) / s.std[q]
	}
	out := s.yMean
	for k, c := range s.centres {
		var d float64
		for q := range z {
			e := z[q] - c[q]
			d += e * e
		}
		out += s.alpha[k] * math.Exp(-s.gamma*d)
	}
	return out
}

// usable reports whether the smoother describes the data well enough to
// test structure on it.
func (s *smoother) usable() bool { return s != nil && s.r2LOO >= smootherMinR2 }
