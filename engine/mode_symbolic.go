package engine

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/discolab/disco/engine/symbolic"
	"github.com/discolab/disco/engine/units"
)

// Search effort of the symbolic regression.
const (
	// mainSearchGenerations is the main search's generation budget in
	// symbolic mode when the run sets no epochs. It is a budget, not the
	// usual length: the exact and settle rules end a search once its law is
	// found, and the budget lies above the generation by which every law
	// the Feynman benchmark found had stopped, so it keeps those laws while
	// bounding the search for a law that is not found
	// (test/bench/CALIBRATION.md#main-search-generations). Counting
	// generations rather than seconds keeps the run deterministic for a seed.
	mainSearchGenerations = 1500
	// refitGenerations bounds refits (cross-validation, bootstrap), which
	// measure a law rather than search for a better one, and the searches of
	// the neuro-symbolic mode, whose epochs train the surrogate.
	refitGenerations       = 60
	symbolicPopulations    = 4
	symbolicPopulationSize = 150
	maxAlternatives        = 2
	// mainSearchShare is the part of the search time the main symbolic fit may
	// take when the run's epochs let it run until the time limit; the
	// cross-validation and bootstrap refits that follow share the time after
	// it (refitSchedule).
	mainSearchShare = 0.75
)

// symbolicMode is the symbolic mode: genetic programming (engine/symbolic)
// per target on the training rows, the model the symbolic package chose,
// plus up to two Pareto neighbours of it as alternatives. With a
// trajectory: constraint it also runs the conservation search.
type symbolicMode struct{ *runner }

func (m *symbolicMode) discover(ctx context.Context) error {
	if err := m.laws(ctx, m); err != nil {
		return err
	}
	return conserved(ctx, m.runner)
}

// searchLaw runs the main search for target; neural_pretraining does not
// apply.
func (m *symbolicMode) searchLaw(ctx context.Context, target string, y []float64) (*lawModel, []*lawModel, error) {
	m.track.skip(StageNeuralPretraining)
	m.track.begin(StageSymbolic)
	return m.search(ctx, target, y, nil, 0)
}

// refit fits symbolic regression on (X, y) at the given effort.
func (m *symbolicMode) refit(ctx context.Context, target string, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error) {
	return m.fit(ctx, target, X, y, effort, seed, nil)
}

// options are the options of a symbolic fit at the given effort, within
// ctx's deadline (the search's share of the time limit, or a refit's share
// of the time left: refitSchedule). In symbolic mode the run's epochs are
// the main search's generations (default mainSearchGenerations); a search
// that many generations long stops at the time limit, or earlier by the
// symbolic package's exact or settle rule. Refits run at most
// refitGenerations scaled by their effort.
func (m *symbolicMode) options(ctx context.Context, effort float64, seed int64) symbolic.Options {
	limit := limitOf(ctx)
	if effort >= effortFull && mainGenerations(m.plan.spec) > refitGenerations && limit > 0 {
		limit = time.Duration(float64(limit) * mainSearchShare)
	}
	return symbolic.Options{
		Operators:      m.plan.operators,
		MaxComplexity:  m.plan.spec.maxComplexity(),
		MaxDepth:       m.plan.constraints.MaxDepth,
		Generations:    searchGenerations(m.plan.spec, effort),
		Populations:    symbolicPopulations,
		PopulationSize: symbolicPopulationSize,
		Seed:           seed,
		TimeLimit:      limit,
	}
}

// mainGenerations is the generation budget of a full-effort search: the
// run's epochs in symbolic mode (default mainSearchGenerations), and
// mainSearchGenerations in neuro-symbolic mode, whose epochs train the
// surrogate.
func mainGenerations(spec Spec) int {
	switch {
	case spec.Mode == ModeSymbolic && spec.Parameters.Epochs > 0:
		return spec.Parameters.Epochs
	case spec.Mode == ModeSymbolic || spec.Mode == ModeNeuroSymbolic:
		return mainSearchGenerations
	}
	return refitGenerations
}

// searchGenerations is the generation budget of a search at the given
// effort: the main budget at full effort, at most refitGenerations for a
// refit, scaled by the effort and never below 5.
func searchGenerations(spec Spec, effort float64) int {
	base := mainGenerations(spec)
	if effort < effortFull {
		base = min(base, refitGenerations)
	}
	return int(math.Max(5, math.Round(float64(base)*effort)))
}

// fromSymbolic wraps a symbolic model as a law over names (the columns the
// model was fitted on), which are positions cols of the run's features.
func fromSymbolic(m *symbolic.Model, X [][]float64) *lawModel {
	law := &lawModel{expression: m.Expression, complexity: m.Complexity, predict: m.Predict}
	law.used = usedBySensitivity(m.Predict, X)
	return law
}

