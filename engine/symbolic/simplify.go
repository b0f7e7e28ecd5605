package symbolic

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// simplify returns an equivalent expression in a canonical form: constant
// subexpressions folded, products and quotients gathered into
// coefficient·Π base^k with equal bases merged (x·y/x → y, x·x → x^2),
// sums gathered into Σ coefficient·term with equal terms merged, and
// identities (x·1, x+0, x^1) gone. Printed models then carry no redundant
// constants, their complexity is honest, and equivalent children in the
// search look alike.
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
	case opAdd, opSub:
		return simplifySum(&expr{op: e.op, args: args})
	case opMul, opDiv, opPow:
		return simplifyProduct(&expr{op: e.op, c: e.c, args: args})
	}
	return eun(e.op, args[0], e.c)
}

// factor is base^k inside a product.
type factor struct {
	base *expr
	key  string
	k    float64
}

// simplifyProduct rewrites a product/quotient/power as c·Π base^k.
func simplifyProduct(e *expr) *expr {
	coef := 1.0
	var fs []factor
	collectFactors(e, 1, &coef, &fs)
	if coef == 0 || math.IsNaN(coef) || math.IsInf(coef, 0) {
		if coef == 0 {
			return econst(0)
		}
		return e // leave undefined arithmetic alone
	}
	slices.SortStableFunc(fs, func(a, b factor) int { return strings.Compare(a.key, b.key) })
	fs = groupPowers(fs)
	var num, den *expr
	for _, f := range fs {
		switch {
		case f.k > 0:
			num = times(num, powOf(f.base, f.k))
		case f.k < 0:
			den = times(den, powOf(f.base, -f.k))
		}
	}
	switch {
	case num == nil && den == nil:
		return econst(coef)
	case den == nil:
		if coef == 1 {
			return num
		}
		return ebin(opMul, econst(coef), num)
	case num == nil:
		return ebin(opDiv, econst(coef), den)
	}
	q := ebin(opDiv, num, den)
	if coef == 1 {
		return q
	}
	return ebin(opMul, econst(coef), q)
}

// groupPowers writes the factors that share an integer power |k| ≥ 2 as
// one power of their product or quotient: v^2/c^2 as (v/c)^2 and
// 1/(a^2·b^2) as 1/(a·b)^2, two nodes shorter for each factor merged, so
// that a law's complexity is that of its shortest common form
// (m0/sqrt(1 − (v/c)^2), Feynman I.10.7) and not of the expanded one. A
// class with factors of both signs goes to the numerator.
//
// simplify runs on every child of the search, so a product without such a
// class returns its factors as they are, without allocating.
func groupPowers(fs []factor) []factor {
	// shared reports whether f's power |k| is an integer ≥ 2 that another
	// factor shares.
	shared := func(f factor) bool {
		a := math.Abs(f.k)
		if a < 2 || a != math.Trunc(a) {
			return false
		}
		n := 0
		for _, g := range fs {
			if math.Abs(g.k) == a {
				n++
			}
		}
		return n >= 2
	}
	if !slices.ContainsFunc(fs, shared) {
		return fs
	}
	var out []factor
	for i, f := range fs {
		a := math.Abs(f.k)
		switch {
		case !shared(f):
			out = append(out, f)
			continue
		case slices.ContainsFunc(fs[:i], func(g factor) bool { return math.Abs(g.k) == a }):
			continue // the class is written at its first factor
		}
		var num, den *expr
		for _, g := range fs[i:] {
			switch g.k {
			case a:
				num = times(num, g.base)
			case -a:
				den = times(den, g.base)
			}
		}
		base, k := num, a
		switch {
		case num == nil:
			base, k = den, -a
		case den != nil:
			base = ebin(opDiv, num, den)
		}
		out = append(out, factor{base: base, key: base.key(), k: k})
	}
	return out
}

// collectFactors flattens e^mult into coef·Π base^k. Integer powers are
// distributed over products ((ab)^2 = a^2·b^2 for any signs); other powers
// keep their base whole.
func collectFactors(e *expr, mult float64, coef *float64, fs *[]factor) {
	switch {
	case e.op == opConst:
		*coef *= pow(e.c, mult)
	case e.op == opMul:
		collectFactors(e.args[0], mult, coef, fs)
		collectFactors(e.args[1], mult, coef, fs)
	case e.op == opDiv:
		collectFactors(e.args[0], mult, coef, fs)
		collectFactors(e.args[1], -mult, coef, fs)
	case e.op == opPow && e.c == math.Trunc(e.c):
		collectFactors(e.args[0], mult*e.c, coef, fs)
	case e.op == opPow:
		s, base := unitSum(e.args[0])
		*coef *= pow(s, mult*e.c)
		addFactor(fs, base, mult*e.c)
	case e.op == opSqrt:
		s, base := unitSum(e.args[0])
		*coef *= pow(s, mult/2)
		addFactor(fs, eun(opSqrt, base, 0), mult)
	default:
		s, base := unitSum(e)
		*coef *= pow(s, mult)
		addFactor(fs, base, mult)
	}
}

