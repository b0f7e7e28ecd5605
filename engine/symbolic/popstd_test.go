package symbolic

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// twoPassMeanSD is the population mean and standard deviation as the
// package computed them before it used gonum: the plain two-pass formula,
// sqrt(Σ(x-m)²/n).
func twoPassMeanSD(x []float64) (float64, float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	m := s / float64(len(x))
	var v2 float64
	for _, v := range x {
		v2 += (v - m) * (v - m)
	}
	return m, math.Sqrt(v2 / float64(len(x)))
}

// The package standardises with the population deviation (divide by n, not
// n-1): stat.PopMeanStdDev must give the two-pass values to 1e-12 relative
// to the data's magnitude (|mean| + sd, the scale of the two-pass formula's
// rounding error), on data of the shapes the searches see (offsets, scales,
// a constant, where the two-pass formula leaves rounding noise and gonum's
// compensated one gives 0).
func TestPopMeanStdDevMatchesTwoPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(2000)
		offset := math.Pow(10, float64(rng.IntN(9)-4))
		scale := math.Pow(10, float64(rng.IntN(9)-4))
		x := make([]float64, n)
		for i := range x {
			x[i] = offset + scale*rng.NormFloat64()
		}
		if trial == 0 {
			for i := range x {
				x[i] = 3.7
			}
		}
		wantM, wantSD := twoPassMeanSD(x)
		gotM, gotSD := stat.PopMeanStdDev(x, nil)
		tol := 1e-12 * (math.Abs(wantM) + wantSD)
		if math.Abs(gotM-wantM) > tol {
			t.Fatalf("n=%d: mean %v, two-pass %v", n, gotM, wantM)
		}
		if math.Abs(gotSD-wantSD) > tol {
			t.Fatalf("n=%d offset %g scale %g: sd %v, two-pass %v", n, offset, scale, gotSD, wantSD)
		}
	}
}
