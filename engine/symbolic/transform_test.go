package symbolic

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// transformProblem builds the seeding problem Fit builds, on X and y.
func transformProblem(X [][]float64, y []float64) *problem {
	ops, _ := parseOperators(DefaultOperators)
	s := resolve(Options{})
	g := newGrammar(ops, s)
	names := make([]string, len(X))
	for j := range X {
		g.vars = append(g.vars, j)
		names[j] = string(rune('a' + j))
	}
	_, sd := stat.PopMeanStdDev(y, nil)
	p := &problem{cols: X, y: y, varY: sd * sd, names: names, g: g, s: s, expired: func() bool { return false }}
	p.setSearchRows(1)
	return p
}

// relativistic draws I.48.2's inputs (m, v, c) on AI Feynman's ranges and
// y = m·c²/sqrt(1 − v²/c²), with Gaussian noise of noise·RMS(y).
func relativistic(seed uint64, noise float64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 4))
	n := 1000
	X := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := 0; i < n; i++ {
		X[0][i] = 1 + 4*rng.Float64()
		X[1][i] = 1 + rng.Float64()
		X[2][i] = 3 + 7*rng.Float64()
	}
	y := target(X, func(v []float64) float64 { return v[0] * v[2] * v[2] / math.Sqrt(1-v[1]*v[1]/(v[2]*v[2])) })
	addNoise(rng, y, noise)
	return X, y
}

func addNoise(rng *rand.Rand, y []float64, noise float64) {
	var ss float64
	for _, v := range y {
		ss += v * v
	}
	sd := noise * math.Sqrt(ss/float64(len(y)))
	for i := range y {
		y[i] += sd * rng.NormFloat64()
	}
}

// bestTransformSeed runs the plain sparse pass and the transform pass as
// Fit does and returns the transform seeds' smallest MSE on all rows and
// that seed.
func bestTransformSeed(t *testing.T, p *problem) (float64, tree) {
	t.Helper()
	lib := buildLibrary(p)
	_, floor := sparseSeeds(p, lib)
	seeds := transformSeeds(p, lib, powerLawSeeds(p), floor)
	if len(seeds) == 0 {
		t.Fatal("no transform seeds")
	}
	ev := newEvaluator(p.cols, len(p.y))
	best, bestT := math.Inf(1), tree(nil)
	for _, s := range seeds {
		if l := evaluate(ev, p.y, s).loss; l < best {
			best, bestT = l, s
		}
	}
	return best, bestT
}

// Inverting the target turns each law below into a short sum: (y/M)^−2,
// 1/(y/M), (y/M)², sqrt(y/M) or log(y/M) is linear in at most three
// library terms, so a seed must reproduce the noiseless data exactly.
func TestTransformSeedsInvertTarget(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	X := sample(rng, 3, 400, 1, 3)
	laws := map[string]func(x []float64) float64{
		"identity: a*c^2*(b^2+sin(c))":         func(x []float64) float64 { return x[0] * x[2] * x[2] * (x[1]*x[1] + math.Sin(x[2])) },
		"inverse square: a/sqrt(1-(b/(4c))^2)": func(x []float64) float64 { return x[0] / math.Sqrt(1-x[1]*x[1]/(16*x[2]*x[2])) },
		"inverse: a/(1+cos(b)/2)":              func(x []float64) float64 { return x[0] / (1 + math.Cos(x[1])/2) },
		"square: sqrt(a^2+sin(b))":             func(x []float64) float64 { return math.Sqrt(x[0]*x[0] + math.Sin(x[1])) },
		"square root: (a+sin(b))^2": func(x []float64) float64 {
			return (x[0] + math.Sin(x[1])) * (x[0] + math.Sin(x[1]))
		},
		"log: exp(-(a/c)^2/2)/c": func(x []float64) float64 { return math.Exp(-x[0]*x[0]/(2*x[2]*x[2])) / x[2] },
	}
	for name, f := range laws {
		t.Run(name, func(t *testing.T) {
			p := transformProblem(X, target(X, f))
			loss, s := bestTransformSeed(t, p)
			if loss > 1e-10*p.varY {
				t.Fatalf("best seed %s has MSE %.3g (var y %.3g)", format(toExpr(s), p.names), loss, p.varY)
			}
		})
	}
}

