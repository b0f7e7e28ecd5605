package units

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// ParseError is a unit string that does not parse: Column is the 1-based
// position (in characters) of the problem in Input, Expected what the
// grammar allows there and Found what is there instead ("end of input"
// past the end).
type ParseError struct {
	Input    string
	Column   int
	Expected string
	Found    string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("unit %q: at column %d: expected %s, found %s", e.Input, e.Column, e.Expected, e.Found)
}

// Parse reads a unit string into its dimension. The grammar:
//
//	unit     = product | ""
//	product  = power { ("*" | "·" | "/" | " ") power }   left to right: a/b*c is (a/b)*c
//	power    = factor [ ("^" | "**") exponent ]
//	factor   = symbol | "1" | "(" product ")"
//	exponent = int | "(" int [ "/" int ] ")"              int may carry a sign
//
// The symbols are the base units kg m s A K mol cd, the derived units N J
// W Pa C V Hz Ω (or ohm) T F Wb H S, and the dimensionless rad and sr, so
// "kg*m/s^2", "N", "m^2", "J/(mol*K)", "m^(1/2)", "1" and "" (dimensionless)
// all parse. Anything else is a *ParseError.
func Parse(s string) (Dim, error) {
	d, err := parseBase(s, symbols)
	if err != nil {
		err.Input = s
		return Dim{}, err
	}
	return d, nil
}

func parseBase(s string, syms map[string]Dim) (Dim, *ParseError) {
	p := &parser{in: []rune(s), syms: syms}
	p.skipSpace()
	if p.done() {
		return Dim{}, nil
	}
	d, err := p.product()
	if err != nil {
		return Dim{}, err
	}
	if !p.done() {
		return Dim{}, p.fail("an operator (* / ^) or the end of the unit")
	}
	return d, nil
}

type parser struct {
	in   []rune
	pos  int
	syms map[string]Dim
}

func (p *parser) done() bool { return p.pos >= len(p.in) }

func (p *parser) peek() rune {
	if p.done() {
		return 0
	}
	return p.in[p.pos]
}

func (p *parser) skipSpace() bool {
	start := p.pos
	for !p.done() && unicode.IsSpace(p.in[p.pos]) {
		p.pos++
	}
	return p.pos > start
}

func (p *parser) fail(expected string) *ParseError {
	found := "end of input"
	if !p.done() {
		end := p.pos + 1
		if isSymbolRune(p.in[p.pos]) {
			for end < len(p.in) && isSymbolRune(p.in[end]) {
				end++
			}
		}
		found = strconv.Quote(string(p.in[p.pos:end]))
	}
	return &ParseError{Input: string(p.in), Column: p.pos + 1, Expected: expected, Found: found}
}

func isSymbolRune(r rune) bool { return unicode.IsLetter(r) }

func (p *parser) product() (Dim, *ParseError) {
	d, err := p.power()
	if err != nil {
		return Dim{}, err
	}
	for {
		spaced := p.skipSpace()
		if p.done() {
			return d, nil
		}
		op := p.peek()
		switch {
		case op == '*' || op == '·' || op == '/':
			p.pos++
			p.skipSpace()
		case spaced && (isSymbolRune(op) || op == '(' || op == '1'):
			op = '*'
		default:
			return d, nil
		}
		rhs, err := p.power()
		if err != nil {
			return Dim{}, err
		}
		if op == '/' {
			d = d.Div(rhs)
		} else {
			d = d.Mul(rhs)
		}
	}
}

func (p *parser) power() (Dim, *ParseError) {
	d, err := p.factor()
	if err != nil {
		return Dim{}, err
	}
	before := p.pos
	p.skipSpace()
	switch {
	case p.peek() == '^':
		p.pos++
	case p.peek() == '*' && p.pos+1 < len(p.in) && p.in[p.pos+1] == '*':
		p.pos += 2
	default:
		p.pos = before
		return d, nil
	}
	p.skipSpace()
	num, den, err := p.exponent()
	if err != nil {
		return Dim{}, err
	}
	return d.Pow(num, den), nil
}

func (p *parser) factor() (Dim, *ParseError) {
	switch r := p.peek(); {
	case r == '(':
		p.pos++
		p.skipSpace()
		d, err := p.product()
		if err != nil {
			return Dim{}, err
		}
		p.skipSpace()
		if p.peek() != ')' {
			return Dim{}, p.fail(`")"`)
		}
		p.pos++
		return d, nil
	case r == '1':
		p.pos++
		return Dim{}, nil
	case isSymbolRune(r):
		start := p.pos
		for !p.done() && isSymbolRune(p.peek()) {
			p.pos++
		}
		name := string(p.in[start:p.pos])
		d, ok := p.syms[name]
		if !ok {
			p.pos = start
			return Dim{}, p.fail("a unit symbol (" + strings.Join(Known(), " ") + "; no prefixes such as km)")
		}
		return d, nil
	}
	return Dim{}, p.fail(`a unit symbol, "1" or "("`)
}

// exponent reads an integer, or a parenthesised integer or fraction.
func (p *parser) exponent() (int64, int64, *ParseError) {
	if p.peek() != '(' {
		n, err := p.integer(true)
		return n, 1, err
	}
	p.pos++
	p.skipSpace()
	num, err := p.integer(true)
	if err != nil {
		return 0, 0, err
	}
	den := int64(1)
	p.skipSpace()
	if p.peek() == '/' {
		p.pos++
		p.skipSpace()
		if den, err = p.integer(false); err != nil {
			return 0, 0, err
		}
		if den == 0 {
			p.pos--
			return 0, 0, p.fail("a non-zero denominator")
		}
	}
	p.skipSpace()
	if p.peek() != ')' {
		return 0, 0, p.fail(`")" closing the exponent`)
	}
	p.pos++
	return num, den, nil
}

// maxExponent bounds exponents so that dimensional algebra cannot overflow.
const maxExponent = 1000

func (p *parser) integer(signed bool) (int64, *ParseError) {
	start := p.pos
	if signed && (p.peek() == '-' || p.peek() == '+') {
		p.pos++
	}
	digits := p.pos
	for !p.done() && p.peek() >= '0' && p.peek() <= '9' {
		p.pos++
	}
	if p.pos == digits {
		return 0, p.fail("an integer exponent, e.g. 2, -1 or (1/2)")
	}
	n, err := strconv.ParseInt(string(p.in[start:p.pos]), 10, 64)
	if err != nil || n > maxExponent || n < -maxExponent {
		p.pos = start
		return 0, p.fail(fmt.Sprintf("an exponent between -%d and %d", maxExponent, maxExponent))
	}
	return n, nil
}
