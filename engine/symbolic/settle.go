package symbolic

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/spatial/kdtree"
	"gonum.org/v1/gonum/stat"
)

// The settle rule ends a search on noisy data once further generations are
// not going to change its answer. Exact data stop by the exact rule (see
// Fit); on noisy data nothing is ever exact, and without this rule every
// noisy search ran to its time limit while its answer had stopped changing
// long before. The thresholds come from per-epoch traces of benchmark
// searches run to their time limit before the rule existed
// (test/bench/results/settle/traces, replayed by
// test/bench/peers/settle_traces.py), chosen so that on the traces that
// record the residual ratio the rule keeps the final choice of every noisy
// search and stops no noise-free search early. What the replay and the
// Feynman table measured is recorded in
// test/bench/CALIBRATION.md#settle-rule.
//
// A search has settled when both hold:
//
//   - its choice has settled: the model selection would pick from the
//     running front (same size, loss within settleLossTolerance) has not
//     changed for settleMinEpochs epochs, nor for as many epochs as it took
//     to appear, so a choice found late must survive as long as the search
//     before it;
//   - the chosen model's residuals look like noise: residuals of
//     neighbouring rows (nearest neighbours in standardised inputs, see
//     below) are no more alike than residuals of random rows. The statistic is
//     the von Neumann-style ratio mean((r_i − r_nn(i))²) / (2·var(r)), near
//     1 for noise and near 0 when the residual is a smooth function of the
//     inputs, that is, when a better law is still there to be found.
//     settleWhiteness lies between the ratios the traces show for
//     noise-free searches whose law had not been found and for right laws
//     on noisy data.
//
// The ratio is taken twice, and the smaller counts: over all inputs, and
// over the variables the running front's models use. Columns that do not
// matter scatter the neighbours: with seven irrelevant columns beside three
// relevant ones, the nearest row in all ten is no nearer in the three than
// a random row, so a residual that is a smooth function of them looks like
// noise, and noise-free searches on such data settled on laws they had not
// found (test/bench/results/settle-front-vars/irrelevant-columns). Over the
// front's variables alone, a term in a variable the front
// does not use yet would look like noise instead; all inputs catch that
// when they are few.
const (
	settleMinEpochs     = 10
	settleLossTolerance = 0.01
	settleWhiteness     = 0.8
)

// settleRule tracks the search's choice across epochs.
type settleRule struct {
	p *problem
	// neighbours caches the nearest other search row of each search row,
	// over each variable set asked for (keyed by fmt of the set).
	neighbours map[string][]int

	size  int     // complexity of the current choice
	loss  float64 // its loss when it became the choice
	since int     // epoch at which it became the choice; 0 before the first
}

// settled reports, after the given epoch (1-based), whether the search can
// stop: see the rule above. front is the running Pareto front.
func (r *settleRule) settled(front []individual, epoch int) bool {
	i := pickOnFront(len(front), func(i int) (float64, int) { return front[i].loss, front[i].size }, r.p.searchVarY, len(r.p.searchY))
	if i < 0 {
		return false
	}
	c := &front[i]
	if r.since == 0 || c.size != r.size || c.loss < r.loss*(1-settleLossTolerance) {
		r.size, r.loss, r.since = c.size, c.loss, epoch
		return false
	}
	if epoch-r.since < max(settleMinEpochs, r.since) {
		return false
	}
	return r.whiteness(c, frontVars(front, r.p.g.vars)) >= settleWhiteness
}

// whiteness is the smaller neighbour ratio of ind's residuals on the search
// rows, with neighbours over all variables and over the variables used.
func (r *settleRule) whiteness(ind *individual, used []int) float64 {
	resid := residuals(ind, r.p.searchCols, r.p.searchY)
	ratio := neighbourRatio(resid, r.nearest(r.p.g.vars))
	if !slices.Equal(used, r.p.g.vars) {
		ratio = math.Min(ratio, neighbourRatio(resid, r.nearest(used)))
	}
	return ratio
}

// nearest returns the cached neighbours over vars, computing them once.
func (r *settleRule) nearest(vars []int) []int {
	key := fmt.Sprint(vars)
	if nb, ok := r.neighbours[key]; ok {
		return nb
	}
	if r.neighbours == nil {
		r.neighbours = map[string][]int{}
	}
	nb := nearestNeighbours(r.p.searchCols, vars)
	r.neighbours[key] = nb
	return nb
}

// residuals are y − (a + b·f) of ind's linearly scaled tree on rows cols.
func residuals(ind *individual, cols [][]float64, y []float64) []float64 {
	f := newEvaluator(cols, len(y)).eval(ind.t)
	out := make([]float64, len(y))
	for k := range f {
		out[k] = y[k] - (ind.a + ind.b*f[k])
	}
	return out
}

// frontVars returns the variables of all that the front's models use, or
// all when they use none (a front of constants).
func frontVars(front []individual, all []int) []int {
	used := map[int32]bool{}
	for i := range front {
		for _, n := range front[i].t {
			if n.op == opVar {
				used[n.v] = true
			}
		}
	}
	var out []int
	for _, v := range all {
		if used[int32(v)] {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// neighbourRatio is mean((r_i − r_nb(i))²) / (2·var(r)); 0 for a constant
// residual (nothing left to explain) is reported as 1.
func neighbourRatio(resid []float64, neighbour []int) float64 {
	v := stat.Variance(resid, nil)
	if !(v > 0) || len(neighbour) != len(resid) {
		return 1
	}
	var s float64
	for k, j := range neighbour {
		d := resid[k] - resid[j]
		s += d * d
	}
	return s / float64(len(resid)) / (2 * v)
}

// nearestNeighbours returns, for each row, the nearest other row in the
// columns vars, each standardised (a constant column is left out).
func nearestNeighbours(cols [][]float64, vars []int) []int {
	n := len(cols[vars[0]])
	pts := make(kdtree.Points, n)
	for k := range pts {
		pts[k] = make(kdtree.Point, 0, len(vars))
	}
	for _, j := range vars {
		mean, sd := stat.PopMeanStdDev(cols[j], nil)
		if !(sd > 0) {
			continue
		}
		for k := range pts {
			pts[k] = append(pts[k], (cols[j][k]-mean)/sd)
		}
	}
	out := make([]int, n)
	if n < 2 || len(pts[0]) == 0 {
		for k := range out {
			out[k] = (k + 1) % n
		}
		return out
	}
	// The tree reorders pts; the points themselves are not copied, so
	// their first element's address identifies the row.
	row := make(map[*float64]int, n)
	for k, pt := range pts {
		row[&pt[0]] = k
	}
	query := make(kdtree.Points, n)
	copy(query, pts)
	tree := kdtree.New(pts, false)
	for k, q := range query {
		// The two nearest points: the row itself and its neighbour, or
		// two rows at the same place, either of which will do.
		keep := kdtree.NewNKeeper(2)
		tree.NearestSet(keep, q)
		out[k] = (k + 1) % n
		for _, c := range keep.Heap {
			if pt, ok := c.Comparable.(kdtree.Point); ok && len(pt) > 0 && row[&pt[0]] != k {
				out[k] = row[&pt[0]]
				break
			}
		}
	}
	return out
}
