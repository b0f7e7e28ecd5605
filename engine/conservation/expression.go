package conservation

import (
	"math"
	"strconv"
	"strings"
)

const (
	// maxNiceMultiplier is the largest multiplier tried when looking for an
	// integer form of the coefficients (x^2 + 2*v^2, 3*a - 2*b, ...).
	maxNiceMultiplier = 12
	// niceSlack is how far from an integer a scaled coefficient may be and
	// still be rounded to it; the rounded quantity must also stay conserved.
	niceSlack = 0.02
)

// normalise rescales the candidate for reading: the first term in library
// order gets a positive sign, and the coefficients become small integers when
// some multiplier of their ratios is within niceSlack of integers and the
// rounded quantity remains conserved about as well as the fitted one;
// otherwise the largest |coefficient| becomes 1.
func (p *problem) normalise(c candidate, tol float64) candidate {
	c.coef = append([]float64(nil), c.coef...)
	if c.coef[0] < 0 {
		for i := range c.coef {
			c.coef[i] = -c.coef[i]
		}
	}
	smallest, largest := math.Inf(1), 0.0
	for _, v := range c.coef {
		smallest = math.Min(smallest, math.Abs(v))
		largest = math.Max(largest, math.Abs(v))
	}
	for m := 1; m <= maxNiceMultiplier; m++ {
		rounded := make([]float64, len(c.coef))
		ok := true
		for i, v := range c.coef {
			x := float64(m) * v / smallest
			rounded[i] = math.Round(x)
			if math.Abs(x-rounded[i]) > niceSlack {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		r := candidate{support: c.support, coef: rounded}
		p.assess(&r)
		if p.accepted(&r, tol) && r.relVar <= c.relVar+0.1*tol {
			return r
		}
		break // the simplest integer form does not fit; larger ones would not read better
	}
	r := candidate{support: c.support, coef: make([]float64, len(c.coef))}
	for i, v := range c.coef {
		r.coef[i] = v / largest
	}
	p.assess(&r)
	return r
}

// expression writes the candidate in infix notation with ^ for powers, which
// sympy reads (sympify converts ^ to **).
func (p *problem) expression(c candidate) string {
	var b strings.Builder
	for a, k := range c.support {
		v := c.coef[a]
		name := p.terms[k].name
		switch {
		case a == 0 && v < 0:
			b.WriteString("-")
		case a > 0 && v < 0:
			b.WriteString(" - ")
		case a > 0:
			b.WriteString(" + ")
		}
		if mag := math.Abs(v); mag != 1 {
			b.WriteString(formatCoefficient(mag))
			b.WriteString("*")
		}
		b.WriteString(name)
	}
	return b.String()
}

// formatCoefficient prints integers exactly and other values with four
// significant digits.
func formatCoefficient(v float64) string {
	if v == math.Trunc(v) && v < 1e9 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
