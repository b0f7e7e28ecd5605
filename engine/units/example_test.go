package units_test

import (
	"errors"
	"fmt"

	"github.com/discolab/disco/engine/units"
)

// Parse reads SI unit strings; derived units expand into base units.
func ExampleParse() {
	for _, s := range []string{"kg*m/s^2", "N", "J/(mol*K)", "m^(1/2)", "1", ""} {
		d, err := units.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%q -> %s\n", s, d)
	}
	// Output:
	// "kg*m/s^2" -> kg*m*s^-2
	// "N" -> kg*m*s^-2
	// "J/(mol*K)" -> kg*m^2*s^-2*K^-1*mol^-1
	// "m^(1/2)" -> m^(1/2)
	// "1" -> 1
	// "" -> 1
}

// A string that does not parse is a *ParseError saying where and what was
// expected.
func ExampleParseError() {
	_, err := units.Parse("kg*m/s^")
	var pe *units.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Column, pe.Expected)
	}
	_, err = units.Parse("km/h")
	fmt.Println(err)
	// Output:
	// 8 an integer exponent, e.g. 2, -1 or (1/2)
	// unit "km/h": at column 1: expected a unit symbol (kg m s A K mol cd N J W Pa C V Hz Ω ohm T F Wb H S rad sr; no prefixes such as km), found "km"
}

// Dimensions multiply, divide, take rational powers and compare.
func ExampleDim_Mul() {
	force := units.MustParse("N")
	length := units.MustParse("m")
	energy := force.Mul(length)
	fmt.Println(energy.Equal(units.MustParse("J")))
	fmt.Println(energy.Div(units.MustParse("s")).Equal(units.MustParse("W")))
	fmt.Println(units.MustParse("m^2/s^2").Pow(1, 2))
	fmt.Println(units.MustParse("V/A").Equal(units.MustParse("Ω")), units.MustParse("rad").Dimensionless())
	// Output:
	// true
	// true
	// m*s^-1
	// true true
}

// The pendulum's period T, length L and gravity g form one dimensionless
// group, T²·g/L, so T = C·sqrt(L/g) for a pure number C (2π).
func ExampleGroups() {
	L, g, T := units.MustParse("m"), units.MustParse("m/s^2"), units.MustParse("s")
	fmt.Println(units.Groups([]units.Dim{L, g, T}))
	// Output:
	// [[-1 1 2]]
}
