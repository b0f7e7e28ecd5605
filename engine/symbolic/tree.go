package symbolic

import "math"

// node is one element of an expression tree stored in postfix order.
type node struct {
	op opcode
	v  int32   // variable index for opVar
	c  float64 // value for opConst, exponent for opPow
}

// tree is an expression in postfix (reverse Polish) order: every node comes
// after its children and the root is the last element. A flat slice keeps
// evaluation a tight loop and makes subtree operations slice splices.
type tree []node

func constNode(c float64) node { return node{op: opConst, c: c} }
func varNode(v int) node       { return node{op: opVar, v: int32(v)} }
func opNode(o opcode) node     { return node{op: o} }
func powNode(k float64) node   { return node{op: opPow, c: k} }

func (t tree) clone() tree { return append(tree(nil), t...) }

// complexity is the node count of the printed expression.
func (t tree) complexity() int {
	c := 0
	for _, n := range t {
		c += n.op.cost()
	}
	return c
}

// subtreeStart returns the index of the first node of the subtree rooted at i.
func (t tree) subtreeStart(i int) int {
	need := 1
	j := i
	for ; need > 0; j-- {
		need += t[j].op.arity() - 1
	}
	return j + 1
}

// depth is the number of levels of the tree; a single leaf has depth 1.
func (t tree) depth() int {
	var st []int
	best := 0
	for _, n := range t {
		d := 1
		switch n.op.arity() {
		case 1:
			d = st[len(st)-1] + 1
			st = st[:len(st)-1]
		case 2:
			d = max(st[len(st)-1], st[len(st)-2]) + 1
			st = st[:len(st)-2]
		}
		st = append(st, d)
		best = max(best, d)
	}
	return best
}

// valid reports whether t is a well-formed postfix expression.
func (t tree) valid() bool {
	depth := 0
	for _, n := range t {
		depth += 1 - n.op.arity()
		if depth < 1 {
			return false
		}
	}
	return depth == 1
}

// replace returns a new tree where the subtree t[start:end+1] is replaced by sub.
func (t tree) replace(start, end int, sub tree) tree {
	out := make(tree, 0, len(t)-(end-start+1)+len(sub))
	out = append(out, t[:start]...)
	out = append(out, sub...)
	return append(out, t[end+1:]...)
}

// numConsts counts the fitted constants (opConst nodes) of t.
func (t tree) numConsts() int {
	k := 0
	for _, n := range t {
		if n.op == opConst {
			k++
		}
	}
	return k
}

// shape is hash without the constants' values: trees that differ only in
// their fitted constants have the same shape. Exponents (opPow) count.
func (t tree) shape() uint64 { return t.fingerprint(false) }

// hash is an FNV-style fingerprint of the tree's structure and constants,
// used to keep duplicate individuals out of the population.
func (t tree) hash() uint64 { return t.fingerprint(true) }

// fingerprint mixes the tree's operators, variables and exponents, and
// with consts its constants' values, FNV-style.
func (t tree) fingerprint(consts bool) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
	}
	for _, n := range t {
		mix(uint64(n.op))
		switch {
		case n.op == opVar:
			mix(uint64(n.v))
		case n.op == opPow, n.op == opConst && consts:
			mix(math.Float64bits(n.c))
		}
	}
	return h
}
