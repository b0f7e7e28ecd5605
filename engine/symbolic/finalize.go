package symbolic

import "math"

// finalize refines the front members' constants, turns them into printed
// models (scaling folded in, simplified, constants snapped), rebuilds the
// Pareto front on the final complexities and picks the best model.
func finalize(p *problem, global *paretoFront, islands []*island) *Result {
	ev := newEvaluator(p.cols, len(p.y))
	opt := newConstOptimizer(p.cols, p.y)
	mean, _ := meanSD(p.y)
	models := []*Model{constantModel(mean, p.varY, p.varY)}
	seen := map[string]bool{models[0].Expression: true}
	var cands []individual
	cands = append(cands, global.members()...)
	for _, isl := range islands {
		if len(isl.pop) > 0 {
			cands = append(cands, isl.pop[0])
		}
	}
	for _, ind := range cands {
		opt.optimize(&ind, p.s.finalIters)
		m := p.toModel(ind, ev)
		if m == nil || seen[m.Expression] {
			continue
		}
		seen[m.Expression] = true
		models = append(models, m)
	}
	front := paretoModels(models)
	return &Result{Best: selectModel(front, p.varY), Front: front}
}

// toModel prints an individual as a model a + b·f with its constants
// snapped to simple values where the data allow.
func (p *problem) toModel(ind individual, ev *evaluator) *Model {
	if math.IsInf(ind.loss, 0) {
		return nil
	}
	e := ebin(opAdd, econst(ind.a), ebin(opMul, econst(ind.b), toExpr(ind.t)))
	e = simplify(e)
	e = snapConstants(e, ev, p.y, p.varY)
	t := e.postfix(nil)
	mse := mseOf(ev.eval(t), p.y, 0, 1)
	if math.IsInf(mse, 0) {
		return nil
	}
	return &Model{
		Expression: format(e, p.names),
		Complexity: e.complexity(),
		MSE:        mse,
		R2:         1 - mse/p.varY,
		t:          t,
	}
}

func constantModel(c, mse, varY float64) *Model {
	r2 := 0.0
	if varY > 0 {
		r2 = 1 - mse/varY
	} else {
		r2 = 1
	}
	return &Model{Expression: formatConst(c), Complexity: 1, MSE: mse, R2: r2, t: tree{constNode(c)}}
}
