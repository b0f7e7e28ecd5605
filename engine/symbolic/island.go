package symbolic

import (
	"math/rand/v2"
	"slices"
)

// problem is the read-only data every island shares.
type problem struct {
	cols  [][]float64
	y     []float64
	varY  float64
	names []string
	g     *grammar
	s     settings
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
}

func newIsland(p *problem, seed int64, index int) *island {
	return &island{
		p:   p,
		rng: rand.New(rand.NewPCG(uint64(seed), 0x9E3779B97F4A7C15*uint64(index+1))),
		ev:  newEvaluator(p.cols, len(p.y)),
		opt: newConstOptimizer(p.cols, p.y),
	}
}

// evaluate scores t (after constant folding) and records it on the front.
func (isl *island) evaluate(t tree) individual {
	isl.evals++
	ind := evaluate(isl.ev, isl.p.y, t)
	return ind
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

// tournament returns the best of a few random members.
func (isl *island) tournament() *individual {
	best := &isl.pop[isl.rng.IntN(len(isl.pop))]
	for i := 1; i < isl.p.s.tournament; i++ {
		c := &isl.pop[isl.rng.IntN(len(isl.pop))]
		if better(c, best) {
			best = c
		}
	}
	return best
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
