package neural

import (
	"context"
	"math"
	"testing"
)

// BenchmarkTrain is the surrogate of a 1,000-row, 5-feature table with the
// engine's defaults (DefaultHidden, batch 64) for 20 epochs without early
// stopping: the neural and neuro-symbolic modes' main cost.
func BenchmarkTrain(b *testing.B) {
	X := uniformColumns(30, 1000, [2]float64{1, 5}, [2]float64{1, 5}, [2]float64{1, 5}, [2]float64{1, 5}, [2]float64{1, 5})
	y := targetOf(X, func(x []float64) float64 { return x[0]*(x[1]+x[2]*math.Sin(x[3])) + x[4] })
	opts := Options{Epochs: 20, Patience: 1000, Seed: 1}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Train(context.Background(), X, y, opts); err != nil {
			b.Fatal(err)
		}
	}
}
