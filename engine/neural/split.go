package neural

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
)

// SplitError measures how far f is from structure s on the rows of X
// (column-major, X[j][i]): the RMS of f − f_s over the rows divided by the
// standard deviation of f, where f_s is built from f itself with each group
// varying and every other feature held at its median m:
//
//	additive:       f_s(x) = Σ_g f(x_g, m) − (k−1)·f(m)
//	multiplicative: f_s(x) = Π_g f(x_g, m) / f(m)^(k−1)
//
// If f has the structure, f_s equals f and the error is 0 up to rounding;
// a split that does not hold leaves the interaction it ignores, for
// example (q − m_q)(E − m_E) when q·E is split as f(q) + g(E). Unlike the
// local mixed partials of InteractionStrengths, this measures the very
// decomposition the neuro-symbolic mode fits parts to. A structure with one
// group has error 0; a multiplicative one with f(m) = 0, or any error that
// is not finite, gives +Inf.
func SplitError(f func(X [][]float64) []float64, X [][]float64, s Structure) float64 {
	if len(s.Groups) < 2 || len(X) == 0 || len(X[0]) == 0 {
		return 0
	}
	n := len(X[0])
	medians := make([]float64, len(X))
	held := make([][]float64, len(X))
	for j, col := range X {
		sorted := append([]float64(nil), col...)
		sort.Float64s(sorted)
		medians[j] = stat.Quantile(0.5, stat.Empirical, sorted, nil)
		held[j] = constant(n, medians[j])
	}
	full := f(X)
	atMedian := f(held)[0]
	k := float64(len(s.Groups))
	approx := make([]float64, n)
	for i := range approx {
		if s.Form == Multiplicative {
			approx[i] = 1 / math.Pow(atMedian, k-1)
		} else {
			approx[i] = -(k - 1) * atMedian
		}
	}
	for _, group := range s.Groups {
		cols := append([][]float64(nil), held...)
		for _, j := range group {
			cols[j] = X[j]
		}
		part := f(cols)
		for i, v := range part {
			if s.Form == Multiplicative {
				approx[i] *= v
			} else {
				approx[i] += v
			}
		}
	}
	var sse float64
	for i, v := range full {
		d := v - approx[i]
		sse += d * d
	}
	sd := stat.StdDev(full, nil)
	e := math.Sqrt(sse/float64(n)) / sd
	if math.IsNaN(e) || math.IsInf(e, 0) || (s.Form == Multiplicative && atMedian == 0) {
		return math.Inf(1)
	}
	return e
}

func constant(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// SplitTolerance is the largest SplitError at which Separability claims a
// split of this surrogate: its own validation error, √(1 − R²) in the same
// relative units, times splitErrorPerFitError, but at least splitErrorFloor
// and at most splitErrorCeiling. A surrogate rebuilt from the parts of a
// split that holds differs from itself by about its fit error, since the
// parts carry that error; a surrogate that fits worse than the ceiling
// allows is not trusted with structure at all.
func (m *Model) SplitTolerance() float64 {
	fitErr := math.Sqrt(math.Max(0, 1-m.ValR2))
	return math.Min(splitErrorCeiling, math.Max(splitErrorFloor, splitErrorPerFitError*fitErr))
}

// Calibration of SplitTolerance on the Feynman benchmark's 100 cases
// (`enginebench splits`, test/bench/README.md "Update 5b"). Over the split
// candidates of surrogates trained as the neural mode does, splits that
// hold rebuilt to 0.42–1.85 times the surrogate's fit error (median 0.98),
// splits that do not to a median of 7.6 times. The ceiling keeps out
// interactions of 4–5 % (I.12.11's q·Ef, I.10.7, I.15.1) that a surrogate
// fitting to 3–4 % cannot tell from its own error; the false splits left
// are within 3 % of holding on the data (I.48.2, III.4.33, II.24.17).
const (
	splitErrorFloor       = 0.02
	splitErrorPerFitError = 1.5
	splitErrorCeiling     = 0.035
)
