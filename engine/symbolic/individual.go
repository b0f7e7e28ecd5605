package symbolic

import "math"

// individual is one candidate expression with its linear scaling and loss.
type individual struct {
	t    tree
	a, b float64 // the model is a + b·t(x)
	loss float64 // mean squared error of the scaled model; +Inf if invalid
	size int     // complexity of t
}

// better orders individuals by loss, breaking (near) ties by size so that
// the simpler of two equally good expressions wins.
func better(x, y *individual) bool {
	if x.loss < y.loss*(1-1e-9) {
		return true
	}
	if y.loss < x.loss*(1-1e-9) {
		return false
	}
	if x.size != y.size {
		return x.size < y.size
	}
	return x.loss < y.loss
}

// printed is the individual as a model prints it, a + b·t simplified:
// the linear scaling folded into the expression.
func (ind *individual) printed() *expr {
	return simplify(ebin(opAdd, econst(ind.a), ebin(opMul, econst(ind.b), toExpr(ind.t))))
}

// evaluate scores a tree on the data with linear scaling.
func evaluate(ev *evaluator, y []float64, t tree) individual {
	f := ev.eval(t)
	a, b, mse, ok := linearScale(f, y)
	if !ok {
		return individual{t: t, loss: math.Inf(1), size: t.complexity()}
	}
	return individual{t: t, a: a, b: b, loss: mse, size: t.complexity()}
}
