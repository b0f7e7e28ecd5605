package symbolic

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// quick are small settings for unit tests: each Fit takes well under a
// second once the answer is found.
func quick(seed int64) Options {
	return Options{Seed: seed, Generations: 60, Populations: 2, PopulationSize: 100}
}

func fitOrFail(t *testing.T, X [][]float64, y []float64, names []string, o Options) *Result {
	t.Helper()
	res, err := Fit(context.Background(), X, y, names, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || len(res.Front) == 0 {
		t.Fatal("empty result")
	}
	return res
}

func TestFitRecoversKnownLaws(t *testing.T) {
	cases := []struct {
		name    string
		d       int
		lo, hi  float64
		ops     []string
		f       func(x []float64) float64
		maxSize int
	}{
		{"linear", 1, -3, 3, nil, func(x []float64) float64 { return 2.5*x[0] + 1 }, 5},
		{"product", 2, -3, 3, nil, func(x []float64) float64 { return x[0] * x[1] }, 3},
		{"square plus", 2, -3, 3, nil, func(x []float64) float64 { return x[0]*x[0] + x[1] }, 5},
		{"trigonometric", 2, -3, 3, mustPrior("trigonometric"), func(x []float64) float64 { return math.Sin(x[0]) + 0.5*x[1] }, 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			X := sample(newTestRand(1), c.d, 300, c.lo, c.hi)
			y := target(X, c.f)
			o := quick(1)
			o.Operators = c.ops
			res := fitOrFail(t, X, y, nil, o)
			if !exactlyRecovers(t, res.Best, c.d, c.lo, c.hi, c.f) {
				t.Fatalf("not recovered: %s (MSE %g)", res.Best.Expression, res.Best.MSE)
			}
			if res.Best.Complexity > c.maxSize {
				t.Errorf("%s has complexity %d, want at most %d", res.Best.Expression, res.Best.Complexity, c.maxSize)
			}
		})
	}
}

func mustPrior(p string) []string {
	ops, err := PriorOperators(p)
	if err != nil {
		panic(err)
	}
	return ops
}

func TestFitNewtonsSecondLaw(t *testing.T) {
	X := sample(newTestRand(2), 2, 200, 1, 5)
	y := target(X, func(x []float64) float64 { return x[0] * x[1] })
	res := fitOrFail(t, X, y, []string{"m", "a"}, quick(2))
	if e := res.Best.Expression; e != "m*a" && e != "a*m" {
		t.Errorf("F = %s, want m*a", e)
	}
	if res.Best.R2 != 1 || res.Best.Complexity != 3 {
		t.Errorf("R2 = %v, complexity = %d", res.Best.R2, res.Best.Complexity)
	}
}

// TestEvolutionWithoutSeeds checks that the genetic search alone (no
// sparse-regression or power-law seeds) finds a law.
func TestEvolutionWithoutSeeds(t *testing.T) {
	f := func(x []float64) float64 { return x[0] / (x[1] + 1) }
	X := sample(newTestRand(3), 2, 200, 0, 4)
	y := target(X, f)
	o := quick(3)
	o.Generations = 200
	o.PopulationSize = 150
	res, err := fit(context.Background(), X, y, nil, o, false)
	if err != nil {
		t.Fatal(err)
	}
	if !exactlyRecovers(t, res.Best, 2, 0, 4, f) {
		t.Fatalf("not recovered: %s (MSE %g)", res.Best.Expression, res.Best.MSE)
	}
}

func TestFitDeterministic(t *testing.T) {
	X := sample(newTestRand(4), 3, 200, 1, 3)
	y := target(X, func(x []float64) float64 { return math.Exp(-x[0]) * x[1] / x[2] })
	o := quick(42)
	o.Generations = 30
	a := fitOrFail(t, X, y, nil, o)
	b := fitOrFail(t, X, y, nil, o)
	if a.Best.Expression != b.Best.Expression || len(a.Front) != len(b.Front) {
		t.Fatalf("same seed, different results: %q vs %q", a.Best.Expression, b.Best.Expression)
	}
	for i := range a.Front {
		if a.Front[i].Expression != b.Front[i].Expression {
			t.Fatalf("front %d differs: %q vs %q", i, a.Front[i].Expression, b.Front[i].Expression)
		}
	}
}

