package neural

import (
	"fmt"
	"math"
	"slices"
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
	return newSplitter(f, X).err(s)
}

// Partials returns, for each group, f on the rows of X (column-major) with
// the group's features varying and every other feature held at its median:
// the part f_G(x_G) of a split, up to an additive or multiplicative
// constant. SplitError rebuilds f from these parts, and the neuro-symbolic
// mode fits its symbolic parts to them. X needs at least one row.
func Partials(f func(X [][]float64) []float64, X [][]float64, groups [][]int) [][]float64 {
	sp := newSplitter(f, X)
	out := make([][]float64, len(groups))
	for g, group := range groups {
		out[g] = sp.part(group)
	}
	return out
}

// splitter computes split errors of one function on one data set. Each
// group's part, f with the group varying and the rest at the medians, is
// evaluated once and reused by every structure that has the group.
type splitter struct {
	f        func(X [][]float64) []float64
	X, held  [][]float64
	full     []float64
	sd       float64 // standard deviation of full, the unit of split errors
	atMedian float64
	parts    map[string][]float64
}

// newSplitter needs X with at least one row. f is evaluated on X and at the
// medians only when a split error needs them.
func newSplitter(f func(X [][]float64) []float64, X [][]float64) *splitter {
	n := len(X[0])
	held := make([][]float64, len(X))
	for j, col := range X {
		sorted := append([]float64(nil), col...)
		sort.Float64s(sorted)
		held[j] = constant(n, stat.Quantile(0.5, stat.Empirical, sorted, nil))
	}
	return &splitter{f: f, X: X, held: held, parts: map[string][]float64{}}
}

// whole evaluates f on X and at the medians, once.
func (sp *splitter) whole() {
	if sp.full == nil {
		sp.full = sp.f(sp.X)
		sp.sd = stat.StdDev(sp.full, nil)
		sp.atMedian = sp.f(sp.held)[0]
	}
}

func (sp *splitter) part(group []int) []float64 {
	key := fmt.Sprint(group)
	if v, ok := sp.parts[key]; ok {
		return v
	}
	cols := append([][]float64(nil), sp.held...)
	for _, j := range group {
		cols[j] = sp.X[j]
	}
	v := sp.f(cols)
	sp.parts[key] = v
	return v
}

func (sp *splitter) err(s Structure) float64 {
	if len(s.Groups) < 2 {
		return 0
	}
	sp.whole()
	n := len(sp.full)
	k := float64(len(s.Groups))
	approx := make([]float64, n)
	for i := range approx {
		if s.Form == Multiplicative {
			approx[i] = 1 / math.Pow(sp.atMedian, k-1)
		} else {
			approx[i] = -(k - 1) * sp.atMedian
		}
	}
	for _, group := range s.Groups {
		for i, v := range sp.part(group) {
			if s.Form == Multiplicative {
				approx[i] *= v
			} else {
				approx[i] += v
			}
		}
	}
	var sse float64
	for i, v := range sp.full {
		d := v - approx[i]
		sse += d * d
	}
	e := math.Sqrt(sse/float64(n)) / sp.sd
	if math.IsNaN(e) || math.IsInf(e, 0) || (s.Form == Multiplicative && sp.atMedian == 0) {
		return math.Inf(1)
	}
	return e
}

// mergeChain lists the splits made from start by repeatedly merging the
// two groups whose union leaves the smallest split error, down to two
// groups; start itself comes first.
func (sp *splitter) mergeChain(start Structure) []Structure {
	var out []Structure
	for s := start; len(s.Groups) > 1; {
		out = append(out, s)
		var best Structure
		bestErr := math.Inf(1)
		for a := range s.Groups {
			for b := a + 1; b < len(s.Groups); b++ {
				merged := mergeGroups(s, a, b)
				if e := sp.err(merged); best.Groups == nil || e < bestErr {
					best, bestErr = merged, e
				}
			}
		}
		s = best
	}
	return out
}

// mergeGroups returns s with groups a < b joined at a's place; groups stay
// sorted and ordered by their first feature.
func mergeGroups(s Structure, a, b int) Structure {
	merged := Structure{Form: s.Form}
	for g, group := range s.Groups {
		switch g {
		case a:
			union := append(append([]int(nil), group...), s.Groups[b]...)
			slices.Sort(union)
			merged.Groups = append(merged.Groups, union)
		case b:
		default:
			merged.Groups = append(merged.Groups, group)
		}
	}
	return merged
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

// SplitTolerance's constants are calibrated on the split candidates of
// surrogates trained as the neural mode trains them, on the Feynman
// benchmark's cases (`enginebench splits`, data in
// test/bench/results/neural-structure/splits-lr.json, scored by
// test/bench/peers/split_calibration.py): splits that hold rebuild to about
// the surrogate's fit error, splits that do not to many times it. The
// ceiling keeps out weak interactions that a surrogate cannot tell from its
// own fit error. The figures are in test/bench/CALIBRATION.md#split-tolerance.
const (
	splitErrorFloor       = 0.02
	splitErrorPerFitError = 1.5
	splitErrorCeiling     = 0.035
)
