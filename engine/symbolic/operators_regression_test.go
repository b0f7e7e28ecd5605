package symbolic

import (
	"context"
	"testing"
	"time"
)

// An operator set without unary operators (constraint "operators:+,-,*") once crashed the
// process in point mutation; the search must run and fit.
func TestFitWithoutUnaryOperators(t *testing.T) {
	n := 200
	x0, x1, y := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x0[i] = float64(i%13)/3 + 0.5
		x1[i] = float64(i%7)/2 + 0.25
		y[i] = x0[i]*x0[i] + 2*x1[i]
	}
	res, err := Fit(context.Background(), [][]float64{x0, x1}, y, []string{"x0", "x1"},
		Options{Operators: []string{"+", "-", "*"}, Generations: 30, PopulationSize: 60, Populations: 2, Seed: 1, TimeLimit: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best == nil || res.Best.R2 < 0.999 {
		t.Fatalf("best = %+v", res.Best)
	}
}

// The other extreme: only functions, no binary operator. Seeds and
// simplification may still produce binary nodes, which mutation must
// tolerate.
func TestFitOnlyUnaryOperators(t *testing.T) {
	X := sample(newTestRand(12), 2, 200, -2, 2)
	y := target(X, func(x []float64) float64 { return 3*x[0]*x[0] + x[1] })
	for _, ops := range [][]string{{"sin", "cos"}, {"^"}, {"exp"}} {
		res, err := Fit(context.Background(), X, y, nil, Options{Operators: ops, Generations: 15, PopulationSize: 50, Populations: 2, Seed: 1})
		if err != nil {
			t.Fatalf("%v: %v", ops, err)
		}
		if res.Best == nil || res.Best.R2 < 0 {
			t.Fatalf("%v: best = %+v", ops, res.Best)
		}
	}
}