// With 1 % noise the γ factor is still a two-term law of (y/M)^−2, while
// the sparse and rational passes see a tiny correction to m·c²; the
// transform seed fits as well as the truth and has the truth's shape.
func TestTransformSeedsNoisyRelativisticFactor(t *testing.T) {
	X, y := relativistic(3, 0.01)
	p := transformProblem(X, y)
	loss, s := bestTransformSeed(t, p)
	truth := target(X, func(v []float64) float64 { return v[0] * v[2] * v[2] / math.Sqrt(1-v[1]*v[1]/(v[2]*v[2])) })
	_, _, truthMSE, _ := linearScale(truth, y)
	if loss > 1.05*truthMSE {
		t.Fatalf("best seed %s: MSE %.4g, the truth's %.4g", format(toExpr(s), p.names), loss, truthMSE)
	}
	if !slices.ContainsFunc(s, func(nd node) bool { return (nd.op == opPow && math.Abs(nd.c) == 0.5) || nd.op == opSqrt }) {
		t.Fatalf("best seed %s is not M·(…)^-0.5", format(toExpr(s), p.names))
	}
}

// Noise has no transformed law: no seed may fit pure noise much better
// than its variance.
func TestTransformSeedsNoiseFindsNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	X := sample(rng, 3, 500, 1, 5)
	y := make([]float64, 500)
	for i := range y {
		y[i] = 3 + rng.NormFloat64()
	}
	p := transformProblem(X, y)
	lib := buildLibrary(p)
	_, floor := sparseSeeds(p, lib)
	ev := newEvaluator(X, len(y))
	for _, s := range transformSeeds(p, lib, powerLawSeeds(p), floor) {
		if l := evaluate(ev, y, s).loss; l < 0.97*p.varY {
			t.Fatalf("seed %s explains %.1f %% of pure noise", format(toExpr(s), p.names), 100*(1-l/p.varY))
		}
	}
}

// A sum under a power or a root whose terms all carry coefficients gives
// its scale to the product, so the redundant scale of c·(a·x + b·y)^k
// (which constant fitting lets drift, I.15.1 at 1 % noise gave
// 1104*m_0/sqrt(1.21734e+06/v^2 - 1.21429e+06/c^2)) leaves one ratio to
// round.
func TestSimplifyPullsScaleOutOfSums(t *testing.T) {
	names := []string{"x", "y"}
	x, y := evar(0), evar(1)
	inv2 := func(v *expr) *expr { return ebin(opDiv, econst(1), eun(opPow, v, 2)) }
	cases := []struct {
		e    *expr
		want string
	}{
		{ebin(opDiv, econst(1104), eun(opSqrt, ebin(opSub, ebin(opMul, econst(1.2e6), inv2(x)), ebin(opMul, econst(1.197e6), inv2(y))), 0)),
			"1.00781/sqrt(1/x^2 - 0.9975/y^2)"},
		{eun(opPow, ebin(opAdd, ebin(opMul, econst(2), x), ebin(opMul, econst(4), y)), -0.5), "0.707107/(x + 2*y)^0.5"},
		{eun(opPow, ebin(opAdd, ebin(opMul, econst(2), x), econst(6)), 2), "4*(x + 3)^2"},
		{eun(opSqrt, ebin(opAdd, x, ebin(opMul, econst(4), y)), 0), "sqrt(x + 4*y)"},
	}
	cols := [][]float64{{1.5, 2, 3}, {2.5, 4, 5}}
	for _, c := range cases {
		s := simplify(c.e)
		if got := format(s, names); got != c.want {
			t.Errorf("simplify → %q, want %q", got, c.want)
		}
		a := newEvaluator(cols, 3).eval(c.e.postfix(nil))
		b := newEvaluator(cols, 3).eval(s.postfix(nil))
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9*math.Abs(a[i]) {
				t.Errorf("%q changes value: %g vs %g", c.want, a[i], b[i])
			}
		}
	}
}

