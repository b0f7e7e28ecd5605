package engine

import (
	"errors"
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