// unitSum writes a sum whose terms all carry a coefficient other than ±1
// as s·(sum with the first coefficient ±1), s > 0, and returns anything
// else as 1·e. In a product the factor s then joins the product's
// coefficient, so c·(a·x + b·y)^k, whose a, b and c are redundant for
// fitting (one of them can be fixed), has one canonical form and prints
// with the law's own ratio b/a, which snapping can round.
func unitSum(e *expr) (float64, *expr) {
	if e.op != opAdd && e.op != opSub {
		return 1, e
	}
	c0 := 0.0
	var ts []term
	collectTerms(e, 1, &c0, &ts)
	if len(ts) == 0 {
		return 1, e
	}
	for _, t := range ts {
		if math.Abs(t.coef) == 1 || t.coef == 0 {
			return 1, e
		}
	}
	s := math.Abs(ts[0].coef)
	if math.IsInf(s, 0) || math.IsNaN(s) || math.IsInf(1/s, 0) {
		return 1, e
	}
	for i := range ts {
		ts[i].coef /= s
	}
	return s, buildSum(c0/s, ts)
}

func addFactor(fs *[]factor, base *expr, k float64) {
	key := base.key()
	for i := range *fs {
		if (*fs)[i].key == key {
			(*fs)[i].k += k
			return
		}
	}
	*fs = append(*fs, factor{base: base, key: key, k: k})
}

func powOf(b *expr, k float64) *expr {
	if k == 1 {
		return b
	}
	return eun(opPow, b, k)
}

func times(acc, f *expr) *expr {
	if acc == nil {
		return f
	}
	return ebin(opMul, acc, f)
}

// term is coef·t inside a sum.
type term struct {
	t    *expr
	key  string
	coef float64
}

// simplifySum rewrites a sum/difference as Σ c_i·t_i + c0 with equal terms
// merged; the constant goes last and negative terms become subtractions.
func simplifySum(e *expr) *expr {
	c0 := 0.0
	var ts []term
	collectTerms(e, 1, &c0, &ts)
	return buildSum(c0, ts)
}

// buildSum writes Σ c_i·t_i + c0. A sum does not open with a negated term
// when it has a positive one: the first positive term goes first, or the
// constant when no term is positive (1 − (v/c)^2, not −(v/c)^2 + 1, which
// costs the −1 and a product).
func buildSum(c0 float64, ts []term) *expr {
	var acc *expr
	if first := slices.IndexFunc(ts, func(t term) bool { return t.coef != 0 }); first >= 0 && ts[first].coef < 0 {
		if pos := slices.IndexFunc(ts, func(t term) bool { return t.coef > 0 }); pos >= 0 {
			ts = append(append([]term{ts[pos]}, ts[:pos]...), ts[pos+1:]...)
		} else if c0 > 0 {
			acc, c0 = econst(c0), 0
		}
	}
	for _, t := range ts {
		if t.coef == 0 {
			continue
		}
		switch {
		case acc == nil:
			acc = scaled(t.coef, t.t)
		case t.coef < 0:
			acc = ebin(opSub, acc, scaled(-t.coef, t.t))
		default:
			acc = ebin(opAdd, acc, scaled(t.coef, t.t))
		}
	}
	switch {
	case acc == nil:
		return econst(c0)
	case c0 == 0:
		return acc
	}
	return ebin(opAdd, acc, econst(c0))
}

func collectTerms(e *expr, sign float64, c0 *float64, ts *[]term) {
	switch e.op {
	case opConst:
		*c0 += sign * e.c
	case opAdd:
		collectTerms(e.args[0], sign, c0, ts)
		collectTerms(e.args[1], sign, c0, ts)
	case opSub:
		collectTerms(e.args[0], sign, c0, ts)
		collectTerms(e.args[1], -sign, c0, ts)
	default:
		c, rest := splitFactor(e)
		key := rest.key()
		for i := range *ts {
			if (*ts)[i].key == key {
				(*ts)[i].coef += sign * c
				return
			}
		}
		*ts = append(*ts, term{t: rest, key: key, coef: sign * c})
	}
}

// scaled returns c·t in canonical product form.
func scaled(c float64, t *expr) *expr {
	if c == 1 {
		return t
	}
	return simplifyProduct(ebin(opMul, econst(c), t))
}

// splitFactor separates a leading constant: c*x → (c, x), c/x → (c, 1/x).
func splitFactor(e *expr) (float64, *expr) {
	switch {
	case e.op == opMul && e.args[0].isConst():
		return e.args[0].c, e.args[1]
	case e.op == opDiv && e.args[0].isConst() && e.args[0].c != 1:
		return e.args[0].c, ebin(opDiv, econst(1), e.args[1])
	}
	return 1, e
}

// key is a canonical string of e, used to recognise equal subexpressions
// and to order factors.
func (e *expr) key() string {
	if e.keyCache != "" {
		return e.keyCache
	}
	var b strings.Builder
	switch e.op {
	case opVar:
		b.WriteString("v")
		b.WriteString(strconv.Itoa(e.v))
	case opConst:
		b.WriteString(strconv.FormatFloat(e.c, 'g', -1, 64))
	default:
		b.WriteString(e.op.String())
		if e.op == opPow {
			b.WriteString(strconv.FormatFloat(e.c, 'g', -1, 64))
		}
		b.WriteByte('(')
		for i, a := range e.args {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(a.key())
		}
		b.WriteByte(')')
	}
	e.keyCache = b.String()
	return e.keyCache
}

// simplifyTree applies simplify to a postfix tree.
func simplifyTree(t tree) tree {
	return simplify(toExpr(t)).postfix(nil)
}
