package neural

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// MinRows is the fewest rows Train accepts: enough for a validation split of
// at least two rows and a training split that is not trivially memorised.
const MinRows = 10

// checkTrainingData rejects inputs Train cannot learn from, naming the
// offending feature and row so the caller can report it.
func checkTrainingData(X [][]float64, y []float64) error {
	if len(X) == 0 {
		return fmt.Errorf("neural: no features")
	}
	if len(y) < MinRows {
		return fmt.Errorf("neural: %d rows; need at least %d", len(y), MinRows)
	}
	for j, col := range X {
		if len(col) != len(y) {
			return fmt.Errorf("neural: feature %d has %d rows, target has %d", j, len(col), len(y))
		}
		for i, v := range col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("neural: feature %d row %d is %v", j, i, v)
			}
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("neural: target row %d is %v", i, v)
		}
	}
	return nil
}

// meanStd returns the mean and sample standard deviation of v, with the
// deviation replaced by 1 when it is zero so that standardising a constant
// column leaves it at zero instead of dividing by zero.
func meanStd(v []float64) (mean, std float64) {
	mean, std = stat.MeanStdDev(v, nil)
	if !(std > 0) || math.IsInf(std, 0) {
		std = 1
	}
	return mean, std
}

// rSquared is 1 - SSres/SStot. A constant observed vector scores 1 when it
// is predicted exactly and 0 otherwise, instead of dividing by zero.
func rSquared(predicted, observed []float64) float64 {
	mean := stat.Mean(observed, nil)
	var ssRes, ssTot float64
	for i, o := range observed {
		ssRes += (o - predicted[i]) * (o - predicted[i])
		ssTot += (o - mean) * (o - mean)
	}
	if ssTot == 0 {
		if ssRes == 0 {
			return 1
		}
		return 0
	}
	return 1 - ssRes/ssTot
}
