package symbolic

import (
	"context"
	"math"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

func TestNearestNeighbours(t *testing.T) {
	// Two columns; the second is constant and must be left out rather
	// than turn the distances into NaN. Rows 4 and 5 coincide.
	x := []float64{0, 1, 5, 5.6, 10, 10}
	got := nearestNeighbours([][]float64{x, {7, 7, 7, 7, 7, 7}}, []int{0, 1})
	want := []int{1, 0, 3, 2, 5, 4}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("neighbours %v, want %v", got, want)
		}
	}
}

// TestNeighbourRatio: residuals that are noise give a ratio near 1; a
// residual that is a smooth function of the inputs (a law still to be
// found) gives a ratio near 0.
func TestNeighbourRatio(t *testing.T) {
	rng := newTestRand(11)
	X := sample(rng, 2, 400, 0, 3)
	nb := nearestNeighbours(X, []int{0, 1})
	noise := make([]float64, 400)
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	if r := neighbourRatio(noise, nb); r < 0.8 || r > 1.2 {
		t.Errorf("ratio of noise = %.3f, want about 1", r)
	}
	smooth := target(X, func(x []float64) float64 { return math.Sin(2*x[0]) + x[1]*x[1] })
	if r := neighbourRatio(smooth, nb); r > 0.2 {
		t.Errorf("ratio of a smooth residual = %.3f, want near 0", r)
	}
	if r := neighbourRatio(make([]float64, 400), nb); r != 1 {
		t.Errorf("ratio of a zero residual = %g, want 1 (nothing left to explain)", r)
	}
}

// settleProblem is y = 2·x0 + noise·lack, where lack is a smooth term the
// model x0 cannot explain (0 for none).
func settleProblem(lack float64) (*problem, individual) {
	rng := newTestRand(12)
	X := sample(rng, 1, 400, 0, 3)
	y := target(X, func(x []float64) float64 { return 2*x[0] + lack*math.Sin(3*x[0]) + 0.01*rng.NormFloat64() })
	return testProblem(X, y, Options{}), evaluate(newEvaluator(X, 400), y, tree{varNode(0)})
}

func TestSettleRule(t *testing.T) {
	p, law := settleProblem(0)
	r := &settleRule{p: p}
	front := []individual{law}
	first := 0
	for epoch := 1; epoch <= 40 && first == 0; epoch++ {
		if r.settled(front, epoch) {
			first = epoch
		}
	}
	if first != 1+settleMinEpochs {
		t.Errorf("a law leaving only noise, chosen at epoch 1, settled at epoch %d; want %d", first, 1+settleMinEpochs)
	}

	// A choice that appears late must last as long as the search before it.
	r = &settleRule{p: p}
	other := law
	other.size, other.loss = law.size+2, law.loss*0.5
	for epoch := 1; epoch < 30; epoch++ {
		r.settled([]individual{law}, epoch)
	}
	first = 0
	for epoch := 30; epoch <= 80 && first == 0; epoch++ {
		if r.settled([]individual{law, other}, epoch) {
			first = epoch
		}
	}
	if first != 60 {
		t.Errorf("a choice made at epoch 30 settled at epoch %d; want 60", first)
	}

	// Residuals with structure left in them never settle.
	p, underfit := settleProblem(0.5)
	r = &settleRule{p: p}
	for epoch := 1; epoch <= 100; epoch++ {
		if r.settled([]individual{underfit}, epoch) {
			t.Fatalf("settled at epoch %d on a model that misses a smooth term (ratio %.3f)", epoch, r.whiteness(&underfit, p.g.vars))
		}
	}
}

