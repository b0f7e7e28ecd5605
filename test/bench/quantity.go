package bench

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/discolab/disco/engine/conservation"
)

// QuantityValues evaluates Σ c_k·term_k on every row of X (X[j][i], j over
// names), each term read by conservation.ParseTerm, summed in term-name
// order so that the values do not depend on map order.
func QuantityValues(coef map[string]float64, names []string, X [][]float64) ([]float64, error) {
	out := make([]float64, len(X[0]))
	terms := make([]string, 0, len(coef))
	for t := range coef {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	state := make([]float64, len(names))
	for _, name := range terms {
		term, err := conservation.ParseTerm(name, names)
		if err != nil {
			return nil, err
		}
		for i := range out {
			for j := range names {
				state[j] = X[j][i]
			}
			out[i] += coef[name] * term.Eval(state)
		}
	}
	return out, nil
}

// AffineR2 is the R² of the least-squares fit y ≈ a·x + b: the squared
// sample correlation, 0 when either side is constant. A found conserved
// quantity counts as the true one at AffineR2 ≥ 0.99 (its scale and offset
// are arbitrary).
func AffineR2(x, y []float64) float64 {
	r := stat.Correlation(x, y, nil)
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return 0
	}
	return r * r
}
