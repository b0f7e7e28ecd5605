package symbolic

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// structureData draws d inputs U(1, 5) and y = f(x) with Gaussian noise of
// noise·RMS(y).
func structureData(seed uint64, d int, noise float64, f func(x []float64) float64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	X := sample(rng, d, 1000, 1, 5)
	y := target(X, f)
	addNoise(rng, y, noise)
	return X, y
}

// structureProbe fits the surrogate the structure moves test on.
func structureProbe(t *testing.T, X [][]float64, y []float64) *probe {
	t.Helper()
	p := transformProblem(X, y)
	s := fitSmoother(p.cols, p.g.vars, p.y, nil)
	if !s.usable() {
		t.Fatalf("the surrogate does not describe the data")
	}
	return newProbe(s, p.cols, len(p.y))
}

var (
	additiveLaw       = func(x []float64) float64 { return x[0]*x[0] + math.Sin(x[1]*x[2]/2) }
	multiplicativeLaw = func(x []float64) float64 { return x[0] * math.Exp(-x[1]/x[2]) }
	differenceLaw     = func(x []float64) float64 { return math.Sqrt(x[2]*x[2] + 2*(x[0]-x[1]) + 9) }
)

// A separable law is split between x1 and (x2, x3), additively or
// multiplicatively as it is, with and without noise.
func TestSeparabilityFindsTheSplit(t *testing.T) {
	for _, c := range []struct {
		name    string
		f       func(x []float64) float64
		product bool
	}{
		{"x1^2 + sin(x2*x3/2)", additiveLaw, false},
		{"x1*exp(-x2/x3)", multiplicativeLaw, true},
	} {
		for _, noise := range []float64{0, 0.01} {
			X, y := structureData(1, 3, noise, c.f)
			sp, ok := structureProbe(t, X, y).bestSplit()
			if !ok || sp.mask != 1 || sp.product != c.product {
				t.Errorf("%s at noise %g: split %+v (found %v), want x1 | x2, x3 with product %v", c.name, noise, sp, ok, c.product)
			}
		}
	}
}

// Laws in which every input interacts with the others are not split.
func TestSeparabilityRefusesInteractingLaws(t *testing.T) {
	for name, f := range map[string]func(x []float64) float64{
		"x1*x2 + x2*x3 + x1*x3":           func(x []float64) float64 { return x[0]*x[1] + x[1]*x[2] + x[0]*x[2] },
		"x1 + x2 + 2*sqrt(x1*x2)*cos(x3)": func(x []float64) float64 { return x[0] + x[1] + 2*math.Sqrt(x[0]*x[1])*math.Cos(x[2]) },
		"sqrt(x3^2 + 2*(x1 - x2) + 9)":    differenceLaw,
	} {
		for _, noise := range []float64{0, 0.01} {
			X, y := structureData(2, 3, noise, f)
			if sp, ok := structureProbe(t, X, y).bestSplit(); ok {
				t.Errorf("%s at noise %g: split %+v claimed", name, noise, sp)
			}
		}
	}
}

// A law of x1 − x2 (or x1/x2) and x3 shows that symmetry, and no other.
func TestSymmetryFindsTheCombination(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(x []float64) float64
		op   opcode
	}{
		{"sqrt(x3^2 + 2*(x1 - x2) + 9)", differenceLaw, opSub},
		{"x3/(x3 + (x1/x2)^2)", func(x []float64) float64 { return x[2] / (x[2] + x[0]*x[0]/(x[1]*x[1])) }, opDiv},
	} {
		for _, noise := range []float64{0, 0.01} {
			X, y := structureData(3, 3, noise, c.f)
			all := structureProbe(t, X, y).symmetries()
			ok := len(all) > 0
			var sb symmetry
			if ok {
				sb = all[0]
			}
			if !ok || sb.i != 0 || sb.j != 1 || sb.op != c.op {
				t.Errorf("%s at noise %g: symmetry %+v (found %v), want x1 %v x2", c.name, noise, sb, ok, c.op)
			}
		}
	}
}

