package symbolic

import (
	"math"
	"slices"
)

// exactNMSE is the normalised error below which a model is taken to
// reproduce the data exactly (up to floating-point rounding).
const exactNMSE = 1e-14

// paretoModels keeps the models no simpler model beats, complexity ascending.
func paretoModels(ms []*Model) []*Model {
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b *Model) int {
		if a.Complexity != b.Complexity {
			return a.Complexity - b.Complexity
		}
		switch {
		case a.MSE < b.MSE:
			return -1
		case a.MSE > b.MSE:
			return 1
		}
		return 0
	})
	var front []*Model
	for _, m := range ms {
		if len(front) > 0 && m.MSE >= front[len(front)-1].MSE {
			continue
		}
		front = append(front, m)
	}
	return front
}

// selectModel picks a model from a Pareto front (complexity ascending).
//
// If some model is exact, the simplest exact one wins. Otherwise each model
// gets PySR's score −Δlog(MSE)/Δcomplexity against its simpler neighbour
// (the first against the constant model, MSE = var(y), complexity 1), and
// the best-scoring model among those whose loss is within 1.5× of the
// lowest wins: a model must buy its extra complexity with a large relative
// drop in error.
func selectModel(front []*Model, varY float64) *Model {
	if len(front) == 0 {
		return nil
	}
	for _, m := range front {
		if m.MSE <= exactNMSE*varY {
			return m
		}
	}
	minLoss := front[len(front)-1].MSE
	floor := math.Max(minLoss, 1e-300)
	prevLoss, prevC := math.Max(varY, floor), 1
	var best *Model
	bestScore := math.Inf(-1)
	for _, m := range front {
		loss := math.Max(m.MSE, 1e-300)
		dc := max(m.Complexity-prevC, 1)
		score := -(math.Log(loss) - math.Log(prevLoss)) / float64(dc)
		if m.MSE <= 1.5*minLoss && score > bestScore {
			best, bestScore = m, score
		}
		prevLoss, prevC = loss, m.Complexity
	}
	if best == nil {
		best = front[len(front)-1]
	}
	return best
}
