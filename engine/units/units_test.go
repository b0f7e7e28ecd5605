package units

import (
	"errors"
	"slices"
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in       string
		column   int
		expected string
	}{
		{"m/", 3, `a unit symbol, "1" or "("`},
		{"(m*s", 5, `")"`},
		{"m^x", 3, "an integer exponent, e.g. 2, -1 or (1/2)"},
		{"m^(1/0)", 6, "a non-zero denominator"},
		{"m^(1/2", 7, `")" closing the exponent`},
		{"kg+m", 3, "an operator (* / ^) or the end of the unit"},
		{"m^99999", 3, "an exponent between -1000 and 1000"},
		{"meter", 1, "a unit symbol (kg m s A K mol cd N J W Pa C V Hz Ω ohm T F Wb H S rad sr; no prefixes such as km)"},
	} {
		_, err := Parse(tc.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("Parse(%q) = %v, want a *ParseError", tc.in, err)
		}
		if pe.Column != tc.column || pe.Expected != tc.expected || pe.Input != tc.in {
			t.Errorf("Parse(%q): column %d expected %q, want column %d expected %q", tc.in, pe.Column, pe.Expected, tc.column, tc.expected)
		}
	}
}

func TestParseEquivalents(t *testing.T) {
	for _, pair := range [][2]string{
		{"N", "kg*m/s^2"}, {"N", "kg m s^-2"}, {"N", "kg·m/s**2"}, {"J", "N*m"}, {"W", "J/s"},
		{"Pa", "N/m^2"}, {"C", "A*s"}, {"V", "W/A"}, {"Hz", "s^-1"}, {"ohm", "V/A"}, {"Ω", "ohm"},
		{"T", "Wb/m^2"}, {"F", "C/V"}, {"H", "Wb/A"}, {"S", "1/ohm"}, {"m/s/s", "m/s^2"},
		{"m^(1/2)*m^(1/2)", "m"}, {"m^(2/4)", "m^(1/2)"}, {"rad", ""}, {" ( m ) ^ ( -1 ) ", "1/m"},
	} {
		a, err := Parse(pair[0])
		if err != nil {
			t.Fatal(err)
		}
		b, err := Parse(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		if !a.Equal(b) {
			t.Errorf("%q = %s, %q = %s: want equal", pair[0], a, pair[1], b)
		}
	}
	if MustParse("m").Equal(MustParse("s")) {
		t.Error("m equals s")
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, s := range []string{"F", "J/(mol*K)", "m^(3/2)/s", "1"} {
		d := MustParse(s)
		back, err := Parse(d.String())
		if err != nil || !back.Equal(d) {
			t.Errorf("%q -> %q -> %v, %v", s, d, back, err)
		}
	}
}

// Coulomb's law F = q1·q2/(4π·ε·r²): five variables whose dimension
// matrix has rank 3 give 5 − 3 = 2 groups, q2/q1 and F·ε·r²/q1².
func TestGroupsCoulomb(t *testing.T) {
	dims := []Dim{MustParse("C"), MustParse("C"), MustParse("F/m"), MustParse("m"), MustParse("N")}
	groups := Groups(dims)
	if len(groups) != 2 {
		t.Fatalf("groups = %v, want 2", groups)
	}
	for _, g := range groups {
		var prod Dim
		for j, e := range g {
			prod = prod.Mul(dims[j].Pow(e, 1))
		}
		if !prod.Dimensionless() {
			t.Errorf("group %v has dimension %s", g, prod)
		}
	}
	if want := [][]int64{{-1, 1, 0, 0, 0}, {-2, 0, 1, 2, 1}}; !slices.Equal(groups[0], want[0]) || !slices.Equal(groups[1], want[1]) {
		t.Errorf("groups = %v, want %v", groups, want)
	}
}

func TestGroupsNone(t *testing.T) {
	if g := Groups([]Dim{MustParse("m"), MustParse("s"), MustParse("kg")}); len(g) != 0 {
		t.Errorf("independent dimensions gave groups %v", g)
	}
	if g := Groups([]Dim{MustParse("1")}); len(g) != 1 || g[0][0] != 1 {
		t.Errorf("a dimensionless variable is its own group, got %v", g)
	}
}
