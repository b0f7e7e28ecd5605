package engine

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/discolab/disco/engine/causal"
	"github.com/discolab/disco/engine/controls"
)

// noiseNode names the pure-noise variable added for the noise_feature
// control of causal runs.
const noiseNode = "__disco_noise__"

// causalMode is the causal mode. The graph is learned on the training rows
// (PC-stable, or the lagged PCMCI-style search when a time column is
// declared) and each edge is tested on the held-out rows, so that the
// controls are not fooled by the search having picked the edge on the same
// rows. One claim is made per edge: directed edges have direction
// "forward" (cause -> effect), edges the data cannot orient have direction
// "undirected" with cause and effect in name order.
type causalMode struct{ *runner }

func (m *causalMode) discover(ctx context.Context) error {
	m.track.skip(StageNeuralPretraining)
	m.track.begin(StageCausal)
	searchCtx, cancel := m.searchContext(ctx)
	defer cancel()
	Xt := rowsOf(m.data.X, m.data.train)
	g, err := m.graph(searchCtx, Xt, m.data.features, m.plan.spec.Seed)
	m.noteExpiry(searchCtx)
	if err != nil {
		return m.searchFailed(ctx, "causal discovery", err)
	}
	m.track.advance(0.9)
	m.graphArtifacts(g)

	m.track.begin(StageNegativeControls)
	// The noise rerun and the bootstrap reruns share the time left
	// (refitSchedule); when it skips one, no edge is decided.
	reruns := bootstrapRounds
	if contains(m.plan.controls, ControlNoiseFeature) {
		reruns++
	}
	sched := m.refits(reruns)
	var noiseAdjacent map[string]float64
	if contains(m.plan.controls, ControlNoiseFeature) {
		noiseAdjacent = m.noiseAdjacency(ctx, Xt, sched)
	}
	m.track.advance(0.2)
	forms := m.bootstrap(ctx, Xt, sched)
	m.track.advance(0.6)
	decided := sched.skipped == 0
	shared := controls.NewShared(m.rng("shared_null"))
	markers := m.data.interventionMarkers() // one pass over the table, not one per edge
	for k, e := range g.Edges {
		edgeMarkers := slices.DeleteFunc(slices.Clone(markers), func(n string) bool { return n == e.From || n == e.To })
		m.addClaim(m.claim(g, e, noiseAdjacent, forms, edgeMarkers, shared, decided))
		m.track.advance(0.6 + 0.4*float64(k+1)/float64(len(g.Edges)))
	}
	return nil
}

func (m *causalMode) options(seed int64) causal.Options {
	return causal.Options{Alpha: m.plan.constraints.Alpha, MaxLag: m.plan.constraints.MaxLag, Seed: seed}
}

func (m *causalMode) graph(ctx context.Context, X [][]float64, names []string, seed int64) (*causal.Graph, error) {
	if m.data.timed {
		return causal.DiscoverLagged(ctx, X, names, m.options(seed))
	}
	return causal.Discover(ctx, X, names, m.options(seed))
}

// noiseAdjacency reruns discovery with a Gaussian noise variable added and
// returns, for each variable the noise ended up adjacent to, the largest
// absolute standardised effect of such an edge. An edge's noise_feature
// control fails when the noise is at least as strongly linked to the effect
// as the real cause is: the method then cannot tell the cause from noise.
func (m *causalMode) noiseAdjacency(ctx context.Context, Xt [][]float64, sched *refitSchedule) map[string]float64 {
	rng := m.rng("noise_feature_graph")
	noise := make([]float64, len(Xt[0]))
	for i := range noise {
		noise[i] = rng.NormFloat64()
	}
	names := append(append([]string(nil), m.data.features...), noiseNode)
	g, err := refit(ctx, sched, func(ctx context.Context) (*causal.Graph, error) {
		return m.graph(ctx, append(append([][]float64(nil), Xt...), noise), names, m.plan.spec.Seed)
	})
	out := map[string]float64{}
	if err != nil {
		// The rerun could not tell (or the time limit left it out); count
		// the noise as linked to everything so the control cannot pass on
		// missing evidence.
		for _, n := range m.data.features {
			out[n] = math.Inf(1)
		}
		return out
	}
	for _, e := range g.Edges {
		s := math.Abs(e.EffectStrength)
		if e.From == noiseNode {
			out[e.To] = math.Max(out[e.To], s)
		}
		if e.To == noiseNode {
			out[e.From] = math.Max(out[e.From], s)
		}
	}
	return out
}

// edgeKey identifies an edge for stability: oriented edges by direction,
// undirected ones by their endpoints in name order.
func edgeKey(e causal.Edge) string {
	if e.Directed {
		return fmt.Sprintf("%s->%s@%d", e.From, e.To, e.Lag)
	}
	a, b := e.From, e.To
	if b < a {
		a, b = b, a
	}
	return fmt.Sprintf("%s--%s@%d", a, b, e.Lag)
}

// bootstrap reruns discovery on resamples of the training rows and
// returns, per resample, the set of edge keys found. Time series are
// resampled as contiguous windows (80 % of the rows) so lags stay intact.
// A rerun the schedule leaves out finds no edge.
func (m *causalMode) bootstrap(ctx context.Context, Xt [][]float64, sched *refitSchedule) []map[string]bool {
	rng := m.rng("bootstrap")
	n := len(Xt[0])
	out := make([]map[string]bool, 0, bootstrapRounds)
	for b := 0; b < bootstrapRounds; b++ {
		rows := make([]int, n)
		if m.data.timed {
			w := n * 4 / 5
			start := rng.Intn(n - w + 1)
			rows = seq(start, start+w)
		} else {
			for k := range rows {
				rows[k] = rng.Intn(n)
			}
		}
		found := map[string]bool{}
		g, err := refit(ctx, sched, func(ctx context.Context) (*causal.Graph, error) {
			return m.graph(ctx, rowsOf(Xt, rows), m.data.features, m.plan.spec.Seed+int64(b)+1)
		})
		if err == nil {
			for _, e := range g.Edges {
				found[edgeKey(e)] = true
			}
		}
		out = append(out, found)
	}
	return out
}

