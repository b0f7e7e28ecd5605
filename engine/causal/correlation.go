package causal

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// standardize returns the columns of X centred and scaled to unit sample
// standard deviation, laid out as a p×n matrix (one row per variable) so the
// correlation matrix is a single symmetric rank-k update.
func standardize(X [][]float64) (*mat.Dense, error) {
	p := len(X)
	if p == 0 {
		return nil, errors.New("causal: no variables")
	}
	n := len(X[0])
	z := mat.NewDense(p, n, nil)
	for j, col := range X {
		if len(col) != n {
			return nil, fmt.Errorf("causal: variable %d has %d rows, want %d", j, len(col), n)
		}
		for _, v := range col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("causal: variable %d has a non-finite value", j)
			}
		}
		mean, sd := stat.MeanStdDev(col, nil)
		if !(sd > 0) {
			return nil, fmt.Errorf("causal: variable %d is constant", j)
		}
		row := z.RawRowView(j)
		for i, v := range col {
			row[i] = (v - mean) / sd
		}
	}
	return z, nil
}

// correlation returns the p×p correlation matrix of standardised rows z.
func correlation(z *mat.Dense) *mat.SymDense {
	p, n := z.Dims()
	c := mat.NewSymDense(p, nil)
	c.SymOuterK(1/float64(n-1), z)
	// Rounding can leave the diagonal a hair away from 1; partial
	// correlations assume it is exact.
	for i := range p {
		c.SetSym(i, i, 1)
	}
	return c
}
