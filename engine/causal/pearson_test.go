package causal

import (
	"math"
	"math/rand/v2"
	"testing"
)

// twoPassPearson is the sample correlation as the package computed it
// before it used gonum: Σ(a-ā)(b-b̄) / sqrt(Σ(a-ā)² Σ(b-b̄)²), 0 when either
// side is constant.
func twoPassPearson(a, b []float64) float64 {
	n := float64(len(a))
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= n
	mb /= n
	var sab, saa, sbb float64
	for i := range a {
		da, db := a[i]-ma, b[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return 0
	}
	return sab / math.Sqrt(saa*sbb)
}

// pearson (stat.Correlation) gives the two-pass values to 1e-12 on the rank
// vectors residualIndependenceP feeds it, and 0 on a constant side.
func TestPearsonMatchesTwoPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		n := 5 + rng.IntN(2000)
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = rng.NormFloat64()
			b[i] = 0.3*a[i] + math.Abs(rng.NormFloat64())
			if trial%2 == 0 {
				b[i] = math.Round(b[i]) // ties
			}
		}
		for _, pair := range [][2][]float64{{a, b}, {ranks(a), ranks(b)}} {
			want := twoPassPearson(pair[0], pair[1])
			if got := pearson(pair[0], pair[1]); math.Abs(got-want) > 1e-12 {
				t.Fatalf("n=%d: pearson %v, two-pass %v", n, got, want)
			}
		}
	}
	constant := make([]float64, 50)
	for i := range constant {
		constant[i] = 2
	}
	if got := pearson(constant, ranks(constant)); got != 0 {
		t.Fatalf("constant sides: pearson %v, want 0", got)
	}
}