// withUnits gives a search for target the declared dimensions of the
// features and of target (units: constraint), so that it refuses
// dimensionally inconsistent candidates when all of them are declared
// (symbolic.Options.InputUnits). Without units it leaves opts unchanged.
func (m *symbolicMode) withUnits(opts *symbolic.Options, target string) {
	declared := m.plan.constraints.Units
	if len(declared) == 0 {
		return
	}
	if d, ok := declared[target]; ok {
		opts.TargetUnit = &d
	}
	opts.InputUnits = make([]*units.Dim, len(m.data.features))
	for j, name := range m.data.features {
		if d, ok := declared[name]; ok {
			opts.InputUnits[j] = &d
		}
	}
}

// dimensionallyConsistent says whether model, a law for target, is
// dimensionally consistent (symbolic.Model.DimensionallyConsistent); nil
// unless target and every feature the model uses have declared units.
func (m *symbolicMode) dimensionallyConsistent(model *symbolic.Model, target string) *bool {
	var opts symbolic.Options
	m.withUnits(&opts, target)
	if opts.TargetUnit == nil {
		return nil
	}
	consistent, ok := model.DimensionallyConsistent(opts.InputUnits, *opts.TargetUnit)
	if !ok {
		return nil
	}
	return &consistent
}

// fit fits symbolic regression on all features for target, starting from
// seeds beside the search's own (nil in symbolic mode).
func (m *symbolicMode) fit(ctx context.Context, target string, X [][]float64, y []float64, effort float64, seed int64, seeds []*symbolic.Model) (*lawModel, error) {
	opts := m.options(ctx, effort, seed)
	opts.Seeds = seeds
	m.withUnits(&opts, target)
	res, err := symbolic.Fit(ctx, X, y, m.data.features, opts)
	if err != nil {
		return nil, err
	}
	if res == nil || res.Best == nil {
		return nil, fmt.Errorf("symbolic regression returned no model")
	}
	return fromSymbolic(res.Best, X), nil
}

// search is the main search for target on the training rows,
// started from seeds beside the search's own. It reports progress from
// progressFrom to 1 of the symbolic_regression stage, records the search
// in the summary and plots its Pareto front.
func (m *symbolicMode) search(ctx context.Context, target string, y []float64, seeds []*symbolic.Model, progressFrom float64) (*lawModel, []*lawModel, error) {
	searchCtx, cancel := m.searchContext(ctx)
	defer cancel()
	Xt, yt := rowsOf(m.data.X, m.data.train), pickRows(y, m.data.train)
	opts := m.options(searchCtx, effortFull, m.plan.spec.Seed)
	opts.Progress = m.track.progressFunc(progressFrom, 1)
	opts.Seeds = seeds
	m.withUnits(&opts, target)
	res, err := symbolic.Fit(searchCtx, Xt, yt, m.data.features, opts)
	m.noteExpiry(searchCtx)
	if err != nil && (res == nil || res.Best == nil) {
		return nil, nil, m.searchFailed(ctx, "symbolic regression", err)
	}
	if res == nil || res.Best == nil {
		return nil, nil, fmt.Errorf("symbolic regression returned no model")
	}
	m.result.Summary.Searches = append(m.result.Summary.Searches,
		SearchReport{Target: target, Generations: res.Generations, Stop: res.Stop})
	// Which variables a law uses is read on the training rows it was fitted on: a
	// bounded sample, whatever the size of the table.
	chosen := fromSymbolic(res.Best, Xt)
	chosen.dimensionallyConsistent = m.dimensionallyConsistent(res.Best, target)
	var alts []*lawModel
	for _, alt := range paretoNeighbours(res.Front, res.Best) {
		law := fromSymbolic(alt, Xt)
		law.dimensionallyConsistent = m.dimensionallyConsistent(alt, target)
		alts = append(alts, law)
	}
	m.plotPareto(target, res.Front, res.Best)
	return chosen, alts, nil
}

// paretoNeighbours returns the front models adjacent to chosen in
// complexity: the next simpler and the next more complex one.
func paretoNeighbours(front []*symbolic.Model, chosen *symbolic.Model) []*symbolic.Model {
	sorted := append([]*symbolic.Model(nil), front...)
	slices.SortStableFunc(sorted, func(a, b *symbolic.Model) int { return cmp.Compare(a.Complexity, b.Complexity) })
	at := -1
	for i, m := range sorted {
		if m == chosen || (m.Expression == chosen.Expression && m.Complexity == chosen.Complexity) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	var out []*symbolic.Model
	if at > 0 && sorted[at-1].Complexity > 1 {
		out = append(out, sorted[at-1])
	}
	if at+1 < len(sorted) {
		out = append(out, sorted[at+1])
	}
	if len(out) > maxAlternatives {
		out = out[:maxAlternatives]
	}
	return out
}
