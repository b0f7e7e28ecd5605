package datasetunits

import (
	"fmt"
	"strings"
	"testing"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/units"
)

func TestCheckAcceptsTheEngineGrammar(t *testing.T) {
	m := map[string]string{"F": "kg*m/s^2", "E": "J/(mol*K)", "r": "m^(1/2)", "n": "1", "phi": "", "v": "m s^-1"}
	if p := Check(m); p != nil {
		t.Fatalf("Check(%v) = %v, want no problems", m, p)
	}
}

func TestCheckNamesTheColumnAndTheSyntax(t *testing.T) {
	p := Check(map[string]string{"ok": "m", "F": "kg*m/s^", "d": "km"})
	if len(p) != 2 || p[0].Column != "F" || p[1].Column != "d" {
		t.Fatalf("problems = %+v, want F and d", p)
	}
	for _, want := range []string{`"kg*m/s^"`, `column "F"`, "at character 8", "kg*m/s^2"} {
		if !strings.Contains(p[0].Message, want) {
			t.Errorf("message %q lacks %q", p[0].Message, want)
		}
	}
	if !strings.Contains(p[1].Message, "no prefixes") {
		t.Errorf("message %q does not say prefixes are refused", p[1].Message)
	}
}

func TestCheckBounds(t *testing.T) {
	cases := map[string]map[string]string{
		"name with comma":  {"a,b": "m"},
		"name with equals": {"a=b": "m"},
		"padded name":      {" a": "m"},
		"empty name":       {"": "m"},
		"long name":        {strings.Repeat("x", MaxNameBytes+1): "m"},
		"long unit":        {"x": strings.Repeat("m*", MaxUnitBytes/2) + "m"},
	}
	for what, m := range cases {
		if p := Check(m); len(p) != 1 {
			t.Errorf("%s: problems = %+v, want one", what, p)
		}
	}
	many := map[string]string{}
	for i := range MaxEntries + 1 {
		many[fmt.Sprintf("c%d", i)] = "m"
	}
	if p := Check(many); len(p) != 1 || !strings.Contains(p[0].Message, "limit of 4096") {
		t.Errorf("%d entries: problems = %+v, want the limit", len(many), p)
	}
	wide := map[string]string{}
	for i := range 600 {
		wide[fmt.Sprintf("column_%03d", i)] = "kg*m^2/(s^2*A*K)"
	}
	if p := Check(wide); len(p) != 1 || !strings.Contains(p[0].Message, "limit of 16384") {
		t.Errorf("%d bytes of units: problems = %+v, want the limit", len(Constraint(wide)), p)
	}
}

func TestMissingMessage(t *testing.T) {
	m := map[string]string{"x": "m", "y": "s", "gone": "kg"}
	if got := Missing(m, []string{"x", "y"}); len(got) != 1 || got[0] != "gone" {
		t.Fatalf("Missing = %v, want [gone]", got)
	}
	msg := MissingMessage(m, []string{"x", "y"})
	if !strings.Contains(msg, `"gone"`) || !strings.Contains(msg, `"x", "y"`) {
		t.Fatalf("MissingMessage = %q", msg)
	}
	if MissingMessage(m, []string{"x", "y", "gone"}) != "" {
		t.Fatal("every column present gave a message")
	}
}

// The units: constraint made from a dataset's units parses, in the engine,
// to the same dimensions.
func TestConstraintRoundTripsThroughTheEngine(t *testing.T) {
	m := map[string]string{"F": "kg*m/s^2", "m": "kg", "a": "m/s^2", "n": ""}
	c := Constraint(m)
	if c != "units:F=kg*m/s^2,a=m/s^2,m=kg,n=" {
		t.Fatalf("Constraint = %q", c)
	}
	parsed, err := engine.ParseConstraints([]string{c})
	if err != nil {
		t.Fatal(err)
	}
	for name, u := range m {
		if got, want := parsed.Units[name], units.MustParse(u); !got.Equal(want) {
			t.Errorf("%s: engine has %v, want %v", name, got, want)
		}
	}
	if Constraint(nil) != "" {
		t.Error("no units gave a constraint")
	}
}

func TestHasConstraint(t *testing.T) {
	if !HasConstraint([]string{"max_depth:3", " units :x=m"}) {
		t.Error("a units: constraint was not seen")
	}
	if HasConstraint([]string{"max_depth:3", "exclude:units"}) {
		t.Error("exclude:units was taken for a units: constraint")
	}
}
