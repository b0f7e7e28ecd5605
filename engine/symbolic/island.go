package symbolic

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/discolab/disco/engine/units"
)

// problem is the read-only data every island shares.
type problem struct {
	cols  [][]float64 // all rows
	y     []float64
	varY  float64
	names []string
	g     *grammar
	s     settings

	expired func() bool // reports whether the time limit or context ran out

	// dims are the inputs' dimensions and target the target's when the
	// search checks dimensional consistency (Options.InputUnits); nil
	// otherwise.
	dims   []*units.Dim
	target *units.Dim

	// The evolutionary search scores individuals on a fixed random subset
	// of at most maxSearchRows rows: selection only needs to rank them,
	// and the saved time buys more generations. Constants of the final
	// front are refitted and models scored on all rows.
	searchCols [][]float64
	searchY    []float64
	searchVarY float64
}

// maxSearchRows bounds the rows used during evolution.
const maxSearchRows = 400

// setSearchRows draws the search subset deterministically from seed.
func (p *problem) setSearchRows(seed int64) {
	n := len(p.y)
	if n <= maxSearchRows {
		p.searchCols, p.searchY, p.searchVarY = p.cols, p.y, p.varY
		return
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5EED))
	rows := rng.Perm(n)[:maxSearchRows]
	slices.Sort(rows)
	p.searchCols = make([][]float64, len(p.cols))
	for j, c := range p.cols {
		p.searchCols[j] = make([]float64, len(rows))
		for k, i := range rows {
			p.searchCols[j][k] = c[i]
		}
	}
	p.searchY = make([]float64, len(rows))
	for k, i := range rows {
		p.searchY[k] = p.y[i]
	}
	_, sd := stat.PopMeanStdDev(p.searchY, nil)
	p.searchVarY = sd * sd
}

// island is one population evolving on its own RNG. Islands only exchange
// individuals at epoch boundaries, under the coordinator's control, so the
// outcome never depends on goroutine scheduling.
type island struct {
	p     *problem
	rng   *rand.Rand
	pop   []individual
	ev    *evaluator
	opt   *constOptimizer
	front paretoFront
	evals int64

	sizeCount []int // individuals per complexity in pop
}

func newIsland(p *problem, seed int64, index int) *island {
	return &island{
		p:   p,
		rng: rand.New(rand.NewPCG(uint64(seed), 0x9E3779B97F4A7C15*uint64(index+1))),
		ev:  newEvaluator(p.searchCols, len(p.searchY)),
		opt: newConstOptimizer(p.searchCols, p.searchY),
	}
}

// evaluate scores t (after constant folding) and records it on the front.
func (isl *island) evaluate(t tree) individual {
	isl.evals++
	if isl.p.dims != nil {
		if ok, _ := dimensionallyConsistent(t, isl.p.dims, nil); !ok {
			return individual{t: t, loss: math.Inf(1), size: t.complexity()}
		}
	}
	return evaluate(isl.ev, isl.p.searchY, t)
}

// initialize fills the population with the seeds followed by random trees
// of ramped sizes.
func (isl *island) initialize(seeds []tree) {
	s := isl.p.s
	isl.pop = isl.pop[:0]
	for _, t := range seeds {
		if len(isl.pop) >= s.popSize/2 {
			break
		}
		isl.add(t)
	}
	for len(isl.pop) < s.popSize {
		budget := 1 + isl.rng.IntN(max(1, min(s.maxSize, 15)))
		isl.add(isl.p.g.randomTree(isl.rng, budget, s.maxDepth))
	}
}

func (isl *island) add(t tree) {
	ind := isl.evaluate(simplifyTree(t))
	isl.evals += int64(isl.opt.optimize(&ind, isl.p.s.localSearchIters))
	isl.front.offer(&ind)
	isl.pop = append(isl.pop, ind)
}

