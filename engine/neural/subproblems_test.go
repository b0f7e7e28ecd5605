package neural

import (
	"context"
	"math"
	"testing"
)

func TestSubProblemsRecombine(t *testing.T) {
	X := uniformColumns(41, 400, [2]float64{1, 3}, [2]float64{0, 1.5}, [2]float64{-2, 2})
	truth := func(x []float64) float64 { return (x[0] * math.Exp(x[1])) + x[2]*x[2] }
	m, err := Train(context.Background(), X, targetOf(X, truth), smallOptions(7))
	if err != nil {
		t.Fatal(err)
	}
	s := Structure{Form: Additive, Groups: [][]int{{0, 1}, {2}}}
	subs, ref, err := m.SubProblems(X, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(subs) != 2 || len(subs[0].X) != 2 || len(subs[1].X) != 1 || &subs[1].X[0][0] != &X[2][0] {
		t.Fatalf("sub-problem shapes wrong: %+v", subs)
	}
	// Each piece is its true function up to an additive constant.
	square := targetOf(subs[1].X, func(x []float64) float64 { return x[0] * x[0] })
	if r2 := rSquared(shiftToMean(subs[1].Y, square), square); r2 < 0.98 {
		t.Fatalf("group [2] sub-problem explains x2² with R² %.3f", r2)
	}
	// And the pieces add back up to the surrogate.
	pred := m.Predict(X)
	sum := make([]float64, len(pred))
	for i := range sum {
		sum[i] = subs[0].Y[i] + subs[1].Y[i] - ref
	}
	if r2 := rSquared(sum, pred); r2 < 0.99 {
		t.Fatalf("recombined sub-problems match the surrogate with R² %.3f", r2)
	}

	if _, _, err := m.SubProblems(X, Structure{Form: Additive, Groups: [][]int{{0}, {2}}}); err == nil {
		t.Fatal("SubProblems accepted groups that leave out feature 1")
	}
	if _, _, err := m.SubProblems(X, Structure{Form: Additive, Groups: [][]int{{0, 1}, {1, 2}}}); err == nil {
		t.Fatal("SubProblems accepted overlapping groups")
	}
}

// shiftToMean adds the constant that makes a's mean equal b's.
func shiftToMean(a, b []float64) []float64 {
	var da float64
	for i := range a {
		da += b[i] - a[i]
	}
	da /= float64(len(a))
	out := make([]float64, len(a))
	for i, v := range a {
		out[i] = v + da
	}
	return out
}
