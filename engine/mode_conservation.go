package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/discolab/disco/engine/conservation"
	"github.com/discolab/disco/engine/controls"
)

// conservationTolerance is the relative variation at which a quantity's
// fit component of the score reaches 0 (conservation's default tolerance).
const conservationTolerance = 0.02

// conservationMode searches for conserved quantities along the trajectories
// named by the trajectory: constraint; the symbolic and neuro-symbolic
// modes run it after their laws (conserved). Quantities are found on the
// training rows; relative_variation is measured on every row they were not
// found on (isEvidenceRow), the control on the held-out subsample. Only the noise_feature
// control applies: each variable of the quantity is replaced in turn by a
// permutation of itself, and the quantity must vary less along trajectories
// with the real variable than with any of the 99 noise substitutes.
type conservationMode struct{ *runner }

// conserved runs the conservation search when the run names trajectories.
func conserved(ctx context.Context, r *runner) error {
	if r.plan.constraints.Trajectory == "" {
		return nil
	}
	return (&conservationMode{r}).discover(ctx)
}

func (m *conservationMode) discover(ctx context.Context) error {
	vars := append(append([]string(nil), m.plan.features...), m.plan.targets...)
	slices.SortStableFunc(vars, func(a, b string) int { return cmp.Compare(m.position(a), m.position(b)) })
	X := make([][]float64, len(vars)) // views of the frame's columns, not a copy
	for j, v := range vars {
		X[j] = m.data.column(v)
	}
	col, _ := m.data.frame.Column(m.plan.constraints.Trajectory)
	labels := trajectoryLabels(col, m.data.frame.Rows)
	Xt, lt := rowsOf(X, m.data.train), pickRows(labels, m.data.train)
	// In symbolic and neuro-symbolic runs this search follows the laws: it
	// and its bootstrap share the time left before the refits' end
	// (refitSchedule), and when the time limit ends it the run keeps its
	// laws and has no conservation claim.
	sched := m.refits(bootstrapRounds)
	findCtx, cancel := sched.rest(ctx)
	res, err := conservation.Search(findCtx, Xt, vars, lt, conservation.Options{})
	qs := res.Quantities
	// Only the schedule's own deadline is a cut; read it before cancel, which
	// would make every error look like one.
	cut := ctx.Err() == nil && errors.Is(findCtx.Err(), context.DeadlineExceeded)
	cancel()
	if err != nil && cut {
		m.result.Summary.TimedOut = true
		qs, err = nil, nil
	}
	if err != nil {
		return m.searchFailed(ctx, "conservation search", err)
	}
	if len(qs) == 0 {
		return nil
	}
	Xh, lh := rowsOf(X, m.data.holdout), pickRows(labels, m.data.holdout)
	stable := m.bootstrap(ctx, Xt, vars, lt, bootstrapGroups(res), sched)
	held := trajectoryRows(lh, nil)
	for _, q := range qs {
		terms, err := parseTerms(q.Coefficients, vars)
		if err != nil {
			continue // a term this engine cannot evaluate: no claim rather than a wrong one
		}
		m.addClaim(m.claim(q, terms, relativeVariation(terms, X, labels, m.data.isEvidenceRow), Xh, held, stable, sched.skipped == 0, res.Note))
	}
	return nil
}

// bootstrapGroups are the groups of a grouped search (see the conservation
// package's groups.go) that hold a quantity found: the bootstrap reruns only
// these, since only the quantities found are counted, and each group's
// search is independent of the others. It is nil when the search was whole.
func bootstrapGroups(res conservation.Result) [][]string {
	if res.Groups == nil {
		return nil
	}
	out := [][]string{}
	for _, g := range res.Groups {
		holds := func(q conservation.Quantity) bool {
			return !slices.ContainsFunc(q.Variables, func(v string) bool { return !slices.Contains(g, v) })
		}
		if slices.ContainsFunc(res.Quantities, holds) {
			out = append(out, g)
		}
	}
	return out
}

