package artifacts

import (
	"cmp"
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
)

// Scatter plots stay bounded whatever the rows: one glyph per row makes a
// million-row plot a file of about 100 MB that SVG renderers refuse (issue
// 18, section 4). At most maxPlotted points are drawn, chosen by a fixed
// rule that depends only on the data:
//
//   - the maxOutliers rows with the largest |predicted − observed| (ties by
//     row), so that the misfits a reader looks for are always visible;
//   - one row from each of the remaining maxPlotted − maxOutliers strata of
//     equal count along the rows sorted by predicted value (ties by row),
//     taken at an offset drawn from a PCG generator with a fixed seed, so
//     that the sample follows the prediction's distribution over its whole
//     range (stratified sampling by quantiles; Cochran, Sampling
//     Techniques, 3rd ed., ch. 5).
//
// Axes are set from all rows, not from the sample.
const (
	maxPlotted  = 4000
	maxOutliers = 200
	sampleSeed  = 0x5eed
)

// plotSample returns the rows to draw, ascending; all rows when there are
// at most maxPlotted.
func plotSample(observed, predicted []float64) []int {
	n := len(observed)
	if n <= maxPlotted {
		rows := make([]int, n)
		for i := range rows {
			rows[i] = i
		}
		return rows
	}
	pick := make(map[int]bool, maxPlotted)
	for _, i := range largestResiduals(observed, predicted, maxOutliers) {
		pick[i] = true
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := cmp.Compare(predicted[a], predicted[b]); c != 0 {
			return c
		}
		return a - b
	})
	strata := maxPlotted - maxOutliers
	rng := rand.New(rand.NewPCG(sampleSeed, uint64(n)))
	for s := range strata {
		lo, hi := s*n/strata, (s+1)*n/strata
		pick[order[lo+rng.IntN(hi-lo)]] = true
	}
	rows := make([]int, 0, len(pick))
	for i := range pick {
		rows = append(rows, i)
	}
	slices.Sort(rows)
	return rows
}

// residualHeap is a min-heap of rows by |residual| (then by descending row),
// holding the k largest seen so far.
type residualHeap struct {
	rows []int
	abs  []float64 // |residual| per row of the data
}

func (h *residualHeap) Len() int { return len(h.rows) }
func (h *residualHeap) Less(a, b int) bool {
	ra, rb := h.rows[a], h.rows[b]
	if h.abs[ra] != h.abs[rb] {
		return h.abs[ra] < h.abs[rb]
	}
	return ra > rb
}
func (h *residualHeap) Swap(a, b int) { h.rows[a], h.rows[b] = h.rows[b], h.rows[a] }
func (h *residualHeap) Push(x any)    { h.rows = append(h.rows, x.(int)) }
func (h *residualHeap) Pop() any {
	x := h.rows[len(h.rows)-1]
	h.rows = h.rows[:len(h.rows)-1]
	return x
}

// largestResiduals returns the k rows with the largest |predicted −
// observed|, ties broken towards the lower row.
func largestResiduals(observed, predicted []float64, k int) []int {
	abs := make([]float64, len(observed))
	for i := range abs {
		abs[i] = math.Abs(predicted[i] - observed[i])
	}
	h := &residualHeap{abs: abs}
	for i := range abs {
		if h.Len() < k {
			heap.Push(h, i)
		} else if top := h.rows[0]; abs[i] > abs[top] {
			h.rows[0] = i
			heap.Fix(h, 0)
		}
	}
	return h.rows
}
