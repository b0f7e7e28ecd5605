package controls

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// SquaredCorrelation is the R² of the best affine map from prediction to
// observed, i.e. the fit a claim reaches once its scale and offset are refit.
// It is 0 when either side is constant and NaN-safe.
func SquaredCorrelation(observed, prediction []float64) float64 {
	if len(observed) < 3 || len(observed) != len(prediction) {
		return 0
	}
	for _, v := range prediction {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0
		}
	}
	r := stat.Correlation(observed, prediction, nil)
	if math.IsNaN(r) {
		return 0
	}
	return r * r
}

// RSquared is 1 - SSE/SST of prediction against observed, without refitting.
func RSquared(observed, prediction []float64) float64 {
	if len(observed) == 0 || len(observed) != len(prediction) {
		return math.NaN()
	}
	mean := stat.Mean(observed, nil)
	var sse, sst float64
	for i, y := range observed {
		d := y - prediction[i]
		sse += d * d
		sst += (y - mean) * (y - mean)
	}
	if sst == 0 {
		if sse == 0 {
			return 1
		}
		return 0
	}
	return 1 - sse/sst
}

// PartialCorrelation is the correlation of x and y after regressing both on
// the conditioning columns Z (each Z[k] a column of length n, an intercept
// is always included).
func PartialCorrelation(x, y []float64, Z [][]float64) float64 {
	proj := NewProjector(len(x), Z)
	return correlation(proj.Residual(nil, x), proj.Residual(nil, y))
}