// position is a column's index in the frame, for stable variable order.
func (m *conservationMode) position(name string) int {
	for i, c := range m.data.frame.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// bootstrap reruns the search on trajectory resamples and returns what
// each round found; the schedule may leave rounds out.
// With groups (see bootstrapGroups) each round searches those groups of
// variables alone, on their columns only, rather than grouping again: the
// grouping's pairwise statistics are the costly part at many variables.
func (m *conservationMode) bootstrap(ctx context.Context, X [][]float64, vars, labels []string, groups [][]string, sched *refitSchedule) [][]conservation.Quantity {
	if groups != nil {
		var sub [][]float64
		var names []string
		for j, v := range vars {
			if slices.ContainsFunc(groups, func(g []string) bool { return slices.Contains(g, v) }) {
				sub, names = append(sub, X[j]), append(names, v)
			}
		}
		X, vars = sub, names
	}
	byLabel := map[string][]int{}
	var names []string
	for i, l := range labels {
		if _, ok := byLabel[l]; !ok {
			names = append(names, l)
		}
		byLabel[l] = append(byLabel[l], i)
	}
	rng := m.rng("bootstrap")
	var found [][]conservation.Quantity
	for b := 0; b < bootstrapRounds; b++ {
		var rows []int
		var lab []string
		for k := range names {
			pick := names[rng.Intn(len(names))]
			for _, i := range byLabel[pick] {
				rows = append(rows, i)
				lab = append(lab, fmt.Sprintf("%s#%d", pick, k))
			}
		}
		qs, err := refit(ctx, sched, func(ctx context.Context) ([]conservation.Quantity, error) {
			return conservation.Find(ctx, rowsOf(X, rows), vars, lab, conservation.Options{Groups: groups})
		})
		if err != nil {
			continue
		}
		found = append(found, qs)
	}
	return found
}

// sameQuantityCosine is how closely a resample's coefficients must point
// the way of the quantity's for the bootstrap to count it as the same
// quantity (cosine 0.99, about 8°), given the same terms: a quantity is
// defined up to scale, and its fitted coefficients (6.887e-05*v^2 + …)
// change in their last printed digits from one resample to the next.
const sameQuantityCosine = 0.99

// stability is the share of the bootstrapRounds rounds that found q: a
// quantity of the same terms whose coefficients point the same way.
func stability(q conservation.Quantity, rounds [][]conservation.Quantity) float64 {
	same := func(r conservation.Quantity) bool {
		if len(r.Coefficients) != len(q.Coefficients) {
			return false
		}
		var dot, qq, rr float64
		for term, a := range q.Coefficients {
			b, ok := r.Coefficients[term]
			if !ok {
				return false
			}
			dot, qq, rr = dot+a*b, qq+a*a, rr+b*b
		}
		return qq > 0 && rr > 0 && math.Abs(dot)/math.Sqrt(qq*rr) >= sameQuantityCosine
	}
	n := 0
	for _, round := range rounds {
		if slices.ContainsFunc(round, same) {
			n++
		}
	}
	return float64(n) / bootstrapRounds
}

// claim is the claim of quantity q, whose relative variation on the
// evidence rows is rv; its control runs on the held-out subsample Xh
// (held are its rows of each trajectory) unless the time limit has
// expired, and decided is false when the time limit left bootstrap rounds
// out; rounds are what the bootstrap's rounds found. note is the search's
// Result.Note (how it departed from one library of degree 2), for the
// summary.
func (m *conservationMode) claim(q conservation.Quantity, terms []term, rv float64, Xh [][]float64, held [][]int, rounds [][]conservation.Quantity, decided bool, note string) Claim {
	used := map[int]bool{}
	for _, t := range terms {
		for _, j := range t.Variables {
			used[j] = true
		}
	}
	var cols []int
	for j := range Xh {
		if used[j] {
			cols = append(cols, j)
		}
	}
	results := map[string]controls.Result{}
	switch {
	case !contains(m.plan.controls, ControlNoiseFeature):
	case m.expired():
		results, decided = notRun([]string{ControlNoiseFeature}), false
	default:
		sub := make([][]float64, len(cols))
		for k, j := range cols {
			sub[k] = Xh[j]
		}
		full := append([][]float64(nil), Xh...) // every call replaces the same columns
		stat := func(s [][]float64) float64 {
			for k, j := range cols {
				full[j] = s[k]
			}
			return -variationOn(terms, full, held)
		}
		results[ControlNoiseFeature] = controls.NoiseFeature(sub, stat, m.rng(ControlNoiseFeature+q.Expression))
	}
	passed := decided && controls.AllPassed(results)
	degreeNote := ""
	if note != "" {
		degreeNote = "; " + note
	}
	stable := stability(q, rounds)
	score := controls.Score(controls.Components{Fit: 1 - rv/conservationTolerance, Controls: results,
		Stability: stable, Complexity: len(terms), MaxComplexity: m.plan.spec.maxComplexity(), Undecided: !decided})
	return Claim{
		Type:    ClaimConservation,
		Summary: fmt.Sprintf("%s is conserved along trajectories (relative variation %.3g%s, negative controls %s)", q.Expression, rv, degreeNote, decidedWord(passed, decided)),
		Score:   score,
		Scope: Scope{Variables: q.Variables, Domain: m.data.domain(q.Variables),
			ConstraintsSatisfied: m.plan.constraints.Satisfied},
		Evidence: Evidence{
			RelativeVariation:      f64(round4(rv)),
			Trajectories:           q.Trajectories,
			BootstrapStability:     stable,
			NegativeControlsPassed: passed,
			NegativeControls:       results,
		},
		Expression: q.Expression,
		Variables:  q.Variables,
	}
}

// term is one coefficient times a library term of the conservation package.
type term struct {
	coef float64
	conservation.Term
}

// parseTerms reads the conservation package's term names (see
// conservation.ParseTerm), in sorted order.
func parseTerms(coefs map[string]float64, vars []string) ([]term, error) {
	keys := make([]string, 0, len(coefs))
	for k := range coefs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]term, 0, len(keys))
	for _, k := range keys {
		t, err := conservation.ParseTerm(k, vars)
		if err != nil {
			return nil, err
		}
		out = append(out, term{coef: coefs[k], Term: t})
	}
	return out, nil
}

