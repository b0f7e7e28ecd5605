package symbolic

import (
	"errors"
	"fmt"
	"slices"
)

// Combine joins models fitted on subsets of the inputs into one seed over
// all of them: the sum of the parts, or their product. vars[k][i] is the
// input index, in the search the seed is for, of part k's i-th input.
// names are that search's input names; they only label the result. The
// result is meant for Options.Seeds: its constants are the parts', and the
// search refits them on its own data.
func Combine(parts []*Model, vars [][]int, product bool, names []string) (*Model, error) {
	if len(parts) == 0 || len(parts) != len(vars) {
		return nil, errors.New("symbolic: Combine needs one variable map per part")
	}
	join := opAdd
	if product {
		join = opMul
	}
	var out tree
	for k, m := range parts {
		if m == nil || len(m.t) == 0 {
			return nil, fmt.Errorf("symbolic: part %d has no expression", k)
		}
		for _, n := range m.t {
			if n.op == opVar {
				if int(n.v) >= len(vars[k]) {
					return nil, fmt.Errorf("symbolic: part %d uses input %d but maps %d", k, n.v, len(vars[k]))
				}
				n.v = int32(vars[k][n.v])
				if int(n.v) >= len(names) {
					return nil, fmt.Errorf("symbolic: part %d maps to input %d of %d", k, n.v, len(names))
				}
			}
			out = append(out, n)
		}
		if k > 0 {
			out = append(out, opNode(join))
		}
	}
	return &Model{Expression: format(toExpr(out), names), Complexity: out.complexity(), t: out}, nil
}

// allows reports whether a seed from outside the search stays inside its
// grammar: only allowed operators and exponents, only usable inputs, and
// within the size and depth limits.
func (g *grammar) allows(t tree) bool {
	if !t.valid() || !g.fits(t) {
		return false
	}
	b := newSeedBuilder(g)
	for _, n := range t {
		switch {
		case n.op == opConst:
		case n.op == opVar:
			if !slices.Contains(g.vars, int(n.v)) {
				return false
			}
		case !b.has[n.op]:
			return false
		case n.op == opPow && !b.exponents[n.c]:
			return false
		}
	}
	return true
}
