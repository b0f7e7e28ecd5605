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
	i := pickOnFront(len(front), func(i int) (float64, int) { return front[i].MSE, front[i].Complexity }, varY)
	if i < 0 {
		return nil
	}
	return front[i]
}

// pickOnFront is selectModel's rule over any front of n members,
// complexity ascending, whose member i has the given loss and complexity.
// It returns the chosen index, or −1 for an empty front. The search uses it
// on its running front to see whether its choice has settled.
func pickOnFront(n int, member func(i int) (loss float64, complexity int), varY float64) int {
	if n == 0 {
		return -1
	}
	for i := range n {
		if loss, _ := member(i); loss <= exactNMSE*varY {
			return i
		}
	}
	minLoss, _ := member(n - 1)
	floor := math.Max(minLoss, 1e-300)
	prevLoss, prevC := math.Max(varY, floor), 1
	best := n - 1
	bestScore := math.Inf(-1)
	for i := range n {
		mse, c := member(i)
		loss := math.Max(mse, 1e-300)
		dc := max(c-prevC, 1)
		score := -(math.Log(loss) - math.Log(prevLoss)) / float64(dc)
		if mse <= 1.5*minLoss && score > bestScore {
			best, bestScore = i, score
		}
		prevLoss, prevC = loss, c
	}
	return best
}