// edgeData returns the held-out vectors an edge is tested on: the cause
// (lagged by the edge's lag), the effect, and the conditioning columns
// (the effect's other parents and neighbours; for lagged edges the
// effect's own previous value, unless that is the cause itself: a
// variable's own lag-1 past, conditioned on itself, could never pass).
func (m *causalMode) edgeData(g *causal.Graph, e causal.Edge) (x, y []float64, Z [][]float64) {
	col := func(name string) []float64 { return pickRows(m.data.column(name), m.data.holdout) }
	cause, effect := col(e.From), col(e.To)
	if e.Lag > 0 {
		n := len(effect)
		if e.Lag >= n-3 {
			return nil, nil, nil
		}
		x = cause[:n-e.Lag]
		y = effect[e.Lag:]
		if e.From == e.To && e.Lag == 1 {
			return x, y, nil
		}
		Z = [][]float64{effect[e.Lag-1 : n-1]}
		return x, y, Z
	}
	var parents []string
	for _, o := range g.Edges {
		if o.Lag != 0 || o == e {
			continue
		}
		switch {
		case o.To == e.To && o.From != e.From:
			parents = append(parents, o.From)
		case !o.Directed && o.From == e.To && o.To != e.From:
			parents = append(parents, o.To)
		}
	}
	slices.Sort(parents)
	for _, p := range parents {
		Z = append(Z, col(p))
	}
	return cause, effect, Z
}

// edgeControls runs the requested controls for one edge, on the null data
// all edges of the run share (controls.Shared).
func (m *causalMode) edgeControls(e causal.Edge, x, y []float64, Z [][]float64, noiseAdjacent map[string]float64, shared *controls.Shared) map[string]controls.Result {
	out := map[string]controls.Result{}
	if len(x) < 5 {
		return out
	}
	partial := controls.NewPartial(x, y, Z)
	byEffect, byCause := partial.ByEffect, partial.ByCause
	for _, name := range m.plan.controls {
		switch name {
		case ControlShuffledTarget:
			out[name] = shared.ShuffledTarget(y, byEffect)
		case ControlTimeShift:
			out[name] = controls.TimeShift(y, byEffect)
		case ControlPlaceboCause:
			out[name] = shared.PlaceboCause(partial.Observed(), len(x), byCause)
		case ControlNoiseFeature:
			res := shared.NoiseFeature([][]float64{x}, func(X [][]float64) float64 { return byCause(X[0]) })
			if noiseAdjacent[e.To] >= math.Abs(e.EffectStrength) {
				res.Passed = false
			}
			out[name] = res
		}
	}
	return out
}

// decided is false when the time limit left out a rerun; an edge whose
// controls the time limit leaves out is not decided either, and reports
// them not run.
func (m *causalMode) claim(g *causal.Graph, e causal.Edge, noiseAdjacent map[string]float64, forms []map[string]bool, markers []string, shared *controls.Shared, decided bool) Claim {
	x, y, Z := m.edgeData(g, e)
	var results map[string]controls.Result
	if m.expired() {
		results, decided = notRun(m.plan.controls), false
	} else {
		results = m.edgeControls(e, x, y, Z, noiseAdjacent, shared)
	}
	passed := decided && controls.AllPassed(results)
	key := edgeKey(e)
	agree := 0
	for _, f := range forms {
		if f[key] {
			agree++
		}
	}
	stability := 0.0
	if len(forms) > 0 {
		stability = float64(agree) / float64(len(forms))
	}
	score := controls.Score(controls.Components{Fit: e.Confidence, Controls: results, Stability: stability,
		Complexity: 1 + len(Z), MaxComplexity: len(g.Nodes), Undecided: !decided})
	direction, arrow := "forward", "->"
	if !e.Directed {
		direction, arrow = "undirected", "--"
	}
	temporal := "contemporaneous"
	ev := Evidence{
		CausalConfidence:       f64(round4(e.Confidence)),
		BootstrapStability:     stability,
		NegativeControlsPassed: passed,
		NegativeControls:       results,
		OrientedBy:             e.OrientedBy,
	}
	if e.Lag > 0 {
		temporal = fmt.Sprintf("lag:%d", e.Lag)
		ev.GrangerScore = f64(round4(e.GrangerF))
		ev.InterventionEffectSize = f64(round4(e.EffectStrength))
		ev.PValue = f64(e.PValue)
	} else {
		ev.EffectStrength = f64(round4(e.EffectStrength))
	}
	vars := []string{e.From, e.To}
	return Claim{
		Type: ClaimCausal,
		Summary: fmt.Sprintf("%s %s %s (%s, confidence %.2f, standardised effect %.2f, negative controls %s)",
			e.From, arrow, e.To, temporal, e.Confidence, e.EffectStrength, decidedWord(passed, decided)),
		Score:               score,
		Scope:               Scope{Variables: vars, Domain: m.data.domain(vars), ConstraintsSatisfied: m.plan.constraints.Satisfied},
		Evidence:            ev,
		Cause:               e.From,
		Effect:              e.To,
		Direction:           direction,
		TemporalScope:       temporal,
		InterventionMarkers: markers,
	}
}
