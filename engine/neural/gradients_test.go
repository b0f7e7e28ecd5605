package neural

import (
	"context"
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
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

// Predict and InputGradients pass large inputs through the network in
// batches of predictBatch rows; every row's result is the one it has
// alone, including the rows on either side of a batch boundary.
func TestPredictInBatchesEqualsRowByRow(t *testing.T) {
	X := uniformColumns(3, 2*predictBatch+7, [2]float64{-3, 3}, [2]float64{0, 100})
	y := targetOf(X, func(x []float64) float64 { return math.Sin(x[0]) * x[1] })
	m, err := Train(context.Background(), X, y, Options{Hidden: []int{8}, Epochs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	pred, grads := m.Predict(X), m.InputGradients(X)
	for _, i := range []int{0, predictBatch - 1, predictBatch, 2 * predictBatch, 2*predictBatch + 6} {
		row := [][]float64{{X[0][i]}, {X[1][i]}}
		if one := m.Predict(row)[0]; math.Float64bits(one) != math.Float64bits(pred[i]) {
			t.Errorf("row %d: %v in the batch, %v alone", i, pred[i], one)
		}
		g := m.InputGradients(row)
		for j := range g {
			if math.Float64bits(g[j][0]) != math.Float64bits(grads[j][i]) {
				t.Errorf("row %d, feature %d: gradient %v in the batch, %v alone", i, j, grads[j][i], g[j][0])
			}
		}
	}
}

// Predict and InputGradients on 400,000 rows hold a batch's activations,
// not the whole input's: without batches a 64-unit layer alone holds
// 400,000 × 64 doubles (205 MB) per pass. The live heap is sampled while
// they run.
func TestPredictMemoryIsBounded(t *testing.T) {
	const rows = 400000
	X := uniformColumns(4, rows, [2]float64{-3, 3}, [2]float64{0, 100})
	y := targetOf(X, func(x []float64) float64 { return x[0] + x[1] })
	m, err := Train(context.Background(), [][]float64{X[0][:500], X[1][:500]}, y[:500], Options{Hidden: []int{64}, Epochs: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	live := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := live()
	done, peak := make(chan struct{}), make(chan uint64)
	go func() {
		var most uint64
		for {
			most = max(most, live())
			select {
			case <-done:
				peak <- most
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	pred := m.Predict(X)
	grads := m.InputGradients(X)
	close(done)
	grew := <-peak - base
	runtime.KeepAlive(pred)
	runtime.KeepAlive(grads)
	// the outputs are 3 × 400,000 doubles (9.6 MB); the bound leaves room
	// for a few batches and garbage not yet collected
	if grew > 64<<20 {
		t.Errorf("the live heap grew by %d MB while predicting %d rows; want at most 64 MB", grew>>20, rows)
	}
}