// tournament returns the best of a few random members by adjusted loss.
//
// The adjustment is PySR's adaptive parsimony: an individual's loss is
// multiplied by exp(scale·share of its complexity in the population), so
// crowded sizes (usually the largest allowed ones, where bloat gathers)
// lose tournaments and the population keeps exploring small expressions.
func (isl *island) tournament() *individual {
	best := &isl.pop[isl.rng.IntN(len(isl.pop))]
	bestAdj := isl.adjusted(best)
	for i := 1; i < isl.p.s.tournament; i++ {
		c := &isl.pop[isl.rng.IntN(len(isl.pop))]
		if adj := isl.adjusted(c); adj < bestAdj || (adj == bestAdj && c.size < best.size) {
			best, bestAdj = c, adj
		}
	}
	return best
}

func (isl *island) adjusted(ind *individual) float64 {
	share := 0.0
	if ind.size < len(isl.sizeCount) {
		share = float64(isl.sizeCount[ind.size]) / float64(len(isl.pop))
	}
	return ind.loss * math.Exp(isl.p.s.parsimony*share)
}

// countSizes refreshes the complexity histogram used by adjusted.
func (isl *island) countSizes() {
	isl.sizeCount = isl.sizeCount[:0]
	for _, ind := range isl.pop {
		for len(isl.sizeCount) <= ind.size {
			isl.sizeCount = append(isl.sizeCount, 0)
		}
		isl.sizeCount[ind.size]++
	}
}

func (isl *island) sortPopulation() {
	slices.SortStableFunc(isl.pop, func(x, y individual) int {
		switch {
		case better(&x, &y):
			return -1
		case better(&y, &x):
			return 1
		}
		return 0
	})
}

// step runs one generation: elitism, then children by crossover or
// mutation, a little local search on some children, and a thorough one on
// the best few.
func (isl *island) step() {
	s := isl.p.s
	g := isl.p.g
	isl.sortPopulation()
	isl.countSizes()
	next := make([]individual, 0, s.popSize)
	seen := make(map[uint64]bool, s.popSize)
	for i := 0; i < s.elites && i < len(isl.pop); i++ {
		next = append(next, isl.pop[i])
		seen[isl.pop[i].t.hash()] = true
	}
	for len(next) < s.popSize {
		var child tree
		for try := 0; try < 3; try++ {
			if isl.rng.Float64() < s.crossoverRate {
				child = g.crossover(isl.rng, isl.tournament().t, isl.tournament().t)
				if isl.rng.Float64() < 0.2 {
					child = g.mutate(isl.rng, child)
				}
			} else {
				child = g.mutate(isl.rng, isl.tournament().t)
			}
			child = simplifyTree(child)
			// Structural duplicates waste evaluations and diversity.
			if !seen[child.hash()] {
				break
			}
		}
		seen[child.hash()] = true
		ind := isl.evaluate(child)
		if isl.rng.Float64() < s.localSearchRate {
			isl.evals += int64(isl.opt.optimize(&ind, s.localSearchIters))
		}
		isl.front.offer(&ind)
		next = append(next, ind)
	}
	isl.pop = next
	isl.sortPopulation()
	for i := 0; i < s.polishTop && i < len(isl.pop); i++ {
		isl.evals += int64(isl.opt.optimize(&isl.pop[i], s.polishIters))
		isl.front.offer(&isl.pop[i])
	}
}

// receive replaces the worst members with the migrants.
func (isl *island) receive(migrants []individual) {
	isl.sortPopulation()
	n := len(isl.pop)
	for i, m := range migrants {
		if i >= n/2 {
			break
		}
		isl.pop[n-1-i] = m
		isl.front.offer(&m)
	}
}

// emigrants returns copies of the k best members.
func (isl *island) emigrants(k int) []individual {
	isl.sortPopulation()
	return slices.Clone(isl.pop[:min(k, len(isl.pop))])
}

// timeUp reports whether the search must stop (never, without a limit).
func (p *problem) timeUp() bool { return p.expired != nil && p.expired() }
