package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/discolab/disco/engine/controls"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/engine/dynamics"
)

// Negative controls of dynamics claims, as they appear on the wire. They
// are the dynamics claim's own controls, run whatever the spec's
// negative_controls ask: shuffled_target, noise_feature and time_shift
// test a static law y = f(x), not an equation of motion.
const (
	// ControlHeldOutSimulation is the acceptance rule of engine/dynamics
	// (the simulated system follows held-out trajectories at least 3 times
	// as long as the persistence forecast, and every term is selected by at
	// least 60 % of the ensemble), with the simulation's normalised error
	// compared with the same error on time-shuffled data.
	ControlHeldOutSimulation = "held_out_simulation"
	// ControlTimeShuffle compares the equation's cross-validated R² with
	// the same R² on time-shuffled data.
	ControlTimeShuffle = "time_shuffle"
)

// dynamicsMaxRows is the runs' dynamics.Settings.MaxRows: 0, the
// package's default (dynamics.DefaultMaxRows); tests lower it to reach the
// row rule on small data.
var dynamicsMaxRows int

// timeShuffles is the number of time-shuffled copies of the data the
// dynamics controls refit on: with 19, the smallest attainable permutation
// p-value, 1/(1+19), is controls.Alpha.
const timeShuffles = 19

// dynamicsMode discovers equations of motion, dx/dt = f(states, inputs),
// for the states a dynamics: constraint names (issue 18, item 1). It runs
// in symbolic mode in place of the law search: the sparse regression of
// engine/dynamics over a library of monomials (degree 3, lower when the
// states and inputs are many; the claims' summary says so) and sin/cos of the
// states and inputs, in the weak form, chosen by cross-validation. The
// neuro-symbolic surrogate has nothing to add to a library regression, so
// the other modes refuse dynamics:. Inputs are the numeric columns that are
// not the time, the trajectory, a state or excluded, restricted by
// include:. With a trajectory: constraint the conservation search runs
// after, as in symbolic mode.
//
// Each state gets one law claim with target "dx/dt" and the right-hand side
// as its expression. Its controls refit the whole system on timeShuffles
// copies of this run's data whose rows (states and inputs together) are
// permuted within each trajectory while the times stay: the values are
// real, their order in time is not. A claim that fails the acceptance rule
// fails both controls, whatever the permutations say.
type dynamicsMode struct{ *runner }

func (m *dynamicsMode) discover(ctx context.Context) error {
	m.track.skip(StageNeuralPretraining)
	m.track.begin(StageSymbolic)
	traj := m.trajectories()
	settings := dynamics.Settings{Seed: uint64(m.plan.spec.Seed), MaxRows: dynamicsMaxRows}
	searchCtx, cancel := m.searchContext(ctx)
	res, err := dynamics.Discover(searchCtx, traj, settings)
	m.noteExpiry(searchCtx)
	cancel()
	if err != nil {
		return m.dynamicsFailed(ctx, err)
	}
	m.track.begin(StageNegativeControls)
	nulls, complete := m.timeShuffled(ctx, traj, settings)
	for s := range res.Equations {
		m.addClaim(m.claim(res, s, nulls, complete))
	}
	m.plotDynamics(traj, res)
	return conserved(ctx, m.runner)
}

// trajectories is the run's data as engine/dynamics takes it: every row
// (engine/dynamics holds out trajectories itself), the states, and the
// run's features as inputs.
func (m *dynamicsMode) trajectories() dynamics.Trajectories {
	c := m.plan.constraints
	t := dynamics.Trajectories{
		Time:       m.data.column(c.Time),
		StateNames: m.plan.targets,
		InputNames: m.plan.features,
		Inputs:     m.data.X,
	}
	for _, s := range m.plan.targets {
		t.States = append(t.States, m.data.column(s))
	}
	if c.Trajectory != "" {
		col, _ := m.data.frame.Column(c.Trajectory)
		t.Trajectory = trajectoryLabels(col, m.data.frame.Rows)
	}
	return t
}

// dynamicsFailed maps engine/dynamics' input errors (too few rows per
// trajectory, too large a library) to a SpecError the submitter can act on.
func (m *dynamicsMode) dynamicsFailed(ctx context.Context, err error) error {
	if errors.Is(err, dynamics.ErrInvalidData) {
		return constraintErr("dynamics: %s (fewer inputs: include: or exclude:; more rows: longer or more trajectories)", dynamicsReason(err))
	}
	return m.searchFailed(ctx, "dynamics search", err)
}

