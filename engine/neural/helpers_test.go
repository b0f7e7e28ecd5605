package neural

import (
	"math/rand/v2"
)

// uniformColumns draws rows × len(ranges) uniform features, column-major.
func uniformColumns(seed uint64, rows int, ranges ...[2]float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := make([][]float64, len(ranges))
	for j, r := range ranges {
		X[j] = make([]float64, rows)
		for i := range X[j] {
			X[j][i] = r[0] + (r[1]-r[0])*rng.Float64()
		}
	}
	return X
}

// targetOf evaluates f on every row of column-major X.
func targetOf(X [][]float64, f func(x []float64) float64) []float64 {
	y := make([]float64, len(X[0]))
	row := make([]float64, len(X))
	for i := range y {
		for j := range X {
			row[j] = X[j][i]
		}
		y[i] = f(row)
	}
	return y
}

// smallOptions keeps test networks small and fast.
func smallOptions(seed int64) Options {
	return Options{Hidden: []int{32, 32}, Epochs: 400, LearningRate: 3e-3, BatchSize: 32, Seed: seed}
}
