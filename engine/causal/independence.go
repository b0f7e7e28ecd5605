package causal

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// residualIndependenceP checks the assumption LiNGAM rests on: in the
// causal direction the regression residual is independent of the cause.
// Linear regression already makes them uncorrelated, so it looks for the
// dependence that remains when the model is wrong (heteroscedastic noise,
// nonlinear effects, outliers driven by the cause): the Spearman rank
// correlations of |r| with the cause and with |cause|. It returns the
// smaller p-value of the two rank tests, Bonferroni-corrected. Ranks keep
// the test valid for the heavy-tailed data LiNGAM is applied to.
func residualIndependenceP(cause, resid []float64) float64 {
	absR := make([]float64, len(resid))
	absC := make([]float64, len(cause))
	for i := range resid {
		absR[i] = math.Abs(resid[i])
		absC[i] = math.Abs(cause[i])
	}
	rankR := ranks(absR)
	p1 := fisherZPValue(pearson(ranks(cause), rankR), len(cause), 0)
	p2 := fisherZPValue(pearson(ranks(absC), rankR), len(cause), 0)
	return min(1, 2*min(p1, p2))
}

// ranks returns the ranks of v (average ranks for ties), 1-based.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
	out := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			out[idx[k]] = r
		}
		i = j + 1
	}
	return out
}

// pearson is the sample correlation of a and b (stat.Correlation), 0 if
// either is constant.
func pearson(a, b []float64) float64 {
	r := stat.Correlation(a, b, nil)
	if math.IsNaN(r) {
		return 0
	}
	return r
}
