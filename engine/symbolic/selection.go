package symbolic

import (
	"math"
	"slices"
)

// exactNMSE is the normalised error below which a model is taken to
// reproduce the data exactly (up to floating-point rounding).
const exactNMSE = 1e-14

// paretoModels keeps the models no cheaper model beats, cost ascending,
// where a model's cost is its complexity plus its free constants, the
// price selectModel charges. On complexity alone a snapped law (−1/(exp(−
// ħω/kT) − 1) − 1) would be dominated by its own unsnapped form with the
// same nodes and a little lower loss, and never reach selectModel.
func paretoModels(ms []*Model) []*Model {
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b *Model) int {
		if ca, cb := a.cost(), b.cost(); ca != cb {
			return ca - cb
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

// selectModel picks a model from a Pareto front (paretoModels, cost
// ascending) fitted on n rows: see pickOnFront. A printed model is priced
// by its nodes and, once more, by its free constants (freeConstants): the nodes
// price its structure, and each fitted value adds a parameter that a
// snapped one (π², 1/2) does not. This is the two-part code of minimum
// description length (Rissanen 1978, Automatica 14:465), a parameter at
// precision 1/√n costing ½·ln(n) nats, ln(n) on pickOnFront's scale. So
// the Bose law 1/(exp(ħω/kT) − 1) (14 nodes, no fitted constant) is
// preferred to its small-argument look-alike 2π·kT/(hω) − 0.47 (11 nodes,
// one fitted constant) when it fits the rows better by more than about
// 2·ln(n) (III.4.32).
func selectModel(front []*Model, varY float64, n int) *Model {
	i := pickOnFront(len(front), func(i int) (float64, int) { return front[i].MSE, front[i].cost() }, varY, n)
	if i < 0 {
		return nil
	}
	return front[i]
}

// cost is the model's complexity plus its free constants: what
// selectModel prices and paretoModels orders by.
func (m *Model) cost() int { return m.Complexity + freeConstants(m.t) }

// freeConstants counts t's constants that cost a parameter: all but the
// integers, the halves and the powers of π and 2π (piUnits) themselves.
// The other simple multiples (3/(2π), 1/(4π)) are snapped to but still
// priced: naming one of the 106 of them takes about as many nats as a
// fitted value (ln 106 ≈ 4.7 against ½·ln n), and one lies within
// snapping's 0.1 % of a fitted value by chance often enough (III.4.32's
// look-alike 2π·kT/(hω) − 0.477465, whose offset is 3/(2π) to four
// digits).
func freeConstants(t tree) int {
	free := 0
	for _, nd := range t {
		if nd.op == opConst && !simpleConstant(nd.c) {
			free++
		}
	}
	return free
}

// simpleConstant reports whether c is an integer, a half or a power of π
// or 2π (piUnits), up to sign.
func simpleConstant(c float64) bool {
	if math.Round(2*c) == 2*c {
		return true
	}
	for _, v := range piUnits {
		if math.Abs(v-math.Abs(c)) <= 1e-9*v {
			return true
		}
	}
	return false
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

// rankedSeeds collects a seeding pass's seeds: each simplified (simplest),
// once, and kept when it fits y about as well as the plain sparse pass did
// (within transformSlack of its residual floor, a share of var(y)),
// because with noise a sparse series of up to eight terms fits a little of
// the noise that a short law leaves. best ranks them by bic.
type rankedSeeds struct {
	p     *problem
	full  *evaluator // on all of p's rows
	limit float64    // the largest MSE kept
	seen  map[uint64]bool
	seeds []rankedSeed
}

type rankedSeed struct {
	t   tree
	bic float64
}

func newRankedSeeds(p *problem, full *evaluator, floor float64) *rankedSeeds {
	return &rankedSeeds{p: p, full: full, limit: transformSlack * floor * p.varY, seen: map[uint64]bool{}}
}

// add simplifies t and keeps it if it is inside the grammar's limits, new
// and within the limit.
func (r *rankedSeeds) add(t tree) {
	t, ok := r.p.simplest(t)
	if !ok || r.seen[t.hash()] {
		return
	}
	r.seen[t.hash()] = true
	if l := evaluate(r.full, r.p.y, t).loss; l <= r.limit {
		r.seeds = append(r.seeds, rankedSeed{t, bic(len(r.p.y), l, t.complexity())})
	}
}

// best returns at most k seeds, lowest bic first.
func (r *rankedSeeds) best(k int) []tree {
	slices.SortStableFunc(r.seeds, func(a, b rankedSeed) int { return cmpFloat(a.bic, b.bic) })
	var out []tree
	for _, s := range r.seeds[:min(len(r.seeds), k)] {
		out = append(out, s.t)
	}
	return out
}
