package symbolic

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// linkLaws are laws y = M·g(m) of statistical physics on inputs drawn
// from [1, 3], one per link, the last with a factor that log-space fitting
// biases (the refactor step): Boltzmann, Bose–Einstein with ħ = h/(2π),
// diode, paramagnetic tanh and sech, and Planck's spectrum.
var linkLaws = []struct {
	name string
	d    int
	f    func(x []float64) float64
}{
	{"boltzmann", 4, func(x []float64) float64 { return x[0] * math.Exp(-x[1]*x[2]/x[3]) }},
	{"bose", 3, func(x []float64) float64 { return x[0] * x[1] / (math.Exp(x[0]*x[1]/(2*math.Pi*x[2])) - 1) }},
	{"diode", 4, func(x []float64) float64 { return x[0] * (math.Exp(x[1]*x[2]/x[3]) - 1) }},
	{"tanh", 4, func(x []float64) float64 { return x[0] * x[1] * math.Tanh(x[1]*x[2]/x[3]) }},
	{"sech", 4, func(x []float64) float64 { return x[0] / (math.Exp(x[1]*x[2]/x[3]) + math.Exp(-x[1]*x[2]/x[3])) }},
	{"planck", 4, func(x []float64) float64 {
		return x[0] * x[0] * x[0] * x[1] / (x[3] * x[3] * (math.Exp(x[0]*x[1]/(2*math.Pi*x[2])) - 1))
	}},
}

// bestLinkSeed runs the passes before the link pass as Fit does and
// returns the link seeds' smallest MSE on all rows (+Inf without seeds).
func bestLinkSeed(p *problem) (float64, tree) {
	pl := powerLawSeeds(p)
	_, floor := sparseSeeds(p, buildLibrary(p))
	ev := newEvaluator(p.cols, len(p.y))
	best, bestT := math.Inf(1), tree(nil)
	for _, s := range linkSeeds(p, pl, nil, floor) {
		if l := evaluate(ev, p.y, s).loss; l < best {
			best, bestT = l, s
		}
	}
	return best, bestT
}

// Each law is a monomial under its link, so a seed must reproduce the
// noiseless data exactly.
func TestLinkSeedsInvertLinks(t *testing.T) {
	for k, law := range linkLaws {
		t.Run(law.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k), 3))
			X := sample(rng, law.d, 500, 1, 3)
			p := transformProblem(X, target(X, law.f))
			best, s := bestLinkSeed(p)
			if !(best <= exactNMSE*p.varY) {
				got := "none"
				if s != nil {
					got = format(toExpr(s), p.names)
				}
				t.Fatalf("best link seed %s with MSE %.3g of var y, want exact", got, best/p.varY)
			}
		})
	}
}

// With 1 % noise the seed of the right shape still fits as well as the
// truth does.
func TestLinkSeedsNoisyBose(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	X := sample(rng, 3, 1000, 1, 3)
	law := linkLaws[1].f
	y := target(X, law)
	addNoise(rng, y, 0.01)
	p := transformProblem(X, y)
	best, s := bestLinkSeed(p)
	_, _, truth, _ := linearScale(target(X, law), y)
	if !(best <= 1.05*truth) {
		t.Fatalf("best link seed MSE %.4g (%v), the truth's %.4g", best, s != nil, truth)
	}
}

// II.35.21, n·μ·tanh(μ·B/(k·T)) on AI Feynman's ranges U(1, 5), at 1 %
// noise: atanh(a·z) is steep where tanh saturates, so the log-space fit
// must weigh the rows by their noise and leave out those past 1/a.
func TestLinkSeedsNoisyTanh(t *testing.T) {
	law := func(x []float64) float64 { return x[0] * x[1] * math.Tanh(x[1]*x[2]/(x[3]*x[4])) }
	X, y, _ := noisyTable(3521, 5, 1000, law)
	p := transformProblem(X, y)
	p.s.maxSize, p.g.maxSize = 20, 20
	var err error
	if p.g.seed, err = parseOperators(SeedOperators); err != nil {
		t.Fatal(err)
	}
	pl := powerLawSeeds(p)
	_, floor := sparseSeeds(p, buildLibrary(p))
	seeds := linkSeeds(p, pl, nil, floor)
	if ok, got := snapsToLaw(seeds, X, y, target(X, law), []string{"n", "mom", "B", "kb", "T"}); !ok {
		t.Fatalf("no link seed snaps to the law: %q", got)
	}
}

// The pass stays out of the way: nothing when a seed is already exact,
// and nothing that explains pure noise.
func TestLinkSeedsSkipExactAndNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	X := sample(rng, 3, 500, 1, 3)
	p := transformProblem(X, target(X, linkLaws[1].f))
	exact := tree{varNode(0), varNode(1), opNode(opMul)}
	exact = append(append(exact, constNode(1/(2*math.Pi)), varNode(0), varNode(1), opNode(opMul), opNode(opMul), varNode(2), opNode(opDiv), opNode(opExp), constNode(1), opNode(opSub)), opNode(opDiv))
	if l := evaluate(newEvaluator(X, 500), p.y, exact).loss; l > exactNMSE*p.varY {
		t.Fatalf("test seed not exact: %.3g", l/p.varY)
	}
	if s := linkSeeds(p, powerLawSeeds(p), []tree{exact}, 1); s != nil {
		t.Fatalf("%d seeds beside an exact one", len(s))
	}

	y := make([]float64, 500)
	for i := range y {
		y[i] = 3 + rng.NormFloat64()
	}
	p = transformProblem(X, y)
	_, floor := sparseSeeds(p, buildLibrary(p))
	ev := newEvaluator(X, len(y))
	for _, s := range linkSeeds(p, powerLawSeeds(p), nil, floor) {
		if l := evaluate(ev, y, s).loss; l < 0.97*p.varY {
			t.Fatalf("seed %s explains %.1f %% of pure noise", format(toExpr(s), p.names), 100*(1-l/p.varY))
		}
	}
}

// Fit finds III.4.33's Bose law h·ω/(exp(h·ω/(2π·k·T)) − 1) in a few
// generations from the link seed; without it the search ends on an
// approximation (kT − ħω/2 is close on these ranges).
func TestFitFindsBoseLaw(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 33))
	X := sample(rng, 4, 500, 1, 5)
	law := func(x []float64) float64 { return x[0] * x[1] / (math.Exp(x[0]*x[1]/(2*math.Pi*x[2]*x[3])) - 1) }
	y := target(X, law)
	res := fitOrFail(t, X, y, []string{"h", "omega", "kb", "T"}, Options{Seed: 1, Generations: 5})
	_, sd := stat.PopMeanStdDev(y, nil)
	if res.Best.MSE > exactNMSE*sd*sd {
		t.Fatalf("after 5 generations: %s with MSE %.3g of var y", res.Best.Expression, res.Best.MSE/(sd*sd))
	}
}
