package bench

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// AffineR2 is the R² of the least-squares line: 1 on an exact affine
// relation, gonum's RSquared of the fitted line on noisy data, and 0 (not
// NaN, which JSON cannot carry) when a side is constant.
func TestAffineR2(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, 500), make([]float64, 500)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = -3*x[i] + 7
	}
	if got := AffineR2(x, y); math.Abs(got-1) > 1e-12 {
		t.Errorf("exact affine relation: R² %v, want 1", got)
	}
	for i := range y {
		y[i] += 2 * rng.NormFloat64()
	}
	alpha, beta := stat.LinearRegression(x, y, nil, false)
	want := stat.RSquared(x, y, nil, alpha, beta)
	if got := AffineR2(x, y); math.Abs(got-want) > 1e-12 || got <= 0 || got >= 1 {
		t.Errorf("noisy relation: R² %v, want the fitted line's %v", got, want)
	}
	constant := make([]float64, len(x))
	for i := range constant {
		constant[i] = 2
	}
	if got := AffineR2(x, constant); got != 0 {
		t.Errorf("constant side: R² %v, want 0", got)
	}
	if got := AffineR2(constant, y); got != 0 {
		t.Errorf("constant side: R² %v, want 0", got)
	}
}

// QuantityValues reads each term as conservation.ParseTerm does and sums
// them with their coefficients.
func TestQuantityValues(t *testing.T) {
	X := [][]float64{{1, 2, 4}, {0.5, 1, 2}}
	got, err := QuantityValues(map[string]float64{"x^2": 2, "log(y)": -1, "x*y": 0.5}, []string{"x", "y"}, X)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		x, y := X[0][i], X[1][i]
		if want := 2*x*x - math.Log(y) + 0.5*x*y; math.Abs(got[i]-want) > 1e-12 {
			t.Errorf("row %d: %g, want %g", i, got[i], want)
		}
	}
	if _, err := QuantityValues(map[string]float64{"z": 1}, []string{"x", "y"}, X); err == nil {
		t.Error("a term of an unknown variable: no error")
	}
}
