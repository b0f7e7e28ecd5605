package symbolic

import "testing"

func TestFormat(t *testing.T) {
	names := []string{"x", "y", "z"}
	x, y, z := evar(0), evar(1), evar(2)
	cases := []struct {
		e    *expr
		want string
	}{
		{ebin(opAdd, ebin(opMul, econst(2.5), x), econst(1)), "2.5*x + 1"},
		{ebin(opAdd, x, econst(-3)), "x - 3"},
		{ebin(opAdd, y, ebin(opMul, econst(-2), x)), "y - 2*x"},
		{ebin(opSub, x, ebin(opAdd, y, z)), "x - (y + z)"},
		{ebin(opDiv, x, ebin(opMul, y, z)), "x/(y*z)"},
		{ebin(opMul, x, ebin(opDiv, y, z)), "x*y/z"},
		{eun(opPow, ebin(opAdd, x, y), 2), "(x + y)^2"},
		{eun(opPow, x, -1), "x^(-1)"},
		{eun(opPow, eun(opPow, x, 2), 0.5), "(x^2)^0.5"},
		{eun(opExp, ebin(opMul, econst(-1), ebin(opMul, x, y)), 0), "exp(-x*y)"},
		{ebin(opMul, x, econst(-2)), "x*(-2)"},
		{eun(opSin, x, 0), "sin(x)"},
		{econst(1.23456789e-7), "1.23457e-07"},
		{ebin(opMul, econst(0.0795775), ebin(opDiv, x, y)), "0.0795775*x/y"},
	}
	for _, c := range cases {
		if got := format(c.e, names); got != c.want {
			t.Errorf("format = %q, want %q", got, c.want)
		}
	}
}

func TestSimplify(t *testing.T) {
	names := []string{"x", "y"}
	x, y := evar(0), evar(1)
	cases := []struct {
		e    *expr
		want string
	}{
		{ebin(opMul, econst(1), x), "x"},
		{ebin(opAdd, x, econst(0)), "x"},
		{ebin(opAdd, ebin(opMul, econst(2), econst(3)), x), "x + 6"},
		{ebin(opMul, econst(2), ebin(opMul, econst(3), x)), "6*x"},
		{ebin(opMul, x, x), "x^2"},
		{ebin(opDiv, x, econst(4)), "0.25*x"},
		{ebin(opSub, x, x), "0"},
		{ebin(opAdd, ebin(opAdd, x, econst(1)), econst(2)), "x + 3"},
		{eun(opPow, eun(opPow, x, 2), 3), "x^6"},
		{eun(opSin, ebin(opAdd, econst(1), econst(2)), 0), "0.14112"},
		{ebin(opSub, y, ebin(opMul, econst(3), x)), "y - 3*x"},
		{ebin(opAdd, econst(0), ebin(opMul, econst(1), ebin(opMul, x, y))), "x*y"},
		{ebin(opMul, econst(-0.5), ebin(opMul, x, ebin(opDiv, econst(1000), y))), "-500*x/y"},
		{ebin(opMul, ebin(opDiv, econst(2), x), ebin(opDiv, econst(3), y)), "6/(x*y)"},
		// Factors that share an integer power are one power: shorter.
		{ebin(opDiv, eun(opPow, x, 2), eun(opPow, y, 2)), "(x/y)^2"},
		{ebin(opMul, ebin(opMul, x, x), ebin(opMul, y, y)), "(x*y)^2"},
		{ebin(opDiv, econst(3), ebin(opMul, eun(opPow, x, 2), eun(opPow, y, 2))), "3/(x*y)^2"},
		{ebin(opDiv, ebin(opMul, x, eun(opPow, x, 2)), eun(opPow, y, 2)), "x^3/y^2"},
		// A sum opens with a positive term, or with its constant.
		{ebin(opAdd, ebin(opMul, econst(-1), eun(opPow, ebin(opDiv, x, y), 2)), econst(1)), "1 - (x/y)^2"},
		{ebin(opAdd, ebin(opMul, econst(-2), x), y), "y - 2*x"},
		{ebin(opSub, econst(-1), x), "-x - 1"},
	}
	for _, c := range cases {
		if got := format(simplify(c.e), names); got != c.want {
			t.Errorf("simplify → %q, want %q", got, c.want)
		}
	}
}

// TestSimplifyPreservesValue checks that simplification of random trees
// never changes what they compute.
func TestSimplifyPreservesValue(t *testing.T) {
	rng := newTestRand(3)
	X := sample(rng, 3, 50, 0.5, 3)
	ev := newEvaluator(X, 50)
	g := testGrammar(3)
	for k := 0; k < 500; k++ {
		tr := g.randomTree(rng, 1+rng.IntN(20), 7)
		want := append([]float64(nil), ev.eval(tr)...)
		got := ev.eval(simplifyTree(tr))
		for i := range want {
			if !closeOrBothInvalid(want[i], got[i]) {
				t.Fatalf("%s → %s differs at row %d: %g vs %g", format(toExpr(tr), []string{"a", "b", "c"}),
					format(simplify(toExpr(tr)), []string{"a", "b", "c"}), i, want[i], got[i])
			}
		}
	}
}