// A search whose generation budget would take hours stops at its time limit
// and at its context's deadline, says so, and returns the best so far. The
// bound on the elapsed time is deliberately loose (the machines are shared):
// it only tells "stopped at the limit" from "ran the budget".
func TestFitTimeLimit(t *testing.T) {
	// A target no small expression matches, so the search never stops early.
	X := sample(newTestRand(5), 3, 500, -2, 2)
	y := target(X, func(x []float64) float64 { return math.Floor(3*x[0]) * math.Abs(x[1]-x[2]) })
	const budget = 1_000_000
	limit := 400 * time.Millisecond
	start := time.Now()
	res := fitOrFail(t, X, y, nil, Options{Seed: 1, Generations: budget, TimeLimit: limit})
	if el := time.Since(start); el > 60*time.Second {
		t.Errorf("took %v with a %v limit", el, limit)
	}
	if res.Stop != StopTimeLimit || res.Generations >= budget {
		t.Errorf("stop %q after %d generations, want %q before the budget", res.Stop, res.Generations, StopTimeLimit)
	}
	if res.Best.R2 <= 0 {
		t.Errorf("best-so-far should beat the mean, R2 = %v", res.Best.R2)
	}

	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start = time.Now()
	res, err := Fit(ctx, X, y, nil, Options{Seed: 1, Generations: budget})
	if err != nil {
		t.Fatalf("expired context should return the best so far, got %v", err)
	}
	if el := time.Since(start); el > 60*time.Second {
		t.Errorf("context deadline: took %v with a %v limit", el, limit)
	}
	if res.Stop != StopTimeLimit || res.Generations >= budget {
		t.Errorf("context deadline: stop %q after %d generations, want %q before the budget", res.Stop, res.Generations, StopTimeLimit)
	}
}

func TestFitProgress(t *testing.T) {
	X := sample(newTestRand(6), 2, 200, -2, 2)
	y := target(X, func(x []float64) float64 { return math.Sin(x[0]) * x[1] * x[1] })
	var got []float64
	o := quick(6)
	o.Generations = 40
	o.Progress = func(f float64) { got = append(got, f) }
	fitOrFail(t, X, y, nil, o)
	if len(got) < 2 || got[len(got)-1] != 1 {
		t.Fatalf("progress = %v, want several calls ending at 1", got)
	}
	if !slices.IsSorted(got) || got[0] < 0 {
		t.Fatalf("progress not monotone in [0,1]: %v", got)
	}

	// With only a time budget, progress follows the clock.
	got = nil
	X2 := sample(newTestRand(6), 3, 200, -2, 2)
	y2 := target(X2, func(x []float64) float64 { return math.Floor(2*x[0]) * math.Abs(x[1]) / (1 + x[2]*x[2]) })
	fitOrFail(t, X2, y2, nil, Options{Seed: 1, TimeLimit: time.Second, Progress: func(f float64) { got = append(got, f) }})
	if len(got) < 3 || got[len(got)-1] != 1 || !slices.IsSorted(got) || got[len(got)-2] < 0.5 {
		t.Fatalf("time-limited progress = %v, want a rising sequence ending at 1", got)
	}
}

func TestFitExclude(t *testing.T) {
	X := sample(newTestRand(7), 3, 200, 1, 3)
	y := target(X, func(x []float64) float64 { return x[0]*x[1] + x[2] })
	names := []string{"a", "b", "c"}
	o := quick(7)
	o.Generations = 20
	o.Exclude = []string{"b", "not-a-column"}
	res := fitOrFail(t, X, y, names, o)
	for _, m := range res.Front {
		for _, nd := range m.t {
			if nd.op == opVar && nd.v == 1 {
				t.Fatalf("excluded variable b used in %s", m.Expression)
			}
		}
	}
	o.Exclude = names
	if _, err := Fit(context.Background(), X, y, names, o); err == nil {
		t.Error("excluding every variable should be an error")
	}
}