// Noise has no structure: the surrogate does not explain it, so the moves
// neither split nor substitute, and give no seed.
func TestStructureMovesIgnoreNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	X := sample(rng, 3, 1000, 1, 5)
	y := make([]float64, len(X[0]))
	for i := range y {
		y[i] = 2 + rng.NormFloat64()
	}
	p := transformProblem(X, y)
	if s := fitSmoother(p.cols, p.g.vars, y, nil); s.usable() {
		t.Fatalf("surrogate of pure noise has leave-one-out R² %.3f", s.r2LOO)
	}
	if seeds := structureSeeds(context.Background(), p, Options{}, nil, 0); len(seeds) != 0 {
		t.Fatalf("%d seeds from pure noise, first %s", len(seeds), format(toExpr(seeds[0]), p.names))
	}
}

// The moves do not run when a seed already reproduces the data.
func TestStructureMovesSkipExplainedData(t *testing.T) {
	X, y := structureData(5, 3, 0, multiplicativeLaw)
	p := transformProblem(X, y)
	exact := tree{varNode(0), constNode(0), varNode(1), varNode(2), opNode(opDiv), opNode(opSub), opNode(opExp), opNode(opMul)}
	if evaluate(newEvaluator(X, len(y)), y, exact).loss > 1e-20 {
		t.Fatal("the seed is not the law")
	}
	if seeds := structureSeeds(context.Background(), p, Options{}, []tree{exact}, 0); seeds != nil {
		t.Fatalf("%d seeds beside an exact one", len(seeds))
	}
}

// bestStructureSeed runs the structure moves on X, y from no prior seeds
// (so that they run), with searches of 100 generations of 2 islands of 100
// on the smaller problems, and returns the best seed's MSE after the
// constant fitting every seed gets, and that seed.
func bestStructureSeed(t *testing.T, X [][]float64, y []float64) (float64, tree, *problem) {
	t.Helper()
	p := transformProblem(X, y)
	p.s.generations, p.s.islands, p.s.popSize = 100, 2, 100
	seeds := structureSeeds(context.Background(), p, Options{Seed: 1}, nil, 0)
	if len(seeds) == 0 {
		t.Fatal("no structure seeds")
	}
	ev := newEvaluator(X, len(y))
	opt := newConstOptimizer(X, y)
	best, bestT := math.Inf(1), tree(nil)
	for _, s := range seeds {
		ind := evaluate(ev, y, s)
		opt.optimize(&ind, 50)
		if ind.loss < best {
			best, bestT = ind.loss, ind.t
		}
	}
	return best, bestT, p
}

// A separable law at 1 % noise is split, each part is found on its own,
// and the joined seed fits as well as the truth.
func TestSeparableLawIsRecovered(t *testing.T) {
	for name, f := range map[string]func(x []float64) float64{
		"x1^2 + sin(x2*x3/2)": additiveLaw,
		"x1*exp(-x2/x3)":      multiplicativeLaw,
	} {
		t.Run(name, func(t *testing.T) {
			X, y := structureData(6, 3, 0.01, f)
			loss, s, p := bestStructureSeed(t, X, y)
			_, _, truthMSE, _ := linearScale(target(X, f), y)
			if loss > 1.02*truthMSE {
				t.Fatalf("best seed %s: MSE %.4g, the truth's %.4g", format(toExpr(s), p.names), loss, truthMSE)
			}
		})
	}
}

// A law of x1 − x2 and x3 is searched with u = x1 − x2 and written back in
// the inputs: the seed reproduces the noiseless data.
func TestSubstitutedLawIsRecovered(t *testing.T) {
	X, y := structureData(7, 3, 0, differenceLaw)
	loss, s, p := bestStructureSeed(t, X, y)
	if loss > 1e-12*p.varY {
		t.Fatalf("best seed %s: MSE %.3g (var y %.3g)", format(toExpr(s), p.names), loss, p.varY)
	}
}