// TestSettleRuleIgnoresUnusedColumns: a model that misses a smooth term
// in x0 must not settle because nine columns it does not use scatter the
// neighbours in input space.
func TestSettleRuleIgnoresUnusedColumns(t *testing.T) {
	rng := newTestRand(13)
	X := sample(rng, 10, 400, 0, 3)
	y := target(X, func(x []float64) float64 { return 2*x[0] + 0.5*math.Sin(5*x[0]) })
	p := testProblem(X, y, Options{})
	g := p.g
	underfit := evaluate(newEvaluator(X, 400), y, tree{varNode(0)})

	r := &settleRule{p: p}
	if all := r.whiteness(&underfit, g.vars); all < settleWhiteness {
		t.Fatalf("ratio over all ten columns %.3f; the test needs it to look like noise", all)
	}
	for epoch := 1; epoch <= 100; epoch++ {
		if r.settled([]individual{underfit}, epoch) {
			t.Fatalf("settled at epoch %d on a model that misses a smooth term in x0 (ratio over x0 %.3f)",
				epoch, r.whiteness(&underfit, []int{0}))
		}
	}
	if got := frontVars([]individual{underfit}, g.vars); len(got) != 1 || got[0] != 0 {
		t.Errorf("front variables %v, want [0]", got)
	}
	// The other way round: a term in x1, which no model uses yet, looks
	// like noise over x0 alone; over all inputs (here two) it does not.
	X2 := sample(rng, 2, 400, 0, 3)
	y2 := target(X2, func(x []float64) float64 { return 2*x[0] + 0.5*math.Sin(3*x[1]) })
	r = &settleRule{p: testProblem(X2, y2, Options{})}
	missing := evaluate(newEvaluator(X2, 400), y2, tree{varNode(0)})
	if over0 := neighbourRatio(residuals(&missing, X2, y2), nearestNeighbours(X2, []int{0})); over0 < settleWhiteness {
		t.Fatalf("ratio over x0 alone %.3f; the test needs it to look like noise", over0)
	}
	for epoch := 1; epoch <= 100; epoch++ {
		if r.settled([]individual{missing}, epoch) {
			t.Fatalf("settled at epoch %d on a model that misses a term in an unused variable", epoch)
		}
	}

	constant := individual{t: tree{constNode(1)}}
	if got := frontVars([]individual{constant}, g.vars); len(got) != len(g.vars) {
		t.Errorf("front of constants: variables %v, want all of %v", got, g.vars)
	}
}

// TestFitSettlesOnNoisyData: with a generation budget far beyond the data's
// needs, a noisy search stops once its law has settled instead of running
// to its time limit, the law is the right one, and the stop is
// deterministic.
func TestFitSettlesOnNoisyData(t *testing.T) {
	rng := newTestRand(13)
	X := sample(rng, 2, 500, 1, 3)
	clean := target(X, func(x []float64) float64 { return 2.5 * x[0] * x[1] })
	_, sd := stat.PopMeanStdDev(clean, nil)
	y := make([]float64, len(clean))
	for i := range y {
		y[i] = clean[i] + 0.01*sd*rng.NormFloat64()
	}
	res, err := Fit(context.Background(), X, y, []string{"a", "b"}, Options{Generations: 1 << 30, TimeLimit: 5 * time.Minute, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopSettled {
		t.Fatalf("stopped by %q after %d generations, want %q", res.Stop, res.Generations, StopSettled)
	}
	if got := affineR2(res.Best.Predict(X), clean); got < 0.999999 {
		t.Errorf("settled on %s (R² against the noise-free law %.7f)", res.Best.Expression, got)
	}
	// The rule counts epochs, not seconds, so the same seed settles at the
	// same generation on the same law.
	again, err := Fit(context.Background(), X, y, []string{"a", "b"}, Options{Generations: 1 << 30, TimeLimit: 5 * time.Minute, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if again.Generations != res.Generations || again.Best.Expression != res.Best.Expression {
		t.Errorf("same seed: %s after %d generations, then %s after %d", res.Best.Expression, res.Generations, again.Best.Expression, again.Generations)
	}
}

// TestFitReportsHowItStopped: an exact law stops by the exact rule, a
// small budget by running out of generations.
func TestFitReportsHowItStopped(t *testing.T) {
	X := sample(newTestRand(14), 2, 200, 1, 3)
	y := target(X, func(x []float64) float64 { return x[0] * x[1] })
	res, err := Fit(context.Background(), X, y, nil, Options{Generations: 1 << 30, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopExact || res.Generations <= 0 {
		t.Errorf("exact law: stopped by %q after %d generations, want %q", res.Stop, res.Generations, StopExact)
	}
	y = target(X, func(x []float64) float64 { return math.Exp(math.Sin(3*x[0])) * x[1] })
	res, err = Fit(context.Background(), X, y, nil, Options{Generations: 20, Operators: []string{"+", "*"}, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopGenerations || res.Generations != 20 {
		t.Errorf("stopped by %q after %d generations, want %q after 20", res.Stop, res.Generations, StopGenerations)
	}
}
