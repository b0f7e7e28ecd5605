package symbolic

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// constOptimizer tunes the numeric constants of a tree, together with the
// linear-scaling offset a and factor b, by Levenberg–Marquardt on the sum of
// squared residuals. The Jacobian comes from reverse-mode differentiation.
type constOptimizer struct {
	g   *gradEvaluator
	ev  *evaluator
	y   []float64
	idx []int       // positions of the constants in the tree
	jac [][]float64 // per parameter: ∂model/∂θ on each row
	jtj *mat.SymDense
	a   *mat.SymDense
	jtr *mat.VecDense
	dx  *mat.VecDense
	ch  mat.Cholesky
}

func newConstOptimizer(cols [][]float64, y []float64) *constOptimizer {
	return &constOptimizer{
		g:  newGradEvaluator(cols, len(y)),
		ev: newEvaluator(cols, len(y)),
		y:  y,
	}
}

// optimize runs at most iters LM iterations on ind's constants in place and
// refreshes its loss and scaling. It returns the number of tree evaluations
// spent, so callers can account for the cost.
func (o *constOptimizer) optimize(ind *individual, iters int) int {
	t := ind.t
	o.idx = o.idx[:0]
	for i, nd := range t {
		if nd.op == opConst {
			o.idx = append(o.idx, i)
		}
	}
	k := len(o.idx)
	if k == 0 || math.IsInf(ind.loss, 0) {
		return 0
	}
	m := k + 2 // constants, then a, then b
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
	a, b, loss := ind.a, ind.b, ind.loss
	trial := t.clone()
	lambda := 1e-3
	evals := 0
	resid := make([]float64, n)
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
		ones, fcol := o.jac[k], o.jac[k+1]
		for r := range ones {
			ones[r] = 1
			fcol[r] = f[r]
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
			// Re-solving a and b in closed form is never worse than taking
			// the LM step for them.
			ta, tb, tl, ok := linearScale(ft, o.y)
			if ok && tl < loss {
				rel := (loss - tl) / math.Max(loss, 1e-300)
				copy(cur, trial)
				a, b, loss = ta, tb, tl
				lambda = math.Max(lambda*0.3, 1e-12)
				improved = rel > 1e-10
				if !improved {
					it = iters
				}
				break
			}
			lambda *= 4
		}
		if !improved {
			break
		}
	}
	if loss < ind.loss {
		ind.t, ind.a, ind.b, ind.loss = cur, a, b, loss
	}
	return evals
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
