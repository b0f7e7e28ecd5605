package bench

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/units"
)

// Every equation's units cover its variables and y, parse as the engine's
// units: constraint, and make the truth dimensionally homogeneous: the
// database's laws have only pure-number constants, so scaling each variable
// by 2^e for its exponent e of one base unit scales y by 2^e of y's
// exponent (the scaling form of dimensional homogeneity, Buckingham 1914).
func TestFeynmanUnitsAreHomogeneous(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, eq := range Feynman {
		spec, ok := FeynmanUnits[eq.Name]
		if !ok {
			t.Errorf("%s: no units", eq.Name)
			continue
		}
		c, err := engine.ParseConstraints([]string{"units:" + spec})
		if err != nil {
			t.Errorf("%s: %v", eq.Name, err)
			continue
		}
		if len(c.Units) != len(eq.Vars)+1 {
			t.Errorf("%s: %d units for %d variables and y", eq.Name, len(c.Units), len(eq.Vars))
			continue
		}
		dims := make([]units.Dim, len(eq.Vars))
		for j, v := range eq.Vars {
			d, ok := c.Units[v.Name]
			if !ok {
				t.Errorf("%s: variable %s has no unit", eq.Name, v.Name)
			}
			dims[j] = d
		}
		yd := c.Units["y"]
		for trial := 0; trial < 5; trial++ {
			row := make([]float64, len(eq.Vars))
			for j, v := range eq.Vars {
				row[j] = v.Lo + (v.Hi-v.Lo)*rng.Float64()
			}
			base := eq.F(row)
			for b := 0; b < units.NumBase; b++ {
				scaled := make([]float64, len(row))
				for j := range row {
					scaled[j] = row[j] * math.Pow(2, dims[j].Exponent(b).Float())
				}
				want := base * math.Pow(2, yd.Exponent(b).Float())
				if got := eq.F(scaled); math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Errorf("%s: scaling %s by 2 gives y = %v, want %v (units %s)", eq.Name, units.BaseSymbols[b], got, want, strings.ReplaceAll(spec, ",", " "))
					break
				}
			}
		}
	}
	if len(FeynmanUnits) != len(Feynman) {
		t.Errorf("%d unit entries for %d equations", len(FeynmanUnits), len(Feynman))
	}
}
