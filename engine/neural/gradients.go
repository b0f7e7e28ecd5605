package neural

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// InputGradients returns d yhat / d x_j at every row of X, in original units,
// as [feature][row]. It backpropagates to the inputs analytically, so it is
// exact for the network rather than a finite-difference estimate. Like
// Predict, it panics if X does not have one equal-length column per feature.
func (m *Model) InputGradients(X [][]float64) [][]float64 {
	rows := m.checkShape(X)
	grads := make([][]float64, len(X))
	for j := range grads {
		grads[j] = make([]float64, rows)
	}
	forBatches(X, func(lo int, part [][]float64) {
		dz := m.standardisedGradients(m.standardise(part))
		for j := range grads {
			// yhat = OutputStd * net(z) + OutputMean with z_j = (x_j - mean_j) / std_j.
			scale := m.OutputStd / m.InputStd[j]
			for i := range rowCount(part) {
				grads[j][lo+i] = dz.At(i, j) * scale
			}
		}
	})
	return grads
}

// standardisedGradients returns d net / d z (rows × features) for
// standardised inputs z, with the network output in standardised units.
func (m *Model) standardisedGradients(z *mat.Dense) *mat.Dense {
	rows, _ := z.Dims()
	ones := mat.NewDense(rows, 1, nil)
	for i := range rows {
		ones.Set(i, 0, 1)
	}
	_, dz := m.backward(m.forward(z), ones, false)
	return dz
}

// Importance scores each feature by mean |d yhat / d x_j| * std(x_j) over the
// rows of X: the typical change in the prediction for a one-standard-deviation
// change in that feature. Scores are normalised to sum to 1; if the model is
// flat on X every score is 0.
func (m *Model) Importance(X [][]float64) []float64 {
	grads := m.InputGradients(X)
	scores := make([]float64, len(grads))
	var total float64
	for j, g := range grads {
		if len(g) == 0 {
			continue
		}
		var sumAbs float64
		for _, v := range g {
			sumAbs += math.Abs(v)
		}
		std := m.InputStd[j] // fall back to the training spread for a single row
		if len(g) > 1 {
			std = stat.StdDev(X[j], nil)
		}
		scores[j] = sumAbs / float64(len(g)) * std
		total += scores[j]
	}
	if total > 0 {
		for j := range scores {
			scores[j] /= total
		}
	}
	return scores
}