// Fit runs the moves among its seeding passes: a separable law that no
// cheap pass fits is recovered within five generations, where the search
// alone is not.
func TestFitSeedsFromStructureMoves(t *testing.T) {
	X, y := structureData(8, 3, 0.01, additiveLaw)
	res := fitOrFail(t, X, y, []string{"a", "b", "c"}, Options{Seed: 1, Generations: 5})
	_, _, truthMSE, _ := linearScale(target(X, additiveLaw), y)
	if res.Best.MSE > 1.02*truthMSE {
		t.Fatalf("after 5 generations: %s with MSE %.4g, the truth's %.4g", res.Best.Expression, res.Best.MSE, truthMSE)
	}
}

// distanceData draws the 9 inputs of AI Feynman's I.9.18 on its ranges
// (three factors in [1, 2], the first point's coordinates in [3, 4], the
// second's in [1, 2]) and y = f(x) without noise.
func distanceData(seed uint64, f func(x []float64) float64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	X := make([][]float64, 9)
	for j := range X {
		lo := 1.0
		if j >= 3 && j%2 == 1 {
			lo = 3
		}
		X[j] = make([]float64, 1000)
		for i := range X[j] {
			X[j][i] = lo + rng.Float64()
		}
	}
	return X, target(X, f)
}

// squaredDistance is (x3 − x4)² + (x5 − x6)² + (x7 − x8)², the inputs
// counted from 0.
func squaredDistance(x []float64) float64 {
	a, b, c := x[3]-x[4], x[5]-x[6], x[7]-x[8]
	return a*a + b*b + c*c
}

// structureSeedsExact runs the structure moves on X, y from no prior seeds,
// with searches of 100 generations of 2 islands of 100 on the smaller
// problems and the given complexity limit, and reports whether a seed
// reproduces y.
func structureSeedsExact(t *testing.T, X [][]float64, y []float64, maxSize int) bool {
	t.Helper()
	p := transformProblem(X, y)
	p.s.generations, p.s.islands, p.s.popSize = 100, 2, 100
	p.s.maxSize, p.g.maxSize = maxSize, maxSize
	return reproducedBy(structureSeeds(context.Background(), p, Options{Seed: 1}, nil, 0), X, y)
}

// A monomial factor is split off by its integer exponents, with more inputs
// than the surrogate's moves take: y = x0·x1·x2/(x3 + x4·x5 + x6·x7), x8
// irrelevant, is found exactly through y/(x0·x1·x2) on the other inputs.
func TestFactorMoveSplitsOffAMonomial(t *testing.T) {
	f := func(x []float64) float64 { return x[0] * x[1] * x[2] / (x[3] + x[4]*x[5] + x[6]*x[7]) }
	X, y := distanceData(1, f)
	if !structureSeedsExact(t, X, y, 30) {
		t.Fatal("no structure seed reproduces y")
	}
}

// Past maxFactorVars inputs no move runs, not even the factor move: the
// law above with three more irrelevant inputs gives no seed, and the
// surrogate that would decide is not fitted.
func TestStructureMovesStopPastMaxFactorVars(t *testing.T) {
	f := func(x []float64) float64 { return x[0] * x[1] * x[2] / (x[3] + x[4]*x[5] + x[6]*x[7]) }
	X, y := distanceData(1, f)
	rng := rand.New(rand.NewPCG(5, 5))
	for len(X) <= maxFactorVars {
		X = append(X, sample(rng, 1, len(y), 1, 2)[0])
	}
	p := transformProblem(X, y)
	if seeds := structureSeeds(context.Background(), p, Options{Seed: 1}, nil, 0); seeds != nil {
		t.Errorf("%d inputs: %d seeds, want none", len(X), len(seeds))
	}
}

