package symbolic

// expr is a pointer-based expression tree, used where rewriting is easier
// than on the flat postfix form: simplification and printing.
type expr struct {
	op   opcode
	v    int     // variable index
	c    float64 // constant value or exponent
	args []*expr

	keyCache string // canonical key, computed once; expr nodes are never mutated
}

func econst(c float64) *expr                 { return &expr{op: opConst, c: c} }
func evar(v int) *expr                       { return &expr{op: opVar, v: v} }
func ebin(o opcode, l, r *expr) *expr        { return &expr{op: o, args: []*expr{l, r}} }
func eun(o opcode, x *expr, k float64) *expr { return &expr{op: o, c: k, args: []*expr{x}} }

func (e *expr) isConst() bool             { return e.op == opConst }
func (e *expr) isConstVal(c float64) bool { return e.op == opConst && e.c == c }

// toExpr converts a postfix tree.
func toExpr(t tree) *expr {
	var st []*expr
	for _, nd := range t {
		switch nd.op.arity() {
		case 0:
			if nd.op == opVar {
				st = append(st, evar(int(nd.v)))
			} else {
				st = append(st, econst(nd.c))
			}
		case 1:
			st[len(st)-1] = eun(nd.op, st[len(st)-1], nd.c)
		case 2:
			l, r := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-1]
			st[len(st)-1] = ebin(nd.op, l, r)
		}
	}
	return st[0]
}

// postfix converts back to the flat form.
func (e *expr) postfix(out tree) tree {
	for _, a := range e.args {
		out = a.postfix(out)
	}
	switch e.op {
	case opVar:
		return append(out, varNode(e.v))
	case opConst:
		return append(out, constNode(e.c))
	case opPow:
		return append(out, powNode(e.c))
	}
	return append(out, opNode(e.op))
}

func (e *expr) complexity() int {
	c := e.op.cost()
	for _, a := range e.args {
		c += a.complexity()
	}
	return c
}
