package controls

import (
	"math"
	"math/rand"
)

// Permutations is the number of null draws per control; with 99 draws the
// smallest p-value is exactly 0.01.
const Permutations = 99

// Alpha is the significance level a control must reach to pass.
const Alpha = 0.05

// Result is the outcome of one negative control, as it appears in claim
// evidence and in the ledger.
type Result struct {
	Passed bool    `json:"passed"`
	PValue float64 `json:"p_value"`
}

// PValue is the permutation p-value (1 + #{null >= observed}) / (1 + N).
// A NaN statistic counts as a null at least as extreme, so a model that
// cannot be evaluated never passes.
func PValue(observed float64, null []float64) float64 {
	count := 0
	for _, v := range null {
		if math.IsNaN(observed) || math.IsNaN(v) || v >= observed {
			count++
		}
	}
	return float64(1+count) / float64(1+len(null))
}

// Bonferroni re-decides results for a family of tests claims tested in one run:
// each passes at Alpha/tests, so the chance that any claim of a run passes
// on data without a relationship stays at Alpha, not tests·Alpha.
func Bonferroni(results map[string]Result, tests int) {
	if tests < 1 {
		tests = 1
	}
	for name, r := range results {
		r.Passed = r.Passed && r.PValue <= Alpha/float64(tests)
		results[name] = r
	}
}

// decide turns a p-value into a Result.
func decide(p float64) Result {
	return Result{Passed: p <= Alpha, PValue: p}
}

// ShuffledTarget permutes y up to Permutations times, stopping once the
// outcome is settled (DefaultSequential); stat scores a target vector
// against the (fixed) claim, larger meaning a better fit.
func ShuffledTarget(y []float64, stat func(y []float64) float64, rng *rand.Rand) Result {
	next := shuffler(y, rng)
	buf := make([]float64, len(y))
	r, _ := DefaultSequential.Run(stat(y), func() float64 { return stat(next(buf)) })
	return r
}

// shuffler returns a function writing a fresh uniform permutation of v into
// dst on each call.
func shuffler(v []float64, rng *rand.Rand) func(dst []float64) []float64 {
	return func(dst []float64) []float64 {
		copy(dst, v)
		rng.Shuffle(len(dst), func(i, j int) { dst[i], dst[j] = dst[j], dst[i] })
		return dst
	}
}

// NoiseFeature replaces each column of X (column-major, X[j][i]) in turn by
// a permutation of itself and rescored the claim with stat, each column's
// test stopping once settled (DefaultSequential). Every column must beat its
// noise substitutes; the p-value reported is the largest over the columns.
// With no columns the control cannot pass.
func NoiseFeature(X [][]float64, stat func(X [][]float64) float64, rng *rand.Rand) Result {
	return noiseFeature(X, stat, func(v []float64) func([]float64) []float64 { return shuffler(v, rng) })
}

// noiseFeature runs NoiseFeature with permutations of each column from
// permute.
func noiseFeature(X [][]float64, stat func(X [][]float64) float64, permute func(v []float64) func([]float64) []float64) Result {
	if len(X) == 0 {
		return Result{Passed: false, PValue: 1}
	}
	observed := stat(X)
	worst := 0.0
	for j := range X {
		next := permute(X[j])
		noise := make([]float64, len(X[j]))
		substituted := append([][]float64(nil), X...)
		r, _ := DefaultSequential.Run(observed, func() float64 {
			substituted[j] = next(noise)
			return stat(substituted)
		})
		worst = math.Max(worst, r.PValue)
	}
	return decide(worst)
}

// TimeShift compares stat on the aligned target with stat on circular shifts
// of the target by k steps, k spread evenly over [n/10, n-n/10]. Fewer than
// 20 rows leave no room for meaningful shifts and the control fails.
func TimeShift(y []float64, stat func(y []float64) float64) Result {
	n := len(y)
	if n < 20 {
		return Result{Passed: false, PValue: 1}
	}
	shifts := ShiftOffsets(n, Permutations)
	observed := stat(y)
	null := make([]float64, len(shifts))
	shifted := make([]float64, n)
	for k, s := range shifts {
		for i := range y {
			shifted[i] = y[(i+s)%n]
		}
		null[k] = stat(shifted)
	}
	return decide(PValue(observed, null))
}

// ShiftOffsets returns up to max distinct circular shifts spread evenly over
// [n/10, n-n/10], skipping the small shifts that a smooth series would
// survive.
func ShiftOffsets(n, max int) []int {
	lo, hi := n/10, n-n/10
	if lo < 1 {
		lo = 1
	}
	span := hi - lo + 1
	if span <= 0 {
		return nil
	}
	count := max
	if span < count {
		count = span
	}
	out := make([]int, 0, count)
	seen := map[int]bool{}
	for k := 0; k < count; k++ {
		s := lo + int(float64(k)*float64(span-1)/math.Max(1, float64(count-1)))
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// PlaceboCause draws up to Permutations standard Gaussian placebo
// variables of length n, stopping once settled (DefaultSequential), and
// compares observed (the real cause's statistic) with the placebo
// statistics.
func PlaceboCause(observed float64, n int, stat func(placebo []float64) float64, rng *rand.Rand) Result {
	placebo := make([]float64, n)
	r, _ := DefaultSequential.Run(observed, func() float64 {
		for i := range placebo {
			placebo[i] = rng.NormFloat64()
		}
		return stat(placebo)
	})
	return r
}
