// Package units parses SI unit strings into dimensions — exponent vectors
// over the seven SI base units kg, m, s, A, K, mol and cd — and does
// dimensional algebra on them: products, quotients, rational powers and
// equality. It tracks dimension, not scale: "N" and "kg*m/s^2" are the
// same dimension, and prefixed units (km, ms) are not accepted, because a
// prefix changes the scale and never the dimension (BIPM, The International
// System of Units, 9th ed. 2019, §2.3 and §3).
//
// Groups finds the dimensionless products of a set of variables
// (Buckingham's π theorem: Buckingham 1914, Phys. Rev. 4, 345).
package units

import (
	"fmt"
	"strings"
)

// Base units, in the order of a Dim's exponents.
const (
	Kilogram = iota
	Metre
	Second
	Ampere
	Kelvin
	Mole
	Candela
	NumBase
)

// BaseSymbols are the symbols of the base units, in exponent order.
var BaseSymbols = [NumBase]string{"kg", "m", "s", "A", "K", "mol", "cd"}

// Rat is a rational exponent Num/Den in lowest terms with Den > 0.
type Rat struct{ Num, Den int64 }

func newRat(n, d int64) Rat {
	if d < 0 {
		n, d = -n, -d
	}
	if g := gcd(abs64(n), d); g > 1 {
		n, d = n/g, d/g
	}
	if n == 0 {
		d = 1
	}
	return Rat{n, d}
}

func (r Rat) norm() Rat {
	if r.Den == 0 {
		return Rat{0, 1}
	}
	return newRat(r.Num, r.Den)
}

func (r Rat) add(o Rat) Rat {
	r, o = r.norm(), o.norm()
	return newRat(r.Num*o.Den+o.Num*r.Den, r.Den*o.Den)
}

func (r Rat) mul(o Rat) Rat {
	r, o = r.norm(), o.norm()
	return newRat(r.Num*o.Num, r.Den*o.Den)
}

// Float is the exponent as a float64.
func (r Rat) Float() float64 {
	r = r.norm()
	return float64(r.Num) / float64(r.Den)
}

// IsZero reports whether the exponent is 0.
func (r Rat) IsZero() bool { return r.Num == 0 }

func (r Rat) String() string {
	r = r.norm()
	if r.Den == 1 {
		return fmt.Sprint(r.Num)
	}
	return fmt.Sprintf("(%d/%d)", r.Num, r.Den)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs64(a int64) int64 {
	if a < 0 {
		return -a
	}
	return a
}

// Dim is a physical dimension: the exponents of the SI base units. The zero
// value is dimensionless.
type Dim struct{ e [NumBase]Rat }

// Base returns the dimension of base unit i (Kilogram … Candela).
func Base(i int) Dim {
	var d Dim
	d.e[i] = Rat{1, 1}
	return d
}

// Exponent is the exponent of base unit i.
func (d Dim) Exponent(i int) Rat { return d.e[i].norm() }

// Floats returns the exponents as float64s, in base-unit order.
func (d Dim) Floats() [NumBase]float64 {
	var out [NumBase]float64
	for i, r := range d.e {
		out[i] = r.Float()
	}
	return out
}

// Mul is the dimension of a product.
func (d Dim) Mul(o Dim) Dim {
	for i := range d.e {
		d.e[i] = d.e[i].add(o.e[i])
	}
	return d
}

// Div is the dimension of a quotient.
func (d Dim) Div(o Dim) Dim { return d.Mul(o.Pow(-1, 1)) }

// Pow is the dimension raised to the rational power num/den; den must not
// be 0.
func (d Dim) Pow(num, den int64) Dim {
	if den == 0 {
		panic("units: power with denominator 0")
	}
	k := newRat(num, den)
	for i := range d.e {
		d.e[i] = d.e[i].mul(k)
	}
	return d
}

// Equal reports whether two dimensions are the same.
func (d Dim) Equal(o Dim) bool {
	for i := range d.e {
		if d.e[i].norm() != o.e[i].norm() {
			return false
		}
	}
	return true
}

// Dimensionless reports whether every exponent is 0.
func (d Dim) Dimensionless() bool { return d.Equal(Dim{}) }

// String writes the dimension in base units, e.g. "kg*m*s^-2"; "1" when it
// is dimensionless. Parse reads it back.
func (d Dim) String() string {
	var parts []string
	for i, r := range d.e {
		r = r.norm()
		switch {
		case r.IsZero():
		case r == Rat{1, 1}:
			parts = append(parts, BaseSymbols[i])
		default:
			parts = append(parts, BaseSymbols[i]+"^"+r.String())
		}
	}
	if len(parts) == 0 {
		return "1"
	}
	return strings.Join(parts, "*")
}

// named are the unit symbols Parse knows beyond the base units: the SI
// derived units with special names (BIPM SI Brochure, 9th ed., Table 4)
// that physics tables use most, "ohm" as an ASCII spelling of Ω, and the
// dimensionless rad and sr.
var named = map[string]string{
	"N":   "kg*m/s^2",
	"J":   "kg*m^2/s^2",
	"W":   "kg*m^2/s^3",
	"Pa":  "kg/(m*s^2)",
	"C":   "A*s",
	"V":   "kg*m^2/(s^3*A)",
	"Hz":  "1/s",
	"Ω":   "kg*m^2/(s^3*A^2)",
	"ohm": "kg*m^2/(s^3*A^2)",
	"T":   "kg/(s^2*A)",
	"F":   "s^4*A^2/(kg*m^2)",
	"Wb":  "kg*m^2/(s^2*A)",
	"H":   "kg*m^2/(s^2*A^2)",
	"S":   "s^3*A^2/(kg*m^2)",
	"rad": "1",
	"sr":  "1",
}

// symbols maps every known symbol to its dimension.
var symbols = func() map[string]Dim {
	m := map[string]Dim{}
	for i, s := range BaseSymbols {
		m[s] = Base(i)
	}
	for s, def := range named {
		d, err := parseBase(def, m)
		if err != nil {
			panic("units: bad definition of " + s + ": " + err.Error())
		}
		m[s] = d
	}
	return m
}()

// Known lists the unit symbols Parse accepts.
func Known() []string {
	out := append([]string(nil), BaseSymbols[:]...)
	return append(out, "N", "J", "W", "Pa", "C", "V", "Hz", "Ω", "ohm", "T", "F", "Wb", "H", "S", "rad", "sr")
}

// MustParse is Parse for strings known to be valid; it panics otherwise.
func MustParse(s string) Dim {
	d, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}
