package symbolic

import "math/rand/v2"

// grammar holds what the search may build trees from, and the size limits.
type grammar struct {
	binary    []opcode
	unary     []opcode // functions, plus opPow when "^" is allowed
	seed      []opcode // further functions only the seeding passes write (SeedOperators)
	vars      []int    // usable column indices
	exponents []float64
	maxSize   int
	maxDepth  int
}

// Exponents tried for "^". Physics laws use small integer and half-integer
// powers; without division only positive integers keep a polynomial a
// polynomial.
var (
	physicsExponents    = []float64{2, 3, -1, -2, 0.5, -0.5, 1.5, 4, -3}
	polynomialExponents = []float64{2, 3, 4, 5}
)

// smallConstants are favoured when a fresh constant is drawn: integers and
// simple fractions are what laws contain, and LM refines them anyway.
var smallConstants = []float64{1, 2, 3, 0.5, -1, 4, 0.25, 10}

func (g *grammar) randomConst(rng *rand.Rand) float64 {
	if rng.IntN(2) == 0 {
		return smallConstants[rng.IntN(len(smallConstants))]
	}
	return rng.NormFloat64() * 2
}

func (g *grammar) randomExponent(rng *rand.Rand) float64 {
	return g.exponents[rng.IntN(len(g.exponents))]
}

// terminal draws a leaf: mostly variables, sometimes a constant.
func (g *grammar) terminal(rng *rand.Rand) node {
	if len(g.vars) > 0 && rng.Float64() < 0.8 {
		return varNode(g.vars[rng.IntN(len(g.vars))])
	}
	return constNode(g.randomConst(rng))
}

// randomTree builds a tree of complexity at most budget and depth at most
// maxDepth.
func (g *grammar) randomTree(rng *rand.Rand, budget, maxDepth int) tree {
	return g.grow(rng, budget, maxDepth, nil)
}

func (g *grammar) grow(rng *rand.Rand, budget, depth int, out tree) tree {
	if budget <= 1 || depth <= 1 || rng.Float64() < 0.1 {
		return append(out, g.terminal(rng))
	}
	canBinary := len(g.binary) > 0 && budget >= 3
	useUnary := len(g.unary) > 0 && (!canBinary || rng.Float64() < 0.25)
	if useUnary {
		op := g.unary[rng.IntN(len(g.unary))]
		rest := budget - op.cost()
		if rest < 1 {
			return append(out, g.terminal(rng))
		}
		if rest == 1 && len(g.vars) > 0 {
			// A function of a constant is a constant: use a variable.
			out = append(out, varNode(g.vars[rng.IntN(len(g.vars))]))
		} else {
			out = g.grow(rng, rest, depth-1, out)
		}
		if op == opPow {
			return append(out, powNode(g.randomExponent(rng)))
		}
		return append(out, opNode(op))
	}
	if !canBinary {
		return append(out, g.terminal(rng))
	}
	op := g.binary[rng.IntN(len(g.binary))]
	rest := budget - 1
	left := 1 + rng.IntN(rest-1)
	out = g.grow(rng, left, depth-1, out)
	out = g.grow(rng, rest-left, depth-1, out)
	return append(out, opNode(op))
}

// fits reports whether t respects the size and depth limits.
func (g *grammar) fits(t tree) bool {
	return t.complexity() <= g.maxSize && t.depth() <= g.maxDepth
}
