package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// finalize refines the front members' constants, turns them into printed
// models (scaling folded in, simplified, constants snapped), rebuilds the
// Pareto front on the final complexities and picks the best model.
//
// The seeds are candidates too. The passes that write them judge them on
// all rows, while the search scores on at most maxSearchRows rows, where
// look-alikes whose constants fit those rows' noise can push a seeded law
// out of the front: at 1 % noise kT/(ħω) − 1/2 with fitted constants
// beats the Bose law 1/(exp(ħω/kT) − 1) there (III.4.32), which on all
// rows fits better.
//
// Snapping runs in two stages: a cheap one (other constants held fixed)
// for every candidate, then, for the models selection can pick (loss
// within 1.5× of the best), a thorough one that refits the other
// constants after each trial, which noisy data need.
func finalize(p *problem, global *paretoFront, islands []*island, seeds []tree) *Result {
	opt := newConstOptimizer(p.cols, p.y)
	mean := stat.Mean(p.y, nil)
	models := []*Model{constantModel(mean, p.varY, p.varY)}
	seen := map[string]bool{models[0].Expression: true}
	var cands []individual
	cands = append(cands, global.all()...)
	for _, isl := range islands {
		if len(isl.pop) > 0 {
			cands = append(cands, isl.pop[0])
		}
	}
	for _, t := range seeds {
		if t = simplifyTree(t); t.complexity() <= p.s.maxSize {
			cands = append(cands, evaluate(opt.ev, p.y, t))
		}
	}
	exprs := map[*Model]*expr{}
	for _, ind := range cands {
		if math.IsInf(ind.loss, 0) {
			continue
		}
		opt.optimize(&ind, p.s.finalIters)
		e := ind.printed()
		e = snapConstants(e, opt, p.varY, false)
		m := p.model(e, opt)
		if m == nil || seen[m.Expression] {
			continue
		}
		seen[m.Expression] = true
		exprs[m] = e
		models = append(models, m)
	}
	snappable := slices.DeleteFunc(slices.Clone(models), func(m *Model) bool { return exprs[m] == nil })
	for _, m := range thoroughSnapCandidates(snappable, p.varY, len(p.y)) {
		if r := p.model(snapConstants(exprs[m], opt, p.varY, true), opt); r != nil && !seen[r.Expression] {
			seen[r.Expression] = true
			models = append(models, r)
		}
	}
	front := paretoModels(models)
	return &Result{Best: selectModel(front, p.varY, len(p.y)), Front: front}
}

// maxThoroughSnaps bounds the models that get the slow snapping pass.
const maxThoroughSnaps = 8

// thoroughSnapCandidates returns the models the slow snapping pass
// refines: those selection could pick once snapped. They have a loss
// within selectionBand of the lowest and are not exact; the
// maxThoroughSnaps best by bic on their complexity are taken, which is
// the cost they would have if snapping fixed all their constants. Ranked
// on cost, a law written with four fitted constants
// (1.103/(exp(0.1757·hω/kT) − 1.00004) + 0.06, III.4.32) came after
// eight look-alikes with one or two.
//
// They need not be on the front: a model and its mirror image can tie on
// cost, as 1.107/(exp(0.176·ħω/kT) − 1) + 0.04 and
// −1.113/(exp(−0.177·ħω/kT) − 1) − 1.07 do (III.4.32), and the one the
// other dominates by a hair may be the one that snaps to the shorter law.
func thoroughSnapCandidates(models []*Model, varY float64, n int) []*Model {
	minLoss := math.Inf(1)
	for _, m := range models {
		minLoss = math.Min(minLoss, m.MSE)
	}
	var out []*Model
	for _, m := range models {
		if m.MSE <= selectionBand*minLoss && m.MSE > exactNMSE*varY {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b *Model) int {
		return cmpFloat(bic(n, a.MSE, a.Complexity), bic(n, b.MSE, b.Complexity))
	})
	// Models of one shape whose constants have the same signs snap alike:
	// one of each. (The signs tell the two Bose forms above apart.)
	type key struct {
		shape uint64
		signs uint64 // bit k: the k-th constant is negative
	}
	seen := map[key]bool{}
	out = slices.DeleteFunc(out, func(m *Model) bool {
		k, c := key{shape: m.t.shape()}, 0
		for _, nd := range m.t {
			if nd.op == opConst {
				if nd.c < 0 {
					k.signs |= 1 << (c % 64)
				}
				c++
			}
		}
		dup := seen[k]
		seen[k] = true
		return dup
	})
	return out[:min(len(out), maxThoroughSnaps)]
}

// model evaluates a printed expression on all rows.
func (p *problem) model(e *expr, opt *constOptimizer) *Model {
	t := e.postfix(nil)
	mse := mseOf(opt.ev.eval(t), p.y, 0, 1)
	if math.IsInf(mse, 0) {
		return nil
	}
	if p.dims != nil {
		if ok, _ := dimensionallyConsistent(t, p.dims, p.target); !ok {
			return nil
		}
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
