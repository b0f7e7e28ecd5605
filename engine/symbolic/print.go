package symbolic

import (
	"strconv"
	"strings"
)

// Precedence levels for infix printing.
const (
	precSum     = 1
	precProduct = 2
	precPower   = 4
	precAtom    = 5
)

// formatConst prints a constant with 6 significant digits in a form that
// both Go and sympy parse ("2.5", "1e-05", "3").
func formatConst(c float64) string {
	if c == 0 {
		return "0" // also turns −0 into 0
	}
	return strconv.FormatFloat(c, 'g', 6, 64)
}

// format renders e in infix with ^ for powers and explicit *, readable by
// sympy's parse_expr/sympify.
func format(e *expr, names []string) string {
	s, _ := formatPrec(e, names)
	return s
}

func formatPrec(e *expr, names []string) (string, int) {
	switch e.op {
	case opConst:
		if e.c < 0 {
			// Negative literals bind like a product: fine first in a
			// product or a sum, parenthesised anywhere else.
			return formatConst(e.c), precProduct
		}
		return formatConst(e.c), precAtom
	case opVar:
		return names[e.v], precAtom
	case opPow:
		base, p := formatPrec(e.args[0], names)
		if p < precAtom || strings.HasPrefix(base, "-") {
			base = "(" + base + ")"
		}
		exp := formatConst(e.c)
		if e.c < 0 {
			exp = "(" + exp + ")"
		}
		return base + "^" + exp, precPower
	case opAdd, opSub, opMul, opDiv:
		return formatBinary(e, names)
	}
	arg, _ := formatPrec(e.args[0], names)
	return e.op.String() + "(" + arg + ")", precAtom
}

func formatBinary(e *expr, names []string) (string, int) {
	l, r := e.args[0], e.args[1]
	op := e.op
	// a + (negative thing) prints as a subtraction of its magnitude.
	if op == opAdd {
		if n := negated(r); n != nil {
			op, r = opSub, n
		}
	}
	prec := precSum
	if op == opMul || op == opDiv {
		prec = precProduct
	}
	rs, rp := formatPrec(r, names)
	if op == opMul && l.isConstVal(-1) {
		if rp < prec || strings.HasPrefix(rs, "-") {
			rs = "(" + rs + ")"
		}
		return "-" + rs, prec
	}
	ls, lp := formatPrec(l, names)
	if lp < prec {
		ls = "(" + ls + ")"
	}
	// The right operand needs parentheses when it binds more loosely, when
	// the operator is not associative over it (a-(b+c), a/(b*c)), or when it
	// starts with a minus sign.
	if rp < prec || (rp == prec && (op == opSub || op == opDiv)) || strings.HasPrefix(rs, "-") {
		rs = "(" + rs + ")"
	}
	sym := " " + op.String() + " "
	if prec == precProduct {
		sym = op.String()
	}
	return ls + sym + rs, prec
}

// negated returns −e when e is visibly negative (a negative constant or a
// product/quotient led by one), else nil.
func negated(e *expr) *expr {
	switch {
	case e.op == opConst && e.c < 0:
		return econst(-e.c)
	case (e.op == opMul || e.op == opDiv) && e.args[0].op == opConst && e.args[0].c < 0:
		if e.op == opMul && e.args[0].c == -1 {
			return e.args[1]
		}
		return ebin(e.op, econst(-e.args[0].c), e.args[1])
	}
	return nil
}