// dynamicsReason is an engine/dynamics input error's message without the
// package's prefix, for a constraint_invalid answer.
func dynamicsReason(err error) string {
	return strings.TrimPrefix(err.Error(), dynamics.ErrInvalidData.Error()+": ")
}

// shuffled is what one refit on time-shuffled data measured: each state's
// cross-validated R² and the system's held-out simulation error.
type shuffled struct {
	cvR2  []float64
	nrmse float64
}

// timeShuffled refits the system on timeShuffles time-shuffled copies of
// traj, within the run's time limit; refits that fail or do not finish in
// time are left out, so fewer nulls make the controls harder to pass.
// complete is false when the time limit ended the refits early: the
// claims' controls are then not decided.
func (m *dynamicsMode) timeShuffled(ctx context.Context, traj dynamics.Trajectories, settings dynamics.Settings) (_ []shuffled, complete bool) {
	ctx, cancel := m.stageContext(ctx)
	defer cancel()
	labels, groups := trajectoryGroups(traj)
	rng := m.rng(ControlTimeShuffle)
	progress := m.track.progressFunc(0, 1)
	var out []shuffled
	// one permutation and one copy of the columns serve every refit:
	// Discover keeps nothing of its input
	perm := make([]int, len(traj.Time))
	null := traj
	null.States, null.Inputs = newColumns(traj.States), newColumns(traj.Inputs)
	for k := range timeShuffles {
		for _, l := range labels {
			rows := groups[l]
			for a, b := range rng.Perm(len(rows)) {
				perm[rows[a]] = rows[b]
			}
		}
		permuteRows(null.States, traj.States, perm)
		permuteRows(null.Inputs, traj.Inputs, perm)
		settings.Seed++
		settings.NoHeldOutFit = true
		if m.expired() {
			return out, false
		}
		res, err := dynamics.Discover(ctx, null, settings)
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				m.result.Summary.TimedOut = true
			}
			return out, false
		}
		if err == nil {
			s := shuffled{nrmse: res.Simulation.NRMSE}
			for _, eq := range res.Equations {
				s.cvR2 = append(s.cvR2, eq.CVR2)
			}
			out = append(out, s)
		}
		progress(float64(k+1) / timeShuffles)
	}
	return out, true
}

// newColumns returns columns of the lengths of X's.
func newColumns(X [][]float64) [][]float64 {
	out := make([][]float64, len(X))
	for j, col := range X {
		out[j] = make([]float64, len(col))
	}
	return out
}

// permuteRows fills dst's columns with X's, row i taken from row perm[i].
func permuteRows(dst, X [][]float64, perm []int) {
	for j, col := range X {
		for i, p := range perm {
			dst[j][i] = col[p]
		}
	}
}

