package main

import (
	"testing"

	"github.com/discolab/disco/test/bench"
)

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
