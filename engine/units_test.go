package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/discolab/disco/engine/units"
)

func TestUnitsConstraintParses(t *testing.T) {
	c, err := ParseConstraints([]string{"units:x=m, t=s,y=m/s^2,r=,k=1"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"x": "m", "t": "s", "y": "m/s^2", "r": "", "k": "1"}
	if len(c.Units) != len(want) {
		t.Fatalf("units = %v, want %v", c.Units, want)
	}
	for name, u := range want {
		if d, ok := c.Units[name]; !ok || !d.Equal(units.MustParse(u)) {
			t.Errorf("%s = %v, want %s", name, d, u)
		}
	}
	if got := c.columns(); !contains(got, "x") || !contains(got, "y") {
		t.Errorf("columns() = %v, want the units' columns among them", got)
	}
}

func TestUnitsConstraintErrors(t *testing.T) {
	f := specFrame(t)
	for _, tc := range []struct {
		constraint string
		message    string
	}{
		{"units:x0=kg*m/s^", `column "x0": unit "kg*m/s^": at column 8: expected an integer exponent`},
		{"units:x0=furlong", `column "x0": unit "furlong": at column 1: expected a unit symbol`},
		{"units:x0", "not of the form column=unit"},
		{"units:=m", "not of the form column=unit"},
		{"units:x0=m,x0=s", `column "x0" is given twice`},
		{"units:,", "names no column"},
		{"units:speed=m/s", `column "speed" is not in the dataset`},
	} {
		err := Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Parameters: Parameters{Constraints: []string{tc.constraint}}}.Validate(f)
		var se *SpecError
		if !errors.As(err, &se) || se.Code != CodeConstraintInvalid || se.Field != "constraints" {
			t.Errorf("%s: err = %v, want a constraint_invalid SpecError", tc.constraint, err)
			continue
		}
		if !strings.Contains(se.Message, tc.message) {
			t.Errorf("%s: message %q, want it to contain %q", tc.constraint, se.Message, tc.message)
		}
	}
	if err := (Spec{Mode: ModeSymbolic, Parameters: Parameters{Constraints: []string{"units:x0=m"}}}).ValidateParameters([]string{"x1"}); err == nil {
		t.Error("ValidateParameters accepted units for a column not in the dataset")
	}
}

// A run with units records, for each law whose target and variables have
// units, whether it is dimensionally consistent; without units, and for a
// law that uses a column without units, the field is absent.
func TestLawEvidenceDimensionallyConsistent(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	n := 200
	L, g, m := uniform(rng, n, 1, 5), uniform(rng, n, 1, 5), uniform(rng, n, 1, 5)
	period := make([]float64, n)
	for i := range period {
		period[i] = 2 * math.Pi * math.Sqrt(L[i]/g[i])
	}
	f := frameOf(t, []string{"L", "g", "m", "T"}, L, g, m, period)
	run := func(constraints ...string) []Claim {
		t.Helper()
		res, err := Discover(context.Background(), f, Spec{Mode: ModeSymbolic, Targets: []string{"T"}, Seed: 1,
			Parameters: Parameters{Epochs: 60, Constraints: constraints}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Claims
	}
	withUnits := run("units:L=m,g=m/s^2,m=kg,T=s")
	if len(withUnits) == 0 {
		t.Fatal("no claim: nothing checked")
	}
	for _, c := range withUnits {
		if c.Evidence.DimensionallyConsistent == nil || !*c.Evidence.DimensionallyConsistent {
			t.Errorf("%s: dimensionally_consistent = %v, want true", c.Expression, c.Evidence.DimensionallyConsistent)
		}
		if body, _ := json.Marshal(c.Evidence); !strings.Contains(string(body), `"dimensionally_consistent":true`) {
			t.Errorf("evidence JSON %s lacks dimensionally_consistent", body)
		}
	}
	for _, c := range run() {
		if c.Evidence.DimensionallyConsistent != nil {
			t.Errorf("%s: dimensionally_consistent set without units", c.Expression)
		}
	}
	// g has no unit: a law using g says nothing.
	usesG := 0
	for _, c := range run("units:L=m,m=kg,T=s") {
		if strings.Contains(c.Expression, "g") {
			usesG++
			if c.Evidence.DimensionallyConsistent != nil {
				t.Errorf("%s: dimensionally_consistent set though g has no unit", c.Expression)
			}
		}
	}
	if usesG == 0 {
		t.Fatal("no law uses g: the unitless column is not exercised")
	}
}
