package dynamics

import (
	"context"
	"math"
)

// heldOutFit sets each equation's HeldOutR2 and res.HeldOutRows: the
// equations, as fitted, measured in the regression's own form (weak-form
// integrals or point derivatives, without the noise moments) on every row
// the regression did not use: the held-out pieces test, already copied,
// and the pieces the row rule left out (rest), copied one at a time so
// that memory stays that of one piece. The measure is the one CVR2 uses on
// the regression rows, 1 − Σ(b − Θξ)²/Σb² per state (issue 18, item 4:
// the claim's evidence is computed on all rows).
func heldOutFit(ctx context.Context, res *Result, data Trajectories, test []segment, rest []group, lib []Term, coefs [][]float64, settings Settings) error {
	// only the terms some equation uses are evaluated
	idx := usedTerms(coefs)
	sub := make([]Term, len(idx))
	for k, j := range idx {
		sub[k] = lib[j]
	}
	pos := make([]int, len(coefs[0])) // library index → index in sub
	for k, j := range idx {
		pos[j] = k
	}
	terms := nonZero(coefs)
	states := len(coefs)
	targets := allTargets(states)
	rss, tot := make([]float64, states), make([]float64, states)
	measure := func(p segment) {
		emitted := false
		regressionRows(p, sub, states, targets, settings.radius(len(p.t)), settings, false, func(g, b []float64) {
			emitted = true
			for s, ts := range terms {
				pred := 0.0
				for _, t := range ts {
					pred += t.coef * g[pos[t.term]]
				}
				rss[s] += (b[s] - pred) * (b[s] - pred)
				tot[s] += b[s] * b[s]
			}
		})
		if emitted {
			res.HeldOutRows += len(p.t)
		}
	}
	for _, p := range test {
		measure(p)
	}
	for _, g := range rest {
		if err := ctx.Err(); err != nil {
			return err
		}
		measure(data.piece(g))
	}
	for s := range states {
		r2 := math.NaN()
		if tot[s] > 0 {
			r2 = 1 - rss[s]/tot[s]
		}
		res.Equations[s].HeldOutR2 = r2
	}
	return nil
}
