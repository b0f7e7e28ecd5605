package neural

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func sinPlusSquare(x []float64) float64 { return math.Sin(x[0]) + x[1]*x[1] }

func TestTrainFitsSmoothFunction(t *testing.T) {
	X := uniformColumns(1, 400, [2]float64{-3, 3}, [2]float64{-2, 2})
	y := targetOf(X, sinPlusSquare)
	m, err := Train(context.Background(), X, y, smallOptions(1))
	if err != nil {
		t.Fatal(err)
	}
	if r2 := m.ValidationR2(); r2 < 0.95 {
		t.Fatalf("validation R² = %.4f, want > 0.95", r2)
	}
	// The fit must generalise to fresh points from the same range too.
	fresh := uniformColumns(2, 200, [2]float64{-3, 3}, [2]float64{-2, 2})
	if r2 := rSquared(m.Predict(fresh), targetOf(fresh, sinPlusSquare)); r2 < 0.95 {
		t.Fatalf("R² on fresh data = %.4f, want > 0.95", r2)
	}
}

func TestTrainWithSiLU(t *testing.T) {
	X := uniformColumns(3, 300, [2]float64{-3, 3}, [2]float64{-2, 2})
	y := targetOf(X, sinPlusSquare)
	opts := smallOptions(4)
	opts.Activation = SiLU
	m, err := Train(context.Background(), X, y, opts)
	if err != nil {
		t.Fatal(err)
	}
	if m.Activation != SiLU {
		t.Fatalf("activation %q, want %q", m.Activation, SiLU)
	}
	if r2 := m.ValidationR2(); r2 < 0.95 {
		t.Fatalf("validation R² = %.4f, want > 0.95", r2)
	}
}

func TestTrainIsDeterministicForASeed(t *testing.T) {
	X := uniformColumns(5, 120, [2]float64{-2, 2}, [2]float64{-2, 2})
	y := targetOf(X, sinPlusSquare)
	opts := Options{Hidden: []int{8}, Epochs: 30, Seed: 9}
	a, errA := Train(context.Background(), X, y, opts)
	b, errB := Train(context.Background(), X, y, opts)
	opts.Seed = 10
	c, errC := Train(context.Background(), X, y, opts)
	if err := errors.Join(errA, errB, errC); err != nil {
		t.Fatal(err)
	}
	pa, pb, pc := a.Predict(X), b.Predict(X), c.Predict(X)
	if !slices.Equal(pa, pb) || a.ValidationR2() != b.ValidationR2() {
		t.Fatal("two runs with the same seed differ")
	}
	if slices.Equal(pa, pc) {
		t.Fatal("runs with different seeds gave identical predictions")
	}
}

func TestTrainRejectsBadInput(t *testing.T) {
	good := uniformColumns(6, 20, [2]float64{0, 1}, [2]float64{0, 1})
	goodY := targetOf(good, sinPlusSquare)
	withNaN := [][]float64{slices.Clone(good[0]), good[1]}
	withNaN[0][7] = math.NaN()
	infY := slices.Clone(goodY)
	infY[3] = math.Inf(1)
	cases := []struct {
		name string
		X    [][]float64
		y    []float64
		opts Options
		want string
	}{
		{"length mismatch", [][]float64{good[0], good[1][:19]}, goodY, Options{}, "feature 1 has 19 rows"},
		{"NaN feature", withNaN, goodY, Options{}, "feature 0 row 7 is NaN"},
		{"infinite target", good, infY, Options{}, "target row 3 is +Inf"},
		{"too few rows", [][]float64{good[0][:5], good[1][:5]}, goodY[:5], Options{}, "5 rows; need at least 10"},
		{"no features", nil, goodY, Options{}, "no features"},
		{"too wide", good, goodY, Options{Hidden: []int{2000}}, "width 2000"},
		{"too deep", good, goodY, Options{Hidden: make([]int, 9)}, "depth 9"},
		{"unknown activation", good, goodY, Options{Activation: "relu"}, `activation "relu"`},
		{"bad validation fraction", good, goodY, Options{ValidationFraction: 0.95}, "validation fraction"},
	}
	for _, c := range cases {
		m, err := Train(context.Background(), c.X, c.y, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Train = %v, %v; want error containing %q", c.name, m, err, c.want)
		}
	}
}

func TestTrainCancelledReturnsBestSoFar(t *testing.T) {
	X := uniformColumns(7, 100, [2]float64{-2, 2})
	y := targetOf(X, func(x []float64) float64 { return 2 * x[0] })
	ctx, cancel := context.WithCancel(context.Background())
	epochs := 0
	opts := Options{Hidden: []int{8}, Epochs: 1000, Patience: 1000, Seed: 1, Progress: func(float64) {
		if epochs++; epochs == 20 {
			cancel()
		}
	}}
	m, err := Train(ctx, X, y, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if m == nil {
		t.Fatal("no model returned on cancellation")
	}
	if epochs != 20 {
		t.Fatalf("training ran %d epochs after cancellation at 20", epochs)
	}
	// Twenty epochs of Adam on a straight line already explain most of it.
	if r2 := m.ValidationR2(); !(r2 > 0.5) {
		t.Fatalf("validation R² after cancellation = %v, want the best weights so far (> 0.5)", r2)
	}
}

func TestTrainProgressAndEarlyStopping(t *testing.T) {
	X := uniformColumns(8, 100, [2]float64{-1, 1})
	y := targetOf(X, func(x []float64) float64 { return x[0] })
	var reports []float64
	opts := Options{Hidden: []int{4}, Epochs: 100000, LearningRate: 1e-2, Patience: 5, Seed: 2,
		Progress: func(f float64) { reports = append(reports, f) }}
	if _, err := Train(context.Background(), X, y, opts); err != nil {
		t.Fatal(err)
	}
	if len(reports) == 0 || reports[len(reports)-1] != 1 {
		t.Fatalf("progress did not end at 1: %v", reports[max(0, len(reports)-3):])
	}
	if len(reports) > 20000 {
		t.Fatalf("%d progress reports: early stopping did not stop a fitted line", len(reports))
	}
	if !slices.IsSorted(reports) || reports[0] <= 0 {
		t.Fatal("progress is not increasing from above 0")
	}
}

func TestTrainerRestoresBestWeights(t *testing.T) {
	X := uniformColumns(9, 40, [2]float64{-1, 1})
	y := targetOf(X, func(x []float64) float64 { return x[0] })
	m, err := Train(context.Background(), X, y, Options{Hidden: []int{4}, Epochs: 200, LearningRate: 1e-2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	z := m.standardise(X)
	target := make([]float64, len(y))
	for i, v := range y {
		target[i] = (v - m.OutputMean) / m.OutputStd
	}
	tr := &trainer{model: m}
	tr.keepIfBest(z, target)
	good := m.Predict(X)
	for l := range m.Layers {
		for i := range m.Layers[l].Weights {
			m.Layers[l].Weights[i] += 0.5 // strictly worse than a fitted line
		}
	}
	if tr.keepIfBest(z, target) {
		t.Fatal("perturbed weights were kept as the best")
	}
	tr.finish(z, target, y, []int{0, 1, 2, 3, 4, 5})
	if !slices.Equal(m.Predict(X), good) {
		t.Fatal("finish did not restore the best weights")
	}
}
