package symbolic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/stat"
)

// Fit searches for an expression y ≈ f(X). X is column-major: X[j][i] is
// feature j at row i and names[j] its name (nil names become x0, x1, ...).
// When opts.TimeLimit or ctx expires, the best result found so far is
// returned without error.
func Fit(ctx context.Context, X [][]float64, y []float64, names []string, opts Options) (*Result, error) {
	return fit(ctx, X, y, names, opts, true)
}

// fit is Fit with the sparse-regression seeding optional, so tests can
// exercise the genetic search on its own.
func fit(ctx context.Context, X [][]float64, y []float64, names []string, opts Options, seeding bool) (*Result, error) {
	names, err := validate(X, y, names)
	if err != nil {
		return nil, err
	}
	opNames := opts.Operators
	if len(opNames) == 0 {
		opNames = DefaultOperators
	}
	ops, err := parseOperators(opNames)
	if err != nil {
		return nil, err
	}
	s := resolve(opts)
	g := newGrammar(ops, s)
	if len(opts.Operators) == 0 {
		// The seeding passes may also write SeedOperators (options.go).
		if g.seed, err = parseOperators(SeedOperators); err != nil {
			return nil, err
		}
	}
	excluded := map[string]bool{}
	for _, e := range opts.Exclude {
		excluded[e] = true
	}
	for j, nm := range names {
		if !excluded[nm] {
			g.vars = append(g.vars, j)
		}
	}
	if len(g.vars) == 0 {
		return nil, errors.New("symbolic: every input variable is excluded")
	}

	start := time.Now()
	// The search stops a little before the limit so that refining and
	// printing the final models fits inside it.
	searchLimit := opts.TimeLimit - min(opts.TimeLimit/10, 2*time.Second)
	expired := func() bool {
		return ctx.Err() != nil || (opts.TimeLimit > 0 && time.Since(start) >= searchLimit)
	}
	progress := newProgress(opts.Progress)
	progress.report(0)
	defer progress.report(1)

	_, varY := stat.PopMeanStdDev(y, nil)
	varY *= varY
	p := &problem{cols: X, y: y, varY: varY, names: names, g: g, s: s, expired: expired}
	if varY == 0 {
		m := constantModel(y[0], 0, varY)
		return &Result{Best: m, Front: []*Model{m}, Stop: StopTrivial}, nil
	}
	p.setSearchRows(s.seed)
	p.dims, p.target = searchDims(opts, g.vars)

	var seeds []tree
	for _, m := range opts.Seeds {
		if m != nil && g.allows(m.t) {
			seeds = append(seeds, m.t.clone())
		}
	}
	if seeding {
		// Seeding may use at most 30% of the search time; the passes check
		// between their stages.
		p.expired = func() bool {
			return expired() || (opts.TimeLimit > 0 && time.Since(start) >= searchLimit*3/10)
		}
		// The dimensionless search runs first, within a fifth of the
		// search time when there is a limit (pigroups.go).
		seeds = append(seeds, piSeeds(ctx, p, opts, searchLimit/5)...)
		pl := powerLawSeeds(p)
		var mono tree
		if len(pl) > 0 {
			mono = pl[0]
		}
		lib := buildLibrary(p)
		sparse, sparseRSS := sparseSeeds(p, lib)
		seeds = append(seeds, pl...)
		seeds = append(seeds, exponentialSeeds(p, lib, sparseRSS)...)
		seeds = append(seeds, sparse...)
		// Monomials under a link go first when they fit (linkseeds.go):
		// they run only when no seed so far is exact, and before the
		// costlier passes, which the seeding time may cut short.
		seeds = append(linkSeeds(p, pl, seeds, sparseRSS), seeds...)
		seeds = append(seeds, transformSeeds(p, lib, pl, sparseRSS)...)
		seeds = append(seeds, lorentzSeeds(p, lib, sparseRSS)...)
		seeds = append(seeds, rationalSeeds(p, mono, sparseRSS)...)
		// The structure moves run only when the passes above leave y
		// unexplained, their smaller searches within a quarter of the
		// search time when there is a limit (structure.go). Their seeds go
		// first, as the populations take at most half their size in seeds.
		seeds = append(structureSeeds(ctx, p, opts, seeds, searchLimit/4), seeds...)
		p.expired = expired
		if opts.TimeLimit > 0 {
			progress.report(float64(time.Since(start)) / float64(searchLimit))
		}
	}

	islands := make([]*island, s.islands)
	for i := range islands {
		islands[i] = newIsland(p, s.seed, i)
	}
	parallel(len(islands), func(i int) { islands[i].initialize(seeds) })

	var global paretoFront
	coord := rand.New(rand.NewPCG(uint64(s.seed), 0xC0FFEE))
	exactSize, stall := -1, 0
	settle := &settleRule{p: p}
	stop := StopGenerations
	done := 0
	for epochs := 1; done < s.generations; epochs++ {
		if expired() {
			stop = StopTimeLimit
			break
		}
		epoch := min(s.migrationInterval, s.generations-done)
		finished := make(chan struct{})
		go func() {
			parallel(len(islands), func(i int) {
				for k := 0; k < epoch && !expired(); k++ {
					islands[i].step()
				}
			})
			close(finished)
		}()
		// While the islands work, report progress by the clock, from this
		// goroutine only, so Progress need not be safe for concurrent use.
		tick := time.NewTicker(100 * time.Millisecond)
		for waiting := true; waiting; {
			select {
			case <-finished:
				waiting = false
			case <-tick.C:
				if opts.TimeLimit > 0 {
					progress.report(math.Min(float64(time.Since(start))/float64(searchLimit), 0.99))
				}
			}
		}
		tick.Stop()
		done += epoch
		for _, isl := range islands {
			global.merge(&isl.front)
		}
		migrate(islands, &global, coord, s.migrants)
		frac := float64(done) / float64(s.generations)
		if opts.TimeLimit > 0 {
			frac = math.Max(frac, float64(time.Since(start))/float64(searchLimit))
		}
		progress.report(frac)

		// Once an exact model exists, keep going only while the simplest
		// exact model is still getting simpler; without one, until the
		// choice settles on a law that leaves only noise (settle.go).
		front := global.members()
		if sz := simplestExact(front, p.searchVarY); sz >= 0 {
			if sz == exactSize {
				stall++
			} else {
				exactSize, stall = sz, 0
			}
			if stall >= s.exactStallEpochs {
				stop = StopExact
				break
			}
		} else if settle.settled(front, epochs) {
			stop = StopSettled
			break
		}
	}
	if stop == StopGenerations && expired() {
		stop = StopTimeLimit
	}
	res := finalize(p, &global, islands, seeds)
	res.Generations, res.Stop = done, stop
	return res, nil
}

