package symbolic

import "math"

// simplify returns an equivalent expression with constant subexpressions
// folded, identities removed (x*1, x+0, x^1, ...) and numeric factors
// gathered at the front of products, so printed models carry no redundant
// constants and their complexity is honest.
func simplify(e *expr) *expr {
	if len(e.args) == 0 {
		return e
	}
	args := make([]*expr, len(e.args))
	allConst := true
	for i, a := range e.args {
		args[i] = simplify(a)
		allConst = allConst && args[i].isConst()
	}
	if allConst {
		var v float64
		if len(args) == 1 {
			v = applyUnary(e.op, args[0].c, e.c)
		} else {
			v = applyBinary(e.op, args[0].c, args[1].c)
		}
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			return econst(v)
		}
	}
	switch e.op {
	case opAdd:
		return simplifyAdd(args[0], args[1])
	case opSub:
		return simplifySub(args[0], args[1])
	case opMul:
		return simplifyMul(args[0], args[1])
	case opDiv:
		return simplifyDiv(args[0], args[1])
	case opPow:
		return simplifyPow(args[0], e.c)
	}
	return eun(e.op, args[0], e.c)
}

// splitTerm separates an additive constant: x + c → (c, x); c → (c, nil).
func splitTerm(e *expr) (float64, *expr) {
	switch {
	case e.isConst():
		return e.c, nil
	case e.op == opAdd && e.args[1].isConst():
		return e.args[1].c, e.args[0]
	}
	return 0, e
}

// splitFactor separates a multiplicative constant: c*x → (c, x); c → (c, nil).
func splitFactor(e *expr) (float64, *expr) {
	switch {
	case e.isConst():
		return e.c, nil
	case e.op == opMul && e.args[0].isConst():
		return e.args[0].c, e.args[1]
	case e.op == opDiv && e.args[0].isConst() && e.args[0].c != 1:
		return e.args[0].c, ebin(opDiv, econst(1), e.args[1])
	}
	return 1, e
}

func simplifyAdd(l, r *expr) *expr {
	cl, xl := splitTerm(l)
	cr, xr := splitTerm(r)
	c := cl + cr
	var rest *expr
	switch {
	case xl == nil:
		rest = xr
	case xr == nil:
		rest = xl
	case xl.equal(xr):
		rest = simplifyMul(econst(2), xl)
	default:
		// x + (-1)*y prints and reads better as x - y.
		if k, y := splitFactor(xr); k == -1 && y != nil {
			rest = ebin(opSub, xl, y)
		} else {
			rest = ebin(opAdd, xl, xr)
		}
	}
	switch {
	case rest == nil:
		return econst(c)
	case c == 0:
		return rest
	}
	return ebin(opAdd, rest, econst(c))
}

func simplifySub(l, r *expr) *expr {
	if l.equal(r) {
		return econst(0)
	}
	if r.isConst() {
		return simplifyAdd(l, econst(-r.c))
	}
	k, y := splitFactor(r)
	if k != 1 && y != nil {
		// x - k*y → x + (-k)*y so constants stay gathered.
		return simplifyAdd(l, simplifyMul(econst(-k), y))
	}
	if l.isConstVal(0) {
		return simplifyMul(econst(-1), r)
	}
	if cl, xl := splitTerm(l); cl != 0 && xl != nil {
		return simplifyAdd(ebin(opSub, xl, r), econst(cl))
	}
	return ebin(opSub, l, r)
}

func simplifyMul(l, r *expr) *expr {
	cl, xl := splitFactor(l)
	cr, xr := splitFactor(r)
	c := cl * cr
	if c == 0 {
		return econst(0)
	}
	var rest *expr
	switch {
	case xl == nil:
		rest = xr
	case xr == nil:
		rest = xl
	default:
		rest = mulPowers(xl, xr)
	}
	switch {
	case rest == nil:
		return econst(c)
	case c == 1:
		return rest
	}
	// A constant times a reciprocal reads as a single division: c*(1/x) → c/x.
	if rest.op == opDiv && rest.args[0].isConstVal(1) {
		return ebin(opDiv, econst(c), rest.args[1])
	}
	return ebin(opMul, econst(c), rest)
}

// mulPowers multiplies two non-constant factors, merging equal bases
// with integer exponents: x*x → x^2, x*x^2 → x^3.
func mulPowers(l, r *expr) *expr {
	if isReciprocal(r) {
		return simplifyDiv(l, r.args[1])
	}
	if isReciprocal(l) {
		return simplifyDiv(r, l.args[1])
	}
	bl, kl := powBase(l)
	br, kr := powBase(r)
	if bl.equal(br) && kl == math.Trunc(kl) && kr == math.Trunc(kr) {
		return simplifyPow(bl, kl+kr)
	}
	return ebin(opMul, l, r)
}

func isReciprocal(e *expr) bool { return e.op == opDiv && e.args[0].isConstVal(1) }

func powBase(e *expr) (*expr, float64) {
	if e.op == opPow {
		return e.args[0], e.c
	}
	return e, 1
}

func simplifyDiv(l, r *expr) *expr {
	if l.equal(r) {
		return econst(1)
	}
	cl, xl := splitFactor(l)
	cr, xr := splitFactor(r)
	if cr == 0 {
		return ebin(opDiv, l, r)
	}
	c := cl / cr
	switch {
	case c == 0:
		return econst(0)
	case xr == nil:
		if xl == nil {
			return econst(c)
		}
		return simplifyMul(econst(c), xl)
	case xl == nil:
		return ebin(opDiv, econst(c), xr)
	}
	var q *expr
	if isReciprocal(xl) { // (1/a)/b → 1/(a*b)
		q = ebin(opDiv, econst(1), mulPowers(xl.args[1], xr))
	} else {
		q = ebin(opDiv, xl, xr)
	}
	if c == 1 {
		return q
	}
	return ebin(opMul, econst(c), q)
}

func simplifyPow(x *expr, k float64) *expr {
	switch {
	case k == 1:
		return x
	case k == 0:
		return econst(1)
	case x.isConst():
		if v := pow(x.c, k); !math.IsNaN(v) && !math.IsInf(v, 0) {
			return econst(v)
		}
	case x.op == opPow && x.c == math.Trunc(x.c) && k == math.Trunc(k):
		// (x^a)^b = x^(ab) holds for integer exponents whatever the sign of x.
		return simplifyPow(x.args[0], x.c*k)
	}
	return eun(opPow, x, k)
}

// simplifyTree applies simplify to a postfix tree.
func simplifyTree(t tree) tree {
	return simplify(toExpr(t)).postfix(nil)
}
