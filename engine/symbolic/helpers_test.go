package symbolic

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// sample draws n rows of d features uniformly from [lo, hi] (column-major).
func sample(rng *rand.Rand, d, n int, lo, hi float64) [][]float64 {
	X := make([][]float64, d)
	for j := range X {
		X[j] = make([]float64, n)
		for i := range X[j] {
			X[j][i] = lo + (hi-lo)*rng.Float64()
		}
	}
	return X
}

// sampleRanges draws n rows of one column per range, uniform on [lo, hi],
// as AI Feynman's table does.
func sampleRanges(rng *rand.Rand, n int, ranges ...[2]float64) [][]float64 {
	X := make([][]float64, len(ranges))
	for j, r := range ranges {
		X[j] = sample(rng, 1, n, r[0], r[1])[0]
	}
	return X
}

// target evaluates f on every row of column-major X.
func target(X [][]float64, f func(x []float64) float64) []float64 {
	n := len(X[0])
	y := make([]float64, n)
	row := make([]float64, len(X))
	for i := range y {
		for j := range X {
			row[j] = X[j][i]
		}
		y[i] = f(row)
	}
	return y
}

// r2 is the coefficient of determination of pred against y.
func r2(pred, y []float64) float64 {
	m, sd := stat.PopMeanStdDev(y, nil)
	var sse float64
	for i := range y {
		d := pred[i] - y[i]
		sse += d * d
	}
	_ = m
	return 1 - sse/float64(len(y))/(sd*sd)
}

// affineR2 is the R² of the best affine map a + b·pred onto y, so a model
// that is right up to an offset or a ratio still counts.
func affineR2(pred, y []float64) float64 {
	a, b, mse, ok := linearScale(pred, y)
	_, _ = a, b
	if !ok {
		return math.Inf(-1)
	}
	_, sd := stat.PopMeanStdDev(y, nil)
	return 1 - mse/(sd*sd)
}

// exactlyRecovers checks a model against the true function on fresh points
// drawn from the same box: R² > 0.999999 up to an affine offset/ratio.
func exactlyRecovers(t *testing.T, m *Model, d int, lo, hi float64, f func(x []float64) float64) bool {
	t.Helper()
	rng := rand.New(rand.NewPCG(999, 1))
	X := sample(rng, d, 500, lo, hi)
	y := target(X, f)
	got := affineR2(m.Predict(X), y)
	return got > 0.999999
}

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 11)) }

// testGrammar allows every operator over d variables.
func testGrammar(d int) *grammar {
	ops, _ := parseOperators([]string{"+", "-", "*", "/", "^", "sin", "cos", "exp", "log", "sqrt", "abs", "tanh", "tan"})
	g := newGrammar(ops, resolve(Options{}))
	for j := 0; j < d; j++ {
		g.vars = append(g.vars, j)
	}
	return g
}

func closeOrBothInvalid(a, b float64) bool {
	fa := !math.IsNaN(a) && !math.IsInf(a, 0)
	fb := !math.IsNaN(b) && !math.IsInf(b, 0)
	if !fa || !fb {
		return fa == fb
	}
	return math.Abs(a-b) <= 1e-9*(1+math.Abs(a))
}

// testProblem is the problem of fitting y on every column of X with the
// default operators: all rows are search rows, as when there are few.
func testProblem(X [][]float64, y []float64, opts Options) *problem {
	ops, _ := parseOperators(DefaultOperators)
	s := resolve(opts)
	g := newGrammar(ops, s)
	for j := range X {
		g.vars = append(g.vars, j)
	}
	_, sd := stat.PopMeanStdDev(y, nil)
	return &problem{cols: X, y: y, varY: sd * sd, g: g, s: s, searchCols: X, searchY: y, searchVarY: sd * sd}
}

// reproducedBy reports whether one of the seeds fits y exactly.
func reproducedBy(seeds []tree, X [][]float64, y []float64) bool {
	ev := newEvaluator(X, len(y))
	for _, s := range seeds {
		if evaluate(ev, y, s).loss < 1e-20 {
			return true
		}
	}
	return false
}

// snapsToLaw reports whether one of the seeds, treated as finalize treats
// a candidate (constants refitted on y, scaling folded in, constants
// snapped with refits), reproduces the noiseless values clean; it also
// returns what each seed became, for the failure message.
func snapsToLaw(seeds []tree, X [][]float64, y, clean []float64, names []string) (bool, []string) {
	opt := newConstOptimizer(X, y)
	_, sd := stat.PopMeanStdDev(y, nil)
	var got []string
	for _, s := range seeds {
		ind := evaluate(opt.ev, y, s)
		opt.optimize(&ind, 50)
		e := snapConstants(ind.printed(), opt, sd*sd, true)
		if mseOf(opt.ev.eval(e.postfix(nil)), clean, 0, 1) < 1e-20 {
			return true, nil
		}
		got = append(got, format(e, names))
	}
	return false, got
}
