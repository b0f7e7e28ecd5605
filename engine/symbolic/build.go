package symbolic

import "math"

// termBuilder writes library terms as trees using only allowed operators,
// so seeds never smuggle in an operator the caller excluded.
type termBuilder struct {
	has       map[opcode]bool
	exponents map[float64]bool
}

func newTermBuilder(g *grammar) *termBuilder {
	b := &termBuilder{has: map[opcode]bool{}, exponents: map[float64]bool{}}
	for _, o := range g.binary {
		b.has[o] = true
	}
	for _, o := range g.unary {
		b.has[o] = true
	}
	for _, k := range g.exponents {
		b.exponents[k] = true
	}
	return b
}

// power returns x_v^k, or false if the operators cannot express it.
func (b *termBuilder) power(v int, k float64) (tree, bool) {
	x := tree{varNode(v)}
	switch {
	case k == 1:
		return x, true
	case b.has[opPow] && k == math.Round(2*k)/2 && (b.has[opDiv] || (k > 0 && k == math.Trunc(k))):
		// Without division the search only uses positive integer powers.
		return append(x, powNode(k)), true
	case k > 1 && k == math.Trunc(k) && b.has[opMul]:
		t := x.clone()
		for i := 1; i < int(k); i++ {
			t = append(t, varNode(v), opNode(opMul))
		}
		return t, true
	case k == 0.5 && b.has[opSqrt]:
		return append(x, opNode(opSqrt)), true
	case k < 0 && b.has[opDiv]:
		d, ok := b.power(v, -k)
		if !ok {
			return nil, false
		}
		return append(append(tree{constNode(1)}, d...), opNode(opDiv)), true
	}
	return nil, false
}

// monomial returns Π x_v^k over the given powers (zero powers skipped).
func (b *termBuilder) monomial(vars []int, powers []float64) (tree, bool) {
	var num, den tree
	nNum, nDen := 0, 0
	usePow := b.has[opPow]
	for i, v := range vars {
		k := powers[i]
		if k == 0 {
			continue
		}
		var f tree
		var ok bool
		if k < 0 && !usePow {
			if !b.has[opDiv] {
				return nil, false
			}
			f, ok = b.power(v, -k)
			if !ok {
				return nil, false
			}
			den = b.times(den, f, nDen)
			nDen++
			continue
		}
		if f, ok = b.power(v, k); !ok {
			return nil, false
		}
		num = b.times(num, f, nNum)
		nNum++
	}
	if (nNum > 1 || nDen > 1) && !b.has[opMul] {
		return nil, false
	}
	switch {
	case nNum == 0 && nDen == 0:
		return nil, false
	case nDen == 0:
		return num, true
	case nNum == 0:
		num = tree{constNode(1)}
	}
	return append(append(num, den...), opNode(opDiv)), true
}

func (b *termBuilder) times(acc, f tree, count int) tree {
	if count == 0 {
		return f
	}
	return append(append(acc, f...), opNode(opMul))
}

// linearCombination returns Σ w_i·t_i as a tree, up to a positive factor,
// or false if + and * are not both allowed.
//
// Every tree is scored with linear scaling (a + b·t), so only the ratios of
// the weights matter. The combination is written relative to the largest
// weight magnitude, and a term whose relative weight is ±1 carries no
// constant. A law with equal weights, such as ½·m·(v² + u² + w²), then
// fits a tight complexity bound, which it did not as 0.5·m·v² + 0.5·m·u²
// + 0.5·m·w². The factor is positive so that a combination under a square
// root or in a quotient keeps its sign. A single term needs no weight.
func (b *termBuilder) linearCombination(terms []tree, w []float64) (tree, bool) {
	if len(terms) == 1 {
		return terms[0].clone(), true
	}
	var scale float64
	for _, v := range w {
		scale = math.Max(scale, math.Abs(v))
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, false
	}
	return b.weightedSum(terms, w, scale)
}

// weightedSum returns Σ (w_i/scale)·t_i as a tree, or false if + and * are
// not both allowed. A relative weight of ±1 carries no constant.
func (b *termBuilder) weightedSum(terms []tree, w []float64, scale float64) (tree, bool) {
	if !b.has[opMul] || (len(terms) > 1 && !b.has[opAdd]) {
		return nil, false
	}
	// unit is how close a relative weight must be to ±1 to count as ±1:
	// the least-squares weights of an exact support agree to about 1e-12.
	const unit = 1e-9
	var out tree
	for i, t := range terms {
		r := w[i] / scale
		op := opAdd
		switch {
		case math.Abs(r-1) <= unit:
			out = append(out, t...)
		case i > 0 && b.has[opSub] && math.Abs(r+1) <= unit:
			out = append(out, t...)
			op = opSub
		default:
			out = append(out, constNode(r))
			out = append(out, t...)
			out = append(out, opNode(opMul))
		}
		if i > 0 {
			out = append(out, opNode(op))
		}
	}
	return out, true
}