// claim is the law claim of state s: ds/dt = its right-hand side.
func (m *dynamicsMode) claim(res dynamics.Result, s int, nulls []shuffled, decided bool) Claim {
	eq, sim := res.Equations[s], res.Simulation
	cvNull, errNull := make([]float64, len(nulls)), make([]float64, len(nulls))
	for k, n := range nulls {
		cvNull[k], errNull[k] = n.cvR2[s], -n.nrmse
	}
	decide := func(observed float64, null []float64) controls.Result {
		p := controls.PValue(observed, null)
		return controls.Result{Passed: eq.Passed && p <= controls.Alpha, PValue: p}
	}
	results := map[string]controls.Result{
		ControlHeldOutSimulation: decide(-sim.NRMSE, errNull),
		ControlTimeShuffle:       decide(eq.CVR2, cvNull),
	}
	passed := decided && controls.AllPassed(results)
	complexity := 0
	vars := []string{eq.State}
	for name := range eq.Coefficients {
		c, used := termShape(name, append(append([]string(nil), m.plan.targets...), m.plan.features...))
		complexity += c + 1 // the term and its coefficient
		for _, v := range used {
			if !contains(vars, v) {
				vars = append(vars, v)
			}
		}
	}
	slices.Sort(vars[1:])
	score := controls.Score(controls.Components{Fit: eq.CVR2, Controls: results, Stability: eq.Stability,
		Complexity: complexity, MaxComplexity: m.plan.spec.maxComplexity(), Undecided: !decided})
	sample := ""
	if res.SampledRows < res.Rows {
		sample = fmt.Sprintf("; fitted and simulated on %d of %d rows", res.SampledRows, res.Rows)
	}
	if res.LibraryNote != "" {
		sample += "; " + res.LibraryNote
	}
	if res.Candidates > 0 {
		sample += fmt.Sprintf("; the library of %s: %s", eq.Target, strings.Join(eq.Variables, ", "))
	}
	summary := fmt.Sprintf("%s = %s (cross-validated R² %.3f; held-out simulation valid for %.4g, persistence %.4g%s; negative controls %s)",
		eq.Target, eq.Expression, finite(eq.CVR2), sim.Horizon, sim.PersistenceHorizon, sample, decidedWord(passed, decided))
	if len(eq.Reasons) > 0 {
		summary += ": " + strings.Join(eq.Reasons, "; ")
	}
	var inclusion map[string]float64
	if len(eq.Inclusion) > 0 {
		inclusion = map[string]float64{}
		for term, p := range eq.Inclusion {
			inclusion[term] = round4(p)
		}
	}
	var heldOut *float64
	if res.HeldOutRows > 0 && !math.IsNaN(eq.HeldOutR2) {
		heldOut = f64(round4(eq.HeldOutR2))
	}
	return Claim{
		Type:    ClaimLaw,
		Summary: summary,
		Score:   score,
		Scope: Scope{Variables: vars, Domain: m.data.domain(vars),
			ConstraintsSatisfied: m.plan.constraints.Satisfied},
		Evidence: Evidence{
			RSquared:               f64(round4(eq.CVR2)),
			HeldOutRSquared:        heldOut,
			CrossValidationScore:   f64(round4(eq.CVR2)),
			Complexity:             complexity,
			SimulationHorizon:      f64(significant4(sim.Horizon)),
			PersistenceHorizon:     f64(significant4(sim.PersistenceHorizon)),
			SimulationNRMSE:        f64(round4(sim.NRMSE)),
			TermInclusion:          inclusion,
			BootstrapStability:     round4(eq.Stability),
			NegativeControlsPassed: passed,
			NegativeControls:       results,
		},
		Expression: eq.Expression,
		Target:     eq.Target,
	}
}

// termFactor is one factor of a library term: fn(z[j])^pow with fn "",
// "sin" or "cos".
type termFactor struct {
	fn       string
	j, power int
}

// parseTerm reads a library term's name as engine/dynamics prints it, a
// product of "v", "v^k", "sin(v)" and "cos(v)" over names, or "1" (no
// factor); ok is false when a factor names no variable of names.
func parseTerm(term string, names []string) (factors []termFactor, ok bool) {
	if term == "1" {
		return nil, true
	}
	for _, raw := range strings.Split(term, "*") {
		f := termFactor{power: 1}
		base, pow, hasPow := strings.Cut(raw, "^")
		if k, err := strconv.Atoi(pow); hasPow && err == nil && k > 0 {
			f.power = k
		}
		for _, fn := range []string{"sin", "cos"} {
			if strings.HasPrefix(base, fn+"(") && strings.HasSuffix(base, ")") {
				f.fn, base = fn, base[len(fn)+1:len(base)-1]
			}
		}
		if f.j = slices.Index(names, base); f.j < 0 {
			return nil, false
		}
		factors = append(factors, f)
	}
	return factors, true
}

// evalTerm is the term's value at z.
func evalTerm(factors []termFactor, z []float64) float64 {
	v := 1.0
	for _, f := range factors {
		x := z[f.j]
		switch f.fn {
		case "sin":
			x = math.Sin(x)
		case "cos":
			x = math.Cos(x)
		}
		for range f.power {
			v *= x
		}
	}
	return v
}

// termShape returns a library term's complexity as engine/dynamics counts
// it (the total degree, 2 for sin and cos, 1 for the constant) and the
// variables of names it uses.
func termShape(term string, names []string) (complexity int, used []string) {
	factors, _ := parseTerm(term, names)
	for _, f := range factors {
		if f.fn != "" {
			complexity += 2
		} else {
			complexity += f.power
		}
		if !contains(used, names[f.j]) {
			used = append(used, names[f.j])
		}
	}
	return max(complexity, 1), used
}

// significant4 rounds v to 4 significant digits (0 for NaN and infinities).
func significant4(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(finite(v), 'g', 4, 64), 64)
	return r
}

