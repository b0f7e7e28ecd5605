package neural

import (
	"context"
	"math"
	"testing"
)

func TestInputGradientsMatchFiniteDifferences(t *testing.T) {
	for _, activation := range []string{Tanh, SiLU} {
		// Features on very different scales check the conversion to original units.
		X := uniformColumns(11, 150, [2]float64{-3, 3}, [2]float64{0, 100}, [2]float64{-0.01, 0.01})
		y := targetOf(X, func(x []float64) float64 { return math.Sin(x[0]) + x[1]/50 + 100*x[2] })
		m, err := Train(context.Background(), X, y, Options{Hidden: []int{16, 16}, Activation: activation, Epochs: 50, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		grads := m.InputGradients(X)
		for j := range X {
			h := 1e-5 * m.InputStd[j]
			for i := 0; i < len(X[0]); i += 15 {
				point := [][]float64{{X[0][i]}, {X[1][i]}, {X[2][i]}}
				point[j][0] += h
				up := m.Predict(point)[0]
				point[j][0] -= 2 * h
				down := m.Predict(point)[0]
				numeric := (up - down) / (2 * h)
				if diff := math.Abs(numeric - grads[j][i]); diff > 1e-6*(1+math.Abs(numeric))*m.OutputStd/m.InputStd[j] {
					t.Errorf("%s: d/dx%d at row %d: analytic %g, finite difference %g", activation, j, i, grads[j][i], numeric)
				}
			}
		}
	}
}

func TestImportanceRanksSignalAboveNoise(t *testing.T) {
	X := uniformColumns(12, 300, [2]float64{-2, 2}, [2]float64{-2, 2})
	y := targetOf(X, func(x []float64) float64 { return x[0] + math.Sin(2*x[0]) }) // x1 is pure noise
	m, err := Train(context.Background(), X, y, smallOptions(6))
	if err != nil {
		t.Fatal(err)
	}
	imp := m.Importance(X)
	if math.Abs(imp[0]+imp[1]-1) > 1e-12 {
		t.Fatalf("importances %v do not sum to 1", imp)
	}
	if imp[0] < 0.9 || imp[1] > 0.1 {
		t.Fatalf("importances %v: want the real input far above the noise input", imp)
	}
}

func TestImportanceOfConstantFeatureIsZero(t *testing.T) {
	X := uniformColumns(13, 100, [2]float64{-2, 2}, [2]float64{5, 5})
	y := targetOf(X, func(x []float64) float64 { return x[0] })
	m, err := Train(context.Background(), X, y, Options{Hidden: []int{8}, Epochs: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if imp := m.Importance(X); imp[1] != 0 || imp[0] != 1 {
		t.Fatalf("importances %v, want [1 0] for a constant second feature", imp)
	}
}
