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

// selectModel picks a model from a Pareto front (complexity ascending)
// fitted on n rows: see pickOnFront.
func selectModel(front []*Model, varY float64, n int) *Model {
	i := pickOnFront(len(front), func(i int) (float64, int) { return front[i].MSE, front[i].Complexity }, varY, n)
	if i < 0 {
		return nil
	}
	return front[i]
}

// selectionBand is how much above the lowest loss a chosen model's loss
// may be.
const selectionBand = 1.5

// pickOnFront is selectModel's rule over any front of m members,
// complexity ascending, whose member i has the given loss (MSE on n rows)
// and complexity. It returns the chosen index, or −1 for an empty front.
// The search uses it on its running front to see whether its choice has
// settled.
//
// If some member is exact, the simplest exact one wins. Otherwise, among
// the members whose loss is within selectionBand of the lowest, the one
// with the lowest Bayesian information criterion n·ln(MSE) + ln(n)·c wins,
// with each of the c nodes priced as a free parameter (Schwarz 1978, Ann.
// Stat. 6:461): a model must buy each extra node with a relative drop in
// error of about ln(n)/n, which noise fitted by a few more constants
// does not give (it gives about 1/n per constant), while a law that fits
// the data better than a shorter look-alike does. PySR's score, the
// largest drop in log(MSE) per node against the simpler neighbour, picks
// the knee of the front instead, and so, with noise, the short look-alike
// (m0/cos(v/c) for m0/sqrt(1 − v²/c²)) whose knee is steeper.
func pickOnFront(m int, member func(i int) (loss float64, complexity int), varY float64, n int) int {
	if m == 0 {
		return -1
	}
	for i := range m {
		if loss, _ := member(i); loss <= exactNMSE*varY {
			return i
		}
	}
	minLoss, _ := member(m - 1)
	best, bestBIC := m-1, math.Inf(1)
	for i := range m {
		mse, c := member(i)
		if mse > selectionBand*minLoss {
			continue
		}
		if b := bic(n, mse, c); b < bestBIC {
			best, bestBIC = i, b
		}
	}
	return best
}

// bic is the selection rule's criterion n·ln(MSE) + ln(n)·complexity for a
// model with the given MSE on n rows. The seeding passes rank their seeds
// by it too, so that a term fitted to noise does not push the law out of
// a pass's few seeds.
func bic(n int, mse float64, complexity int) float64 {
	return float64(n)*math.Log(math.Max(mse, 1e-300)) + math.Log(float64(max(n, 2)))*float64(complexity)
}