// eval is the term at row i of X; state is a scratch buffer of len(X), of
// which it sets only the term's own variables, so that a term of two
// variables among hundreds costs two reads.
func (t term) eval(X [][]float64, i int, state []float64) float64 {
	for _, j := range t.Variables {
		state[j] = X[j][i]
	}
	return t.Eval(state)
}

// relativeVariation is conservation's measure on the rows i of X for which
// in(i) holds (in nil: every row): the mean over trajectories (with at
// least 3 rows) of std_t(Q) / sum_k |c_k| std_t(term_k). It is 1 when
// nothing can be measured.
func relativeVariation(terms []term, X [][]float64, labels []string, in func(i int) bool) float64 {
	return variationOn(terms, X, trajectoryRows(labels, in))
}

// trajectoryRows are the rows i with in(i) (in nil: every row) of each
// trajectory, in sorted order of the labels.
func trajectoryRows(labels []string, in func(i int) bool) [][]int {
	groups := map[string][]int{}
	for i, l := range labels {
		if in == nil || in(i) {
			groups[l] = append(groups[l], i)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][]int, len(keys))
	for a, k := range keys {
		out[a] = groups[k]
	}
	return out
}

// variationOn is relativeVariation on the rows of each trajectory given.
func variationOn(terms []term, X [][]float64, trajectories [][]int) float64 {
	total, count := 0.0, 0
	state := make([]float64, len(X))
	for _, rows := range trajectories {
		if len(rows) < 3 {
			continue
		}
		q := make([]float64, len(rows))
		denom := 0.0
		for _, t := range terms {
			v := make([]float64, len(rows))
			for a, i := range rows {
				v[a] = t.eval(X, i, state)
				q[a] += t.coef * v[a]
			}
			denom += math.Abs(t.coef) * stat.StdDev(v, nil)
		}
		if denom == 0 {
			continue
		}
		total += math.Min(1, stat.StdDev(q, nil)/denom)
		count++
	}
	if count == 0 {
		return 1
	}
	return total / float64(count)
}
