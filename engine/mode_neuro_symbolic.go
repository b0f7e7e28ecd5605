package engine

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/discolab/disco/engine/neural"
	"github.com/discolab/disco/engine/symbolic"
)

// neuroSymbolicMode is the neuro_symbolic mode. The surrogate denoises the
// target and tests separability. When it splits the features into groups,
// each group's partial function is fitted on its own: the surrogate is
// evaluated with the other groups held at their medians, which isolates
// f_G(x_G) up to an additive (additive form) or multiplicative
// (multiplicative form) constant. The parts, summed or multiplied, seed the
// main symbolic search on the real target; when nothing separates, a short
// search on the denoised target does. The main search is the symbolic
// mode's, so the law is chosen on the data by the same rule, constants are
// fitted on the data rather than on the surrogate, and a decomposition that
// is wrong costs a seed, not the law. Taken as the law itself, rescaled by
// a + b·f, the combined parts recovered far fewer Feynman laws than they do
// as seeds, where this mode is level with symbolic mode
// (test/bench/CALIBRATION.md#neuro-symbolic-seeds). With a trajectory:
// constraint it also runs the conservation search.
type neuroSymbolicMode struct {
	*runner
	neural   *neuralMode
	symbolic *symbolicMode
}

func newNeuroSymbolicMode(r *runner) *neuroSymbolicMode {
	return &neuroSymbolicMode{runner: r, neural: &neuralMode{r}, symbolic: &symbolicMode{r}}
}

func (m *neuroSymbolicMode) discover(ctx context.Context) error {
	if err := m.laws(ctx, m); err != nil {
		return err
	}
	return conserved(ctx, m.runner)
}

// searchLaw pretrains target's surrogate, fits its parts and runs the
// symbolic mode's main search from their combination.
func (m *neuroSymbolicMode) searchLaw(ctx context.Context, target string, y []float64) (*lawModel, []*lawModel, error) {
	s, err := m.neural.pretrain(ctx, target, y)
	if err != nil {
		return nil, nil, err
	}
	m.track.begin(StageSymbolic)
	searchCtx, cancel := m.searchContext(ctx)
	defer cancel()
	seeds, err := m.seeds(searchCtx, s, rowsOf(m.data.X, m.data.train), effortFull, m.plan.spec.Seed)
	if err != nil {
		return nil, nil, m.searchFailed(ctx, "symbolic regression", err)
	}
	m.track.advance(surrogateSeedShare)
	return m.symbolic.search(ctx, target, y, seeds, surrogateSeedShare)
}

// refit (cross-validation, bootstrap) retrains the surrogate as well.
func (m *neuroSymbolicMode) refit(ctx context.Context, target string, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error) {
	s, err := trainSurrogate(ctx, X, y, m.neural.options(effort, seed))
	if err != nil {
		return nil, err
	}
	seeds, err := m.seeds(ctx, s, X, effort, seed)
	if err != nil {
		return nil, err
	}
	return m.symbolic.fit(ctx, target, X, y, effort, seed, seeds)
}

// surrogateSeedShare is the part of the symbolic_regression stage's
// progress given to fitting the surrogate's parts.
const surrogateSeedShare = 0.1

// seeds fits the surrogate's parts on rows X and returns their
// combination as a seed: the sum or product of the parts' fits when the
// surrogate separates, else the best fit of its denoised output. The part
// searches are short (refit budgets): the main search refines the seed.
func (m *neuroSymbolicMode) seeds(ctx context.Context, s *surrogate, X [][]float64, effort float64, seed int64) ([]*symbolic.Model, error) {
	groups, form := s.structure.Groups, s.structure.Form
	// Each part gets a share of the effort, at most half of it (30
	// generations at full effort) and at least a refit's half.
	partEffort := math.Max(effort/float64(max(2, len(groups))), effortRefit/2)
	if len(groups) < 2 || (form != neural.Additive && form != neural.Multiplicative) {
		res, err := symbolic.Fit(ctx, X, s.predict(X), m.data.features, m.symbolic.options(ctx, partEffort, seed))
		if err != nil {
			return nil, err
		}
		if res == nil || res.Best == nil {
			return nil, nil
		}
		return []*symbolic.Model{res.Best}, nil
	}
	partials := neural.Partials(s.predict, X, groups)
	parts := make([]*symbolic.Model, len(groups))
	for g, cols := range groups {
		part, err := m.fitPart(ctx, X, cols, partials[g], partEffort, seed+int64(g))
		if err != nil {
			return nil, err
		}
		parts[g] = part
	}
	combined, err := symbolic.Combine(parts, groups, form == neural.Multiplicative, m.data.features)
	if err != nil {
		return nil, err
	}
	return []*symbolic.Model{combined}, nil
}

// fitPart fits group cols' partial function, the surrogate with every
// other feature held at its median (neural.Partials).
func (m *neuroSymbolicMode) fitPart(ctx context.Context, X [][]float64, cols []int, partial []float64, effort float64, seed int64) (*symbolic.Model, error) {
	sub := make([][]float64, len(cols))
	names := make([]string, len(cols))
	for k, j := range cols {
		sub[k], names[k] = X[j], m.data.features[j]
	}
	res, err := symbolic.Fit(ctx, sub, partial, names, m.symbolic.options(ctx, effort, seed))
	if err != nil {
		return nil, err
	}
	if res == nil || res.Best == nil {
		return nil, fmt.Errorf("symbolic regression returned no model for %s", strings.Join(names, ", "))
	}
	return res.Best, nil
}