// A sum of squares under a common factor (I.24.6, ¼·m·x²·(ω² + ω0²)) at 1 %
// noise: in log space the factor looks like m·x²·ω·ω0, so the factor m·x²
// comes from leaving two inputs out of the power law, and y/(m·x²) is two
// library terms.
func TestTransformSeedsSumUnderCommonFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	X := sample(rng, 4, 1000, 1, 5)
	f := func(v []float64) float64 { return v[0] * (v[1]*v[1] + v[2]*v[2]) * v[3] * v[3] / 4 }
	y := target(X, f)
	addNoise(rng, y, 0.01)
	p := transformProblem(X, y)
	loss, s := bestTransformSeed(t, p)
	_, _, truthMSE, _ := linearScale(target(X, f), y)
	if loss > 1.02*truthMSE {
		t.Fatalf("best seed %s: MSE %.4g, the truth's %.4g", format(toExpr(s), p.names), loss, truthMSE)
	}
}

// A seed is judged by the length of its simplest form: Feynman II.11.3,
// q·E/(m·(ω0² − ω²)), comes out of the transform pass as
// q·E·m^−1·ω0^−2·(1 − (ω/ω0)²)^−1, 25 nodes, over the engine's default
// limit of 20, while its simplest form has 13. With the limit at 20 the
// pass must still seed the law, and with 1 % noise too.
func TestTransformSeedsAreJudgedByTheirSimplestForm(t *testing.T) {
	for _, noise := range []float64{0, 0.01} {
		rng := rand.New(rand.NewPCG(13, 3))
		X := sampleRanges(rng, 1000, [2]float64{1, 3}, [2]float64{1, 3}, [2]float64{1, 3}, [2]float64{3, 5}, [2]float64{1, 2})
		law := func(v []float64) float64 { return v[0] * v[1] / (v[2] * (v[3]*v[3] - v[4]*v[4])) }
		y := target(X, law)
		addNoise(rng, y, noise)
		p := transformProblem(X, y)
		p.g.maxSize, p.s.maxSize = 20, 20
		loss, s := bestTransformSeed(t, p)
		_, _, truthMSE, _ := linearScale(target(X, law), y)
		if loss > 1.05*truthMSE+1e-12*p.varY {
			t.Errorf("noise %g: best seed %s has MSE %.4g, the law %.4g", noise, format(toExpr(s), p.names), loss, truthMSE)
		}
	}
}

// Feynman II.11.27, n·α·ε·Ef/(1 − n·α/3), with n and α drawn from [0, 1]:
// where n·α nears zero, y/M is mostly noise and changes sign, which ruled
// out every transform but the identity and let those rows decide the
// fit. Weighted by the inverse of their noise gain, the rows give the law
// at 1 % noise.
func TestTransformSeedsWeighRowsByTheirNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 11))
	n := 1000
	X := sampleRanges(rng, n, [2]float64{0, 1}, [2]float64{0, 1}, [2]float64{1, 2}, [2]float64{1, 2})
	law := func(v []float64) float64 { return v[0] * v[1] / (1 - v[0]*v[1]/3) * v[2] * v[3] }
	y := target(X, law)
	addNoise(rng, y, 0.01)
	p := transformProblem(X, y)
	p.g.maxSize, p.s.maxSize = 20, 20
	lib := buildLibrary(p)
	_, floor := sparseSeeds(p, lib)
	_, _, truthMSE, _ := linearScale(target(X, law), y)
	ev := newEvaluator(X, n)
	var got []string
	for _, s := range transformSeeds(p, lib, powerLawSeeds(p), floor) {
		e := format(toExpr(s), p.names)
		got = append(got, e)
		// The law's shape: M/(c − n·α) with M = n·α·ε·Ef, up to constants.
		shape := strings.Contains(e, "a*b*c*d/(") && strings.Contains(e, " - a*b)")
		if shape && evaluate(ev, y, s).loss <= 1.05*truthMSE {
			return
		}
	}
	t.Errorf("no seed of the law's shape fits as well as the law; seeds %q", got)
}