func TestFitBadInput(t *testing.T) {
	X := [][]float64{{1, 2, 3}, {4, 5, 6}}
	y := []float64{1, 2, 3}
	cases := []struct {
		name  string
		X     [][]float64
		y     []float64
		names []string
		ops   []string
		want  string
	}{
		{"empty X", nil, y, nil, nil, "no columns"},
		{"length mismatch", [][]float64{{1, 2}, {4, 5, 6}}, y, nil, nil, "rows"},
		{"names mismatch", X, y, []string{"a"}, nil, "names"},
		{"NaN in y", X, []float64{1, math.NaN(), 3}, nil, nil, "not finite"},
		{"Inf in X", [][]float64{{1, math.Inf(1), 3}, {4, 5, 6}}, y, nil, nil, "not finite"},
		{"unknown operator", X, y, nil, []string{"+", "sinh"}, "unknown operator"},
		{"too few rows", [][]float64{{1}}, []float64{1}, nil, nil, "rows"},
	}
	for _, c := range cases {
		_, err := Fit(context.Background(), c.X, c.y, c.names, Options{Operators: c.ops, Generations: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestFitConstantTarget(t *testing.T) {
	X := sample(newTestRand(8), 1, 50, 0, 1)
	y := make([]float64, 50)
	for i := range y {
		y[i] = 4
	}
	res := fitOrFail(t, X, y, nil, quick(8))
	if res.Best.Expression != "4" || res.Best.MSE != 0 {
		t.Errorf("constant target gave %s (MSE %g)", res.Best.Expression, res.Best.MSE)
	}
}

func TestFrontIsPareto(t *testing.T) {
	X := sample(newTestRand(9), 2, 200, -2, 2)
	y := target(X, func(x []float64) float64 { return math.Cos(x[0]) * math.Exp(x[1]/2) })
	res := fitOrFail(t, X, y, nil, quick(9))
	for i := 1; i < len(res.Front); i++ {
		p, q := res.Front[i-1], res.Front[i]
		if q.cost() <= p.cost() || q.MSE >= p.MSE {
			t.Fatalf("front not ascending in cost and descending in MSE at %d: %+v then %+v", i, p, q)
		}
	}
	if !slices.Contains(res.Front, res.Best) {
		t.Error("best model not on the front")
	}
	for _, m := range res.Front {
		if got := r2(m.Predict(X), y); math.Abs(got-m.R2) > 1e-6 {
			t.Errorf("%s: Predict gives R2 %v, model says %v", m.Expression, got, m.R2)
		}
	}
}

func TestPriorOperators(t *testing.T) {
	for _, p := range []string{"physics", "polynomial", "trigonometric", "default", ""} {
		ops, err := PriorOperators(p)
		if err != nil || len(ops) == 0 {
			t.Errorf("%q: %v %v", p, ops, err)
		}
		if _, err := parseOperators(ops); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	_, err := PriorOperators("alchemy")
	if err == nil || !strings.Contains(err.Error(), "physics") || !strings.Contains(err.Error(), "polynomial") {
		t.Errorf("unknown prior error should list the known ones: %v", err)
	}
}

// TestPolynomialPrior checks that without division only positive integer
// powers appear.
func TestPolynomialPrior(t *testing.T) {
	X := sample(newTestRand(10), 2, 200, 0.5, 2)
	y := target(X, func(x []float64) float64 { return x[0] / x[1] })
	o := quick(10)
	o.Generations = 20
	o.Operators = mustPrior("polynomial")
	res := fitOrFail(t, X, y, nil, o)
	for _, m := range res.Front {
		for _, nd := range m.t {
			if nd.op == opDiv || (nd.op == opPow && (nd.c < 0 || nd.c != math.Trunc(nd.c))) {
				t.Fatalf("%s uses division or a non-integer power", m.Expression)
			}
		}
	}
}
