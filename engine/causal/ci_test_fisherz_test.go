package causal

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestPartialCorrMatchesPrecisionMatrix(t *testing.T) {
	// Reference: partial correlation from the inverse of the full
	// sub-matrix, -P01/sqrt(P00·P11).
	rng := rand.New(rand.NewPCG(1, 1))
	nodes, edges := randomDAG(rng, 8, 0.5)
	X := simulateSEM(rng, 300, nodes, edges, gaussianNoise)
	z, err := standardize(X)
	if err != nil {
		t.Fatal(err)
	}
	corr := correlation(z)
	ft := newFisherZ(corr, 300)
	for _, s := range [][]int{{}, {2}, {2, 3}, {2, 3, 4, 5, 6, 7}} {
		idx := append([]int{0, 1}, s...)
		sub := mat.NewSymDense(len(idx), nil)
		for a := range idx {
			for b := range idx {
				sub.SetSym(a, b, corr.At(idx[a], idx[b]))
			}
		}
		var prec mat.Dense
		if err := prec.Inverse(sub); err != nil {
			t.Fatal(err)
		}
		want := -prec.At(0, 1) / math.Sqrt(prec.At(0, 0)*prec.At(1, 1))
		got, ok := ft.partialCorr(0, 1, s)
		if !ok || math.Abs(got-want) > 1e-10 {
			t.Errorf("given %v: %v, want %v", s, got, want)
		}
	}
}

func TestFisherZPValue(t *testing.T) {
	// z = atanh(0.1)·sqrt(100-0-3) = 0.98834; two-sided p = 0.32298.
	if p := fisherZPValue(0.1, 100, 0); math.Abs(p-0.32298) > 1e-4 {
		t.Errorf("p = %v, want 0.32298", p)
	}
	if p := fisherZPValue(0, 100, 2); p != 1 {
		t.Errorf("zero correlation p = %v, want 1", p)
	}
}
