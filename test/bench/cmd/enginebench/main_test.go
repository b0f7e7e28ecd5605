package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/discolab/disco/test/bench"
)

// affineR2 is the R² of the least-squares line: 1 on an exact affine
// relation, gonum's RSquared of the fitted line on noisy data, and 0 (not
// NaN, which JSON cannot carry) when a side is constant.
func TestAffineR2(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y := make([]float64, 500), make([]float64, 500)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = -3*x[i] + 7
	}
	if got := affineR2(x, y); math.Abs(got-1) > 1e-12 {
		t.Errorf("exact affine relation: R² %v, want 1", got)
	}
	for i := range y {
		y[i] += 2 * rng.NormFloat64()
	}
	alpha, beta := stat.LinearRegression(x, y, nil, false)
	want := stat.RSquared(x, y, nil, alpha, beta)
	if got := affineR2(x, y); math.Abs(got-want) > 1e-12 || got <= 0 || got >= 1 {
		t.Errorf("noisy relation: R² %v, want the fitted line's %v", got, want)
	}
	constant := make([]float64, len(x))
	for i := range constant {
		constant[i] = 2
	}
	if got := affineR2(x, constant); got != 0 {
		t.Errorf("constant side: R² %v, want 0", got)
	}
	if got := affineR2(constant, y); got != 0 {
		t.Errorf("constant side: R² %v, want 0", got)
	}
}

// gen's -noise takes SRBench's levels in any order, drops repeats, and
// refuses what is not a fraction in [0, 1); run visits a case's levels in
// ascending order whatever the manifest's map order.
func TestNoiseLevels(t *testing.T) {
	got, err := parseNoise("0, 0.1,0.01,0.1")
	if err != nil || len(got) != 3 || got[0] != 0 || got[1] != 0.1 || got[2] != 0.01 {
		t.Errorf("parseNoise: %v, %v; want [0 0.1 0.01]", got, err)
	}
	for _, bad := range []string{"", "x", "-0.01", "1", "NaN", "0,,0.1"} {
		if _, err := parseNoise(bad); err == nil {
			t.Errorf("parseNoise(%q): no error", bad)
		}
	}
	c := feynmanCase{Files: map[string]string{"0.1": "c", "0": "a", "0.01": "b"}}
	if got := caseNoise(c); len(got) != 3 || got[0] != "0" || got[1] != "0.01" || got[2] != "0.1" {
		t.Errorf("caseNoise: %v, want [0 0.01 0.1]", got)
	}
	if eqs := pickEquations(bench.FeynmanAll, 0, "I.12.5,I.6.2a"); len(eqs) != 2 || eqs[0].Name != "I.6.2a" || eqs[1].Name != "I.12.5" {
		t.Errorf("pickEquations by name over the 100: %d equations", len(eqs))
	}
	if eqs := pickEquations(bench.Feynman, 0, "I.12.5"); len(eqs) != 0 {
		t.Errorf("pickEquations: I.12.5 is not in the 50, got %d equations", len(eqs))
	}
}
