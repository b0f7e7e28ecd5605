package symbolic

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// constOptimizer tunes the numeric constants of a tree by
// Levenberg–Marquardt on the sum of squared residuals, either of the
// linearly scaled model a + b·f (during the search) or of f itself (for
// printed models, which carry their own scaling). The Jacobian comes from
// reverse-mode differentiation.
type constOptimizer struct {
	g   *gradEvaluator
	ev  *evaluator
	y   []float64
	idx []int       // positions of the free constants in the tree
	jac [][]float64 // per parameter: ∂model/∂θ on each row
	jtj *mat.SymDense
	a   *mat.SymDense
	jtr *mat.VecDense
	dx  *mat.VecDense
	ch  mat.Cholesky
	res []float64
}

func newConstOptimizer(cols [][]float64, y []float64) *constOptimizer {
	return &constOptimizer{
		g:   newGradEvaluator(cols, len(y)),
		ev:  newEvaluator(cols, len(y)),
		y:   y,
		res: make([]float64, len(y)),
	}
}

// optimize runs at most iters LM iterations on ind's constants and scaling
// in place and refreshes its loss. It returns the number of tree
// evaluations spent, so callers can account for the cost.
func (o *constOptimizer) optimize(ind *individual, iters int) int {
	if math.IsInf(ind.loss, 0) || ind.t.numConsts() == 0 {
		return 0
	}
	t, a, b, loss, evals := o.lm(ind.t, nil, true, ind.a, ind.b, ind.loss, iters)
	if loss < ind.loss {
		ind.t, ind.a, ind.b, ind.loss = t, a, b, loss
	}
	return evals
}

// fitUnscaled fits the constants of t not marked frozen so that t itself
// (without linear scaling) matches y, and returns the tree and its MSE.
func (o *constOptimizer) fitUnscaled(t tree, frozen []bool, iters int) (tree, float64) {
	mse := mseOf(o.ev.eval(t), o.y, 0, 1)
	if math.IsInf(mse, 0) {
		return t, mse
	}
	t, _, _, mse, _ = o.lm(t, frozen, false, 0, 1, mse, iters)
	return t, mse
}

// lm is the Levenberg–Marquardt loop. With scale it also fits a and b
// (re-solved in closed form after each step, which is never worse than
// the LM step for them); without, a = 0 and b = 1 stay fixed.
func (o *constOptimizer) lm(t tree, frozen []bool, scale bool, a, b, loss float64, iters int) (tree, float64, float64, float64, int) {
	o.idx = o.idx[:0]
	for i, nd := range t {
		if nd.op == opConst && (frozen == nil || !frozen[i]) {
			o.idx = append(o.idx, i)
		}
	}
	k := len(o.idx)
	m := k
	if scale {
		m += 2 // then a, then b
	}
	if m == 0 {
		return t, a, b, loss, 0
	}
	n := len(o.y)
	for len(o.jac) < m {
		o.jac = append(o.jac, make([]float64, n))
	}
	if o.jtj == nil || o.jtj.SymmetricDim() != m {
		o.jtj = mat.NewSymDense(m, nil)
		o.a = mat.NewSymDense(m, nil)
		o.jtr = mat.NewVecDense(m, nil)
		o.dx = mat.NewVecDense(m, nil)
	}
	cur := t.clone()
	trial := t.clone()
	lambda := 1e-3
	evals := 0
	resid := o.res
	for it := 0; it < iters; it++ {
		f := o.g.forward(cur)
		o.g.backward(cur)
		evals += 2
		for j, pos := range o.idx {
			col, d := o.jac[j], o.g.adj[pos]
			for r := range col {
				col[r] = b * d[r]
			}
		}
		if scale {
			ones, fcol := o.jac[k], o.jac[k+1]
			for r := range ones {
				ones[r] = 1
				fcol[r] = f[r]
			}
		}
		for r := range resid {
			resid[r] = o.y[r] - a - b*f[r]
		}
		if !o.normalEquations(m, resid) {
			break
		}
		improved := false
		for try := 0; try < 6; try++ {
			o.a.CopySym(o.jtj)
			for j := 0; j < m; j++ {
				d := o.jtj.At(j, j)
				o.a.SetSym(j, j, d+lambda*math.Max(d, 1e-12))
			}
			if !o.ch.Factorize(o.a) {
				lambda *= 10
				continue
			}
			if err := o.ch.SolveVecTo(o.dx, o.jtr); err != nil {
				lambda *= 10
				continue
			}
			copy(trial, cur)
			for j, pos := range o.idx {
				trial[pos].c = cur[pos].c + o.dx.AtVec(j)
			}
			ft := o.ev.eval(trial)
			evals++
			ta, tb := a, b
			var tl float64
			var ok bool
			if scale {
				ta, tb, tl, ok = linearScale(ft, o.y)
			} else {
				tl = mseOf(ft, o.y, 0, 1)
				ok = !math.IsInf(tl, 0)
			}
			if ok && tl < loss {
				rel := (loss - tl) / math.Max(loss, 1e-300)
				copy(cur, trial)
				a, b, loss = ta, tb, tl
				lambda = math.Max(lambda*0.3, 1e-12)
				improved = rel > 1e-10
				break
			}
			lambda *= 4
		}
		if !improved {
			break
		}
	}
	return cur, a, b, loss, evals
}

// normalEquations fills JᵀJ and Jᵀr; it reports false if they are not finite.
func (o *constOptimizer) normalEquations(m int, resid []float64) bool {
	for p := 0; p < m; p++ {
		cp := o.jac[p]
		for q := p; q < m; q++ {
			cq := o.jac[q]
			var s float64
			for r, v := range cp {
				s += v * cq[r]
			}
			if math.IsNaN(s) || math.IsInf(s, 0) {
				return false
			}
			o.jtj.SetSym(p, q, s)
		}
		var s float64
		for r, v := range cp {
			s += v * resid[r]
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return false
		}
		o.jtr.SetVec(p, s)
	}
	return true
}
