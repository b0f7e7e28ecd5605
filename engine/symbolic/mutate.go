package symbolic

import (
	"math"
	"math/rand/v2"
)

// mutate returns a changed copy of t; the parent is never modified. If no
// variant within the limits is found, a copy of t is returned.
func (g *grammar) mutate(rng *rand.Rand, t tree) tree {
	for try := 0; try < 8; try++ {
		var c tree
		switch r := rng.Float64(); {
		case r < 0.25:
			c = g.replaceSubtree(rng, t)
		case r < 0.50:
			c = g.pointMutation(rng, t)
		case r < 0.65:
			c = g.insertNode(rng, t)
		case r < 0.80:
			c = g.deleteNode(rng, t)
		case r < 0.90:
			c = g.perturbConstants(rng, t)
		default:
			c = g.swapArguments(rng, t)
		}
		if c != nil && g.fits(c) {
			return c
		}
	}
	return t.clone()
}

// replaceSubtree swaps a random subtree for a fresh random one.
func (g *grammar) replaceSubtree(rng *rand.Rand, t tree) tree {
	i := rng.IntN(len(t))
	s := t.subtreeStart(i)
	room := g.maxSize - t.complexity() + t[s:i+1].complexity()
	budget := 1 + rng.IntN(max(1, min(room, 9)))
	return t.replace(s, i, g.randomTree(rng, budget, 4))
}

// pointMutation changes one node into another of the same arity.
func (g *grammar) pointMutation(rng *rand.Rand, t tree) tree {
	c := t.clone()
	i := rng.IntN(len(c))
	nd := &c[i]
	switch nd.op {
	case opVar:
		if len(g.vars) < 2 || rng.Float64() < 0.1 {
			*nd = constNode(g.randomConst(rng))
		} else {
			nd.v = int32(g.vars[rng.IntN(len(g.vars))])
		}
	case opConst:
		if len(g.vars) > 0 && rng.Float64() < 0.3 {
			*nd = varNode(g.vars[rng.IntN(len(g.vars))])
		} else {
			nd.c = g.randomConst(rng)
		}
	case opAdd, opSub, opMul, opDiv:
		if len(g.binary) == 0 {
			return c // only possible in seeds; nothing to swap it for
		}
		nd.op = g.binary[rng.IntN(len(g.binary))]
	default:
		if len(g.unary) == 0 {
			// A power node seeded by the sparse pass can appear under an operator set
			// without unary operators: nothing to swap it for, so leave it.
			return c
		}
		op := g.unary[rng.IntN(len(g.unary))]
		if op == opPow {
			*nd = powNode(g.randomExponent(rng))
		} else {
			*nd = opNode(op)
		}
	}
	return c
}

// insertNode wraps a subtree in a new operator: f(s) or s∘leaf / leaf∘s.
func (g *grammar) insertNode(rng *rand.Rand, t tree) tree {
	i := rng.IntN(len(t))
	s := t.subtreeStart(i)
	sub := t[s : i+1].clone()
	useUnary := len(g.unary) > 0 && (len(g.binary) == 0 || rng.Float64() < 0.4)
	if useUnary {
		op := g.unary[rng.IntN(len(g.unary))]
		if op == opPow {
			sub = append(sub, powNode(g.randomExponent(rng)))
		} else {
			sub = append(sub, opNode(op))
		}
		return t.replace(s, i, sub)
	}
	if len(g.binary) == 0 {
		return nil
	}
	op := g.binary[rng.IntN(len(g.binary))]
	leaf := g.terminal(rng)
	var w tree
	if rng.IntN(2) == 0 {
		w = append(append(sub, leaf), opNode(op))
	} else {
		w = append(append(tree{leaf}, sub...), opNode(op))
	}
	return t.replace(s, i, w)
}

// deleteNode replaces an operator by one of its arguments (hoisting it).
func (g *grammar) deleteNode(rng *rand.Rand, t tree) tree {
	var inner []int
	for i, nd := range t {
		if nd.op.arity() > 0 {
			inner = append(inner, i)
		}
	}
	if len(inner) == 0 {
		return nil
	}
	i := inner[rng.IntN(len(inner))]
	s := t.subtreeStart(i)
	child := i - 1 // right (or only) child ends just before its parent
	if t[i].op.arity() == 2 && rng.IntN(2) == 0 {
		child = t.subtreeStart(i-1) - 1 // left child
	}
	cs := t.subtreeStart(child)
	return t.replace(s, i, t[cs:child+1])
}

// perturbConstants jitters the constants multiplicatively, or redraws one.
func (g *grammar) perturbConstants(rng *rand.Rand, t tree) tree {
	c := t.clone()
	var idx []int
	for i, nd := range c {
		if nd.op == opConst {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	if rng.IntN(2) == 0 {
		c[idx[rng.IntN(len(idx))]].c = g.randomConst(rng)
		return c
	}
	for _, i := range idx {
		c[i].c *= 1 + 0.2*rng.NormFloat64()
		if math.Abs(c[i].c) < 1e-8 {
			c[i].c = g.randomConst(rng)
		}
	}
	return c
}

// swapArguments exchanges the operands of a binary node: a−b ↔ b−a, a/b ↔ b/a.
func (g *grammar) swapArguments(rng *rand.Rand, t tree) tree {
	var bin []int
	for i, nd := range t {
		if nd.op.arity() == 2 {
			bin = append(bin, i)
		}
	}
	if len(bin) == 0 {
		return nil
	}
	i := bin[rng.IntN(len(bin))]
	s := t.subtreeStart(i)
	rs := t.subtreeStart(i - 1)
	w := make(tree, 0, i-s+1)
	w = append(w, t[rs:i]...)
	w = append(w, t[s:rs]...)
	w = append(w, t[i])
	return t.replace(s, i, w)
}

// crossover puts a random subtree of b in place of a random subtree of a.
// Operator nodes are preferred as crossover points (Koza's 90/10 rule) so
// that whole building blocks move rather than single leaves.
func (g *grammar) crossover(rng *rand.Rand, a, b tree) tree {
	for try := 0; try < 6; try++ {
		i := pickPoint(rng, a)
		j := pickPoint(rng, b)
		c := a.replace(a.subtreeStart(i), i, b[b.subtreeStart(j):j+1])
		if g.fits(c) {
			return c
		}
	}
	return a.clone()
}

func pickPoint(rng *rand.Rand, t tree) int {
	if len(t) > 1 && rng.Float64() < 0.9 {
		for {
			i := rng.IntN(len(t))
			if t[i].op.arity() > 0 {
				return i
			}
		}
	}
	return rng.IntN(len(t))
}
