package symbolic

import (
	"bytes"
	"encoding/json"
	"math"
	"os/exec"
	"strconv"
	"testing"
)

// TestSympyParses formats random expressions and checks that sympy parses
// every one of them and evaluates it to the same values as the evaluator,
// which catches precedence and syntax mistakes in the printer. It is
// skipped when python3 with sympy is not installed.
func TestSympyParses(t *testing.T) {
	if exec.Command("python3", "-c", "import sympy").Run() != nil {
		t.Skip("python3 with sympy not available")
	}
	rng := newTestRand(5)
	g := testGrammar(3)
	g.unary = append(g.unary, opAsin, opCosh)
	names := []string{"x", "y", "z"}
	point := [][]float64{{1.3}, {0.7}, {2.1}}
	ev := newEvaluator(point, 1)
	type item struct {
		Expr string  `json:"expr"`
		Want float64 `json:"want"`
	}
	var items []item
	for len(items) < 300 {
		tr := g.randomTree(rng, 1+rng.IntN(25), 8)
		e := simplify(toExpr(tr))
		pf := e.postfix(nil)
		for i := range pf {
			if pf[i].op == opConst { // make the printed constants exact
				pf[i].c, _ = strconv.ParseFloat(formatConst(pf[i].c), 64)
			}
		}
		e = toExpr(pf)
		v := ev.eval(pf)[0]
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e12 {
			continue
		}
		items = append(items, item{format(e, names), v})
	}
	in, _ := json.Marshal(items)
	script := `
import json, sys, sympy
from sympy.parsing.sympy_parser import parse_expr, standard_transformations, convert_xor
x, y, z = sympy.symbols("x y z")
bad = []
for it in json.load(sys.stdin):
    try:
        e = parse_expr(it["expr"], transformations=standard_transformations + (convert_xor,))
        v = complex(e.evalf(subs={x: 1.3, y: 0.7, z: 2.1}))
        if abs(v.real - it["want"]) > 1e-6 * (1 + abs(it["want"])) or abs(v.imag) > 1e-9:
            bad.append("%s = %r, want %r" % (it["expr"], v, it["want"]))
    except Exception as ex:
        bad.append("%s: %s" % (it["expr"], ex))
print("\n".join(bad[:10]))
`
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	if s := string(bytes.TrimSpace(out)); s != "" {
		t.Errorf("sympy disagrees:\n%s", s)
	}
}