func validate(X [][]float64, y []float64, names []string) ([]string, error) {
	if len(X) == 0 {
		return nil, errors.New("symbolic: X has no columns")
	}
	if len(y) < 2 {
		return nil, fmt.Errorf("symbolic: need at least 2 rows, got %d", len(y))
	}
	if names == nil {
		names = make([]string, len(X))
		for j := range names {
			names[j] = fmt.Sprintf("x%d", j)
		}
	}
	if len(names) != len(X) {
		return nil, fmt.Errorf("symbolic: %d names for %d columns", len(names), len(X))
	}
	for j, c := range X {
		if len(c) != len(y) {
			return nil, fmt.Errorf("symbolic: column %q has %d rows, y has %d", names[j], len(c), len(y))
		}
		if names[j] == "" {
			return nil, fmt.Errorf("symbolic: column %d has an empty name", j)
		}
		for i, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("symbolic: column %q row %d is not finite", names[j], i)
			}
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("symbolic: y row %d is not finite", i)
		}
	}
	return names, nil
}

func newGrammar(ops []opcode, s settings) *grammar {
	g := &grammar{maxSize: s.maxSize, maxDepth: s.maxDepth}
	hasDiv := false
	for _, o := range ops {
		if o.arity() == 2 {
			g.binary = append(g.binary, o)
		} else {
			g.unary = append(g.unary, o)
		}
		hasDiv = hasDiv || o == opDiv
	}
	g.exponents = physicsExponents
	if !hasDiv {
		g.exponents = polynomialExponents
	}
	return g
}

// parallel runs f(0..n-1) on at most GOMAXPROCS goroutines and waits.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			f(i)
			<-sem
		}()
	}
	wg.Wait()
}

// migrate sends each island's best to the next island on a ring, plus a
// couple of members of the global Pareto front, which carries simple
// building blocks between islands.
func migrate(islands []*island, global *paretoFront, rng *rand.Rand, k int) {
	n := len(islands)
	out := make([][]individual, n)
	for i, isl := range islands {
		out[i] = isl.emigrants(k)
	}
	front := global.members()
	for i, isl := range islands {
		in := slices.Clone(out[(i+n-1)%n])
		if n == 1 {
			in = nil
		}
		for j := 0; j < 2 && len(front) > 0; j++ {
			in = append(in, front[rng.IntN(len(front))])
		}
		isl.receive(in)
	}
}

// simplestExact returns the complexity of the simplest exact member of the
// front (complexity ascending), or −1.
func simplestExact(front []individual, varY float64) int {
	for _, m := range front {
		if m.loss <= exactNMSE*varY {
			return m.size
		}
	}
	return -1
}

type progressReporter struct {
	f    func(float64)
	last float64
}

func newProgress(f func(float64)) *progressReporter {
	return &progressReporter{f: f, last: -1}
}

// report forwards non-decreasing fractions in [0, 1].
func (p *progressReporter) report(x float64) {
	x = math.Min(math.Max(x, 0), 1)
	if p.f == nil || x < p.last || (x == p.last && x != 1) || p.last == 1 {
		return
	}
	p.last = x
	p.f(x)
}
