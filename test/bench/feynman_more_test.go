package bench

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The 100-equation table is the AI Feynman database: the 50 equations of
// Feynman first and unchanged, then 50 more, every name once, and every
// truth finite on its sampling ranges (Udrescu & Tegmark 2020 sample each
// variable uniformly from its range). That Expr and F agree is checked by
// peers/test_report.py, which evaluates Expr as the checker does.
func TestFeynmanAllIsTheDatabase(t *testing.T) {
	if len(Feynman) != 50 || len(FeynmanMore) != 50 || len(FeynmanAll) != 100 {
		t.Fatalf("tables of %d + %d = %d equations, want 50 + 50 = 100", len(Feynman), len(FeynmanMore), len(FeynmanAll))
	}
	for i, eq := range Feynman {
		if FeynmanAll[i].Name != eq.Name || FeynmanAll[i].Expr != eq.Expr {
			t.Errorf("FeynmanAll[%d] = %s, want Feynman's %s first", i, FeynmanAll[i].Name, eq.Name)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	for _, eq := range FeynmanAll {
		if seen[eq.Name] {
			t.Errorf("%s twice", eq.Name)
		}
		seen[eq.Name] = true
		if eq.Expr == "" || eq.F == nil || len(eq.Vars) == 0 {
			t.Errorf("%s: incomplete entry", eq.Name)
			continue
		}
		switch eq.Tier {
		case "easy", "medium", "hard":
		default:
			t.Errorf("%s: tier %q", eq.Name, eq.Tier)
		}
		names := map[string]bool{"y": true}
		for _, v := range eq.Vars {
			if names[v.Name] || !(v.Lo < v.Hi) {
				t.Errorf("%s: variable %s repeated, named y, or with an empty range [%v, %v]", eq.Name, v.Name, v.Lo, v.Hi)
			}
			names[v.Name] = true
		}
		row := make([]float64, len(eq.Vars))
		for trial := 0; trial < 200; trial++ {
			for j, v := range eq.Vars {
				row[j] = v.Lo + (v.Hi-v.Lo)*rng.Float64()
			}
			if y := eq.F(row); math.IsNaN(y) || math.IsInf(y, 0) {
				t.Errorf("%s: F%v = %v", eq.Name, row, y)
				break
			}
		}
	}
	for set, want := range map[string]int{"50": 50, "100": 100} {
		if got, ok := FeynmanSet(set); !ok || len(got) != want {
			t.Errorf("FeynmanSet(%q): %d equations, ok %v; want %d", set, len(got), ok, want)
		}
	}
	if _, ok := FeynmanSet("75"); ok {
		t.Error(`FeynmanSet("75") is ok, want no such table`)
	}
}