// Three difference symmetries on disjoint pairs hold about as clearly, and
// all three are substituted together.
func TestJointSymmetriesTakeEveryDifference(t *testing.T) {
	X, y := distanceData(2, func(x []float64) float64 { return 1 / squaredDistance(x) })
	p := transformProblem(X[3:], y)
	s := fitSmoother(p.cols, p.g.vars, p.y, nil)
	if !s.usable() {
		t.Fatal("the surrogate does not describe the data")
	}
	sbs := newProbe(s, p.cols, len(p.y)).jointSymmetries()
	got := map[[2]int]bool{}
	for _, sb := range sbs {
		if sb.op != opSub {
			t.Errorf("symmetry %+v, want differences only", sb)
		}
		got[[2]int{sb.i, sb.j}] = true
	}
	if len(sbs) != 3 || !got[[2]int{0, 1}] || !got[[2]int{2, 3}] || !got[[2]int{4, 5}] {
		t.Fatalf("symmetries %+v, want x0 − x1, x2 − x3 and x4 − x5", sbs)
	}
}

// AI Feynman's I.9.18, G·m1·m2 over a squared distance in three dimensions,
// takes the factor move and then three substitutions: its seed is exact.
func TestFactorAndDifferencesRecoverNewtonOnNineInputs(t *testing.T) {
	f := func(x []float64) float64 { return x[0] * x[1] * x[2] / squaredDistance(x) }
	X, y := distanceData(3, f)
	if !structureSeedsExact(t, X, y, 30) {
		t.Fatal("no structure seed reproduces y")
	}
}

// The law of cosines is two library terms under the square transform,
// short enough for a complexity limit of 20.
func TestLibraryHoldsTheLawOfCosines(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 3))
	X := sample(rng, 4, 1000, 1, 5)
	y := target(X, func(x []float64) float64 {
		return math.Sqrt(x[0]*x[0] + x[1]*x[1] - 2*x[0]*x[1]*math.Cos(x[2]-x[3]))
	})
	p := transformProblem(X, y)
	p.s.maxSize, p.g.maxSize = 20, 20
	lib := buildLibrary(p)
	_, rss := sparseSeeds(p, lib)
	if seeds := transformSeeds(p, lib, powerLawSeeds(p), rss); !reproducedBy(seeds, X, y) {
		t.Fatalf("no transformed seed of %d reproduces y", len(seeds))
	}
}

// A context that has ended stops the factor move's searches on the smaller
// problems, which would otherwise run their whole generation budget, and
// they seed nothing.
func TestFactorMoveStopsAtTheContextDeadline(t *testing.T) {
	f := func(x []float64) float64 { return x[0] * x[1] * x[2] / squaredDistance(x) }
	X, y := distanceData(3, f)
	p := transformProblem(X, y)
	p.s.generations, p.s.islands, p.s.popSize = 1<<30, 2, 100
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if seeds := structureSeeds(ctx, p, Options{Seed: 1}, nil, 0); reproducedBy(seeds, X, y) {
		t.Fatal("an exact seed after the deadline")
	}
}

// On this sample of 1/((x0 − x1)² + (x2 − x3)² + (x4 − x5)²) a product split
// holds within the surrogate's error besides the three differences; the
// split's search does not find the law, and the symmetries still get
// their search: a seed is exact.
func TestSpuriousSplitLeavesTheSymmetriesTheirSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	X := make([][]float64, 6)
	for j := range X {
		lo := 1.0
		if j%2 == 0 {
			lo = 3
		}
		X[j] = make([]float64, 1000)
		for i := range X[j] {
			X[j][i] = lo + rng.Float64()
		}
	}
	y := target(X, func(x []float64) float64 {
		a, b, c := x[0]-x[1], x[2]-x[3], x[4]-x[5]
		return 1 / (a*a + b*b + c*c)
	})
	p := transformProblem(X, y)
	pr := newProbe(fitSmoother(p.cols, p.g.vars, p.y, nil), p.cols, len(p.y))
	if _, ok := pr.bestSplit(); !ok {
		t.Fatal("no split holds on this sample; the test shows nothing")
	}
	if !structureSeedsExact(t, X, y, 30) {
		t.Fatal("no structure seed reproduces y")
	}
}