// trajectoryIDs numbers the trajectories of the first n rows of col in
// order of first appearance, a number per row, and returns their labels: the text,
// or the number as strconv prints it. A numeric label is printed once per
// trajectory, not once per row.
func trajectoryIDs(col *data.Column, n int) (ids []int32, labels []string) {
	ids = make([]int32, n) // trajectories are no more than rows, whose count fits
	byLabel := map[string]int32{}
	printed := map[float64]string{}
	for i := range ids {
		var label string
		if col.DType.IsNumeric() {
			v := col.Values[i]
			l, ok := printed[v]
			if !ok {
				l = strconv.FormatFloat(v, 'g', -1, 64)
				printed[v] = l
			}
			label = l
		} else {
			label = col.Strings[i]
		}
		id, ok := byLabel[label]
		if !ok {
			id = int32(len(labels))
			byLabel[label] = id
			labels = append(labels, label)
		}
		ids[i] = id
	}
	return ids, labels
}

// trajectoryLabels is each row's trajectory label (trajectoryIDs), the
// rows of one trajectory sharing one string.
func trajectoryLabels(col *data.Column, n int) []string {
	ids, labels := trajectoryIDs(col, n)
	out := make([]string, n)
	for i, id := range ids {
		out[i] = labels[id]
	}
	return out
}

// checkDynamics checks a dynamics: constraint against the mode, the other
// constraints, the targets and, when given, the dataset's column names.
func (s Spec) checkDynamics(c *Constraints, columns []string) error {
	if len(c.Dynamics) == 0 {
		return nil
	}
	if s.Mode != ModeSymbolic {
		return constraintErr("dynamics: runs in mode symbolic, not %q: submit the run with mode symbolic", s.Mode)
	}
	if c.Time == "" {
		return constraintErr("dynamics:%s needs the time of each row: add the constraint time:<column>", strings.Join(c.Dynamics, ","))
	}
	for _, st := range c.Dynamics {
		switch {
		case st == c.Time:
			return constraintErr("dynamics: state %q is the time column: list the states, not the time", st)
		case st == c.Trajectory:
			return constraintErr("dynamics: state %q is the trajectory column: list the states, not the trajectory labels", st)
		case contains(c.Exclude, st):
			return constraintErr("dynamics: state %q is also in exclude: remove it from one of the two", st)
		case len(columns) > 0 && !contains(columns, st):
			return constraintErr("dynamics: state %q is not a column of the dataset: list columns of the dataset as states", st)
		}
	}
	for _, t := range s.targets() {
		if !contains(c.Dynamics, t) {
			return specErrorf(CodeParameterInvalid, "target_variables",
				"target %q is not a state of dynamics:%s: a dynamics run explains its states, so leave target_variables empty", t, strings.Join(c.Dynamics, ","))
		}
	}
	return nil
}

// checkDynamicsData checks a dynamics run's columns in the data: numeric
// states and distinct times within each trajectory.
func checkDynamicsData(c *Constraints, f *data.Frame) error {
	if len(c.Dynamics) == 0 {
		return nil
	}
	for _, st := range c.Dynamics {
		if col, _ := f.Column(st); !col.DType.IsNumeric() {
			return constraintErr("dynamics: state %q is not numeric (%s): list numeric columns as states", st, col.DType)
		}
	}
	tc, _ := f.Column(c.Time) // numeric: resolve checked it
	// rows sorted by trajectory, time and row number: a repeated time is two
	// neighbours, and the first pair in row order is reported, as a scan
	// of the rows would find it; sorting row numbers takes a few bytes a
	// row where a map of (trajectory, time) took tens
	traj, labels := make([]int32, f.Rows), []string{""}
	if c.Trajectory != "" {
		col, _ := f.Column(c.Trajectory)
		traj, labels = trajectoryIDs(col, f.Rows)
	}
	order := make([]int, f.Rows)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(traj[a], traj[b]), cmp.Compare(tc.Values[a], tc.Values[b]), cmp.Compare(a, b))
	})
	j, i := -1, -1
	for k := 1; k < len(order); k++ {
		a, b := order[k-1], order[k]
		if traj[a] == traj[b] && tc.Values[a] == tc.Values[b] && (i < 0 || b < i) {
			j, i = a, b
		}
	}
	if i < 0 {
		return nil
	}
	t := tc.Values[i]
	if c.Trajectory != "" {
		return constraintErr("time column %q is not increasing within trajectory %q: rows %d and %d both have time %g; give each row of a trajectory its own time",
			c.Time, labels[traj[i]], j+1, i+1, t)
	}
	return constraintErr("time column %q is not increasing: rows %d and %d both have time %g; when the rows hold several trajectories, add trajectory:<column>, else give each row its own time",
		c.Time, j+1, i+1, t)
}
