package symbolic

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// opcode identifies the kind of a node in an expression tree.
type opcode uint8

const (
	opConst opcode = iota // numeric constant, value in node.c
	opVar                 // input variable, column index in node.v
	opAdd
	opSub
	opMul
	opDiv
	// opPow raises its single child to the fixed exponent node.c. Keeping the
	// exponent out of the child list means it is chosen from a small set of
	// physically plausible values instead of being fitted, which avoids
	// x^1.0003 style overfits and NaNs from fractional powers of negatives.
	opPow
	opSin
	opCos
	opTan
	opExp
	opLog
	opSqrt
	opAbs
	opTanh
	opAsin // arcsine; undefined (NaN) outside [−1, 1]
	opCosh
	numOps
)

// operatorNames maps the user-facing operator tokens to opcodes.
var operatorNames = map[string]opcode{
	"+": opAdd, "-": opSub, "*": opMul, "/": opDiv, "^": opPow,
	"sin": opSin, "cos": opCos, "tan": opTan, "exp": opExp, "log": opLog,
	"sqrt": opSqrt, "abs": opAbs, "tanh": opTanh, "asin": opAsin, "cosh": opCosh,
}

var opSymbols = [numOps]string{
	opConst: "const", opVar: "var", opAdd: "+", opSub: "-", opMul: "*", opDiv: "/",
	opPow: "^", opSin: "sin", opCos: "cos", opTan: "tan", opExp: "exp", opLog: "log",
	opSqrt: "sqrt", opAbs: "abs", opTanh: "tanh", opAsin: "asin", opCosh: "cosh",
}

// KnownOperators returns every operator name Options.Operators accepts, in
// opcode order (the order error messages list them).
func KnownOperators() []string {
	return slices.Clone(opSymbols[opAdd:])
}

func (o opcode) String() string { return opSymbols[o] }

// arity is the number of child subtrees of a node with this opcode.
func (o opcode) arity() int {
	switch {
	case o <= opVar:
		return 0
	case o <= opDiv:
		return 2
	default:
		return 1
	}
}

// cost is the contribution of one node to the complexity of an expression.
// A power counts two, for the operator and its exponent, so that complexity
// equals the node count of the printed expression.
func (o opcode) cost() int {
	if o == opPow {
		return 2
	}
	return 1
}

func parseOperators(names []string) ([]opcode, error) {
	var ops []opcode
	seen := map[opcode]bool{}
	for _, s := range names {
		o, ok := operatorNames[s]
		if !ok {
			return nil, fmt.Errorf("symbolic: unknown operator %q (known: %s)", s, strings.Join(KnownOperators(), " "))
		}
		if !seen[o] {
			seen[o] = true
			ops = append(ops, o)
		}
	}
	return ops, nil
}

// applyUnary evaluates a one-argument operator on a scalar; k is the
// exponent of opPow.
func applyUnary(o opcode, x, k float64) float64 {
	switch o {
	case opPow:
		return pow(x, k)
	case opSin:
		return math.Sin(x)
	case opCos:
		return math.Cos(x)
	case opTan:
		return math.Tan(x)
	case opExp:
		return math.Exp(x)
	case opLog:
		return math.Log(x)
	case opSqrt:
		return math.Sqrt(x)
	case opAbs:
		return math.Abs(x)
	case opTanh:
		return math.Tanh(x)
	case opAsin:
		return math.Asin(x)
	case opCosh:
		return math.Cosh(x)
	}
	panic("symbolic: not a unary operator: " + o.String())
}

// applyBinary evaluates a two-argument operator on scalars.
func applyBinary(o opcode, a, b float64) float64 {
	switch o {
	case opAdd:
		return a + b
	case opSub:
		return a - b
	case opMul:
		return a * b
	case opDiv:
		return a / b
	}
	panic("symbolic: not a binary operator: " + o.String())
}

// pow is math.Pow with fast paths for the exponents that dominate physics.
func pow(x, k float64) float64 {
	switch k {
	case 2:
		return x * x
	case 3:
		return x * x * x
	case -1:
		return 1 / x
	case -2:
		return 1 / (x * x)
	case 0.5:
		return math.Sqrt(x)
	}
	return math.Pow(x, k)
}

// newSeedBuilder is newTermBuilder for the seeding passes that write
// functions outside the search's operators: it may also write the
// grammar's seed operators (SeedOperators, options.go).
func newSeedBuilder(g *grammar) *termBuilder {
	b := newTermBuilder(g)
	for _, o := range g.seed {
		b.has[o] = true
	}
	return b
}
