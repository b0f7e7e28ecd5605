package engine

import (
	"context"
	"math"
)

// lawSearch finds the law for one target: the chosen model, optional
// alternatives, and the fitter used for refits. It runs inside the
// search stages and may add artifacts.
type lawSearch func(ctx context.Context, target string, y []float64) (chosen *lawModel, alternatives []*lawModel, fit lawFitter, err error)

// laws runs a law search for every target, then the controls on every
// resulting law, then assembles the claims.
func (r *runner) laws(ctx context.Context, search lawSearch) error {
	type found struct {
		target string
		y      []float64
		models []*lawModel // chosen first, then alternatives
		fit    lawFitter
	}
	var all []found
	for _, target := range r.plan.targets {
		y := r.data.column(target)
		chosen, alts, fit, err := search(ctx, target, y)
		if err != nil {
			return err
		}
		all = append(all, found{target, y, append([]*lawModel{chosen}, alts...), fit})
	}
	r.track.begin(StageNegativeControls)
	for k, f := range all {
		progress := r.track.progressFunc(float64(k)/float64(len(all)), float64(k+1)/float64(len(all)))
		cv := math.NaN()
		if r.plan.spec.Parameters.CrossValidate {
			cv = r.crossValidate(ctx, f.y, f.fit)
		}
		progress(0.4)
		forms := r.bootstrapForms(ctx, f.y, f.fit)
		progress(0.8)
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, m := range f.models {
			idx := r.addClaim(r.lawClaim(f.target, m, r.evaluateLaw(m, f.y, cv, forms, len(f.models))))
			if i > 0 {
				r.result.Summary.Alternatives = append(r.result.Summary.Alternatives, idx)
			}
		}
		r.plotLaw(f.target, f.models[0], f.y)
		progress(1)
	}
	return nil
}
