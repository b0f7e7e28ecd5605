package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"

	"github.com/discolab/disco/engine/controls"
)

// Effort levels: the refits behind cross-validation and bootstrap
// stability run with a fraction of the search effort of the main fit.
const (
	effortFull      = 1.0
	effortRefit     = 0.3
	bootstrapRounds = 4
	crossValidateK  = 5
)

// lawModel is a fitted law, whatever method found it.
type lawModel struct {
	expression string
	complexity int
	// predict evaluates the law on column-major data over all features.
	predict func(X [][]float64) []float64
	// used indexes the features the law depends on.
	used []int
	// form summarises structure for stability checks; laws agree when
	// their forms are equal. Defaults to the used variable set.
	form string
	// dimensionallyConsistent is set when the run declares the units of
	// the target and of every variable the law uses (units: constraint).
	dimensionallyConsistent *bool
}

// lawFitter fits a law on (X, y); effort scales the search.
type lawFitter func(ctx context.Context, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error)

// usedBySensitivity finds the features whose values change the prediction:
// each column is rotated by one row and the predictions compared.
func usedBySensitivity(predict func([][]float64) []float64, X [][]float64) []int {
	base := predict(X)
	var used []int
	for j := range X {
		rotated := append([][]float64(nil), X...)
		col := make([]float64, len(X[j]))
		for i := range col {
			col[i] = X[j][(i+1)%len(col)]
		}
		rotated[j] = col
		moved := predict(rotated)
		for i := range base {
			if math.Abs(moved[i]-base[i]) > 1e-9*(1+math.Abs(base[i])) {
				used = append(used, j)
				break
			}
		}
	}
	return used
}

func (m *lawModel) formKey() string {
	if m.form != "" {
		return m.form
	}
	parts := make([]string, len(m.used))
	for k, j := range m.used {
		parts[k] = fmt.Sprint(j)
	}
	return "vars:" + strings.Join(parts, ",")
}

// lawEvaluation is everything measured about one law.
type lawEvaluation struct {
	rSquared, heldOut, cv float64
	controls              map[string]controls.Result
	stability             float64
	// decided is false when the time limit expired before the law's
	// controls ran or before its target's refits were all made: the law
	// then cannot pass (controls.Components.Undecided).
	decided bool
}

// refitEvidence is what a target's refits measured: the cross-validated R²
// (NaN when not asked for, or when the time limit left a fold out), the
// form of each bootstrap refit, and whether every refit was made.
type refitEvidence struct {
	cv       float64
	forms    []string
	complete bool
}

// evaluateLaw measures a law: fit on all rows, held-out fit on every row
// the search did not train on (lawFit, from pred, the law's predictions on
// every row), negative controls on the held-out subsample and bootstrap
// stability.
// The method-level measurements (cross-validation, bootstrap refits) are
// computed once per target and passed in as refits.
//
// tests is the number of laws tested for the target (the chosen law and its
// alternatives, at most 1+maxAlternatives = 3, so the permutation floor of
// 0.01 stays below Alpha/tests); their controls are corrected for it
// (controls.Bonferroni): several laws are several chances to pass by luck.
//
// When the run's time limit has expired the controls are not run: each is
// reported failed with p-value 1 (notRun) and the law is not decided.
func (r *runner) evaluateLaw(m *lawModel, y, pred []float64, refits refitEvidence, tests int) lawEvaluation {
	d := r.data
	ev := lawEvaluation{decided: refits.complete}
	ev.rSquared, ev.heldOut = d.lawFit(pred, y)
	ev.cv = refits.cv
	if !r.plan.spec.Parameters.CrossValidate {
		ev.cv = ev.heldOut
	}
	if r.expired() {
		ev.controls = notRun(r.lawControlNames())
		ev.decided = false
	} else {
		Xh, yh := rowsOf(d.X, d.holdout), pickRows(y, d.holdout)
		ev.controls = r.lawControls(m, Xh, yh)
		controls.Bonferroni(ev.controls, tests)
	}
	if !(ev.heldOut > 0) {
		// A law that predicts unseen rows worse than their mean has shown no skill for a
		// control to confirm, whatever the permutations say: on data with no law, a
		// spurious fit (cos(9·x3) on noise) can still beat shuffled targets by chance.
		for name, res := range ev.controls {
			res.Passed = false
			ev.controls[name] = res
		}
	}
	agree := 0
	for _, f := range refits.forms {
		if f == m.formKey() {
			agree++
		}
	}
	if len(refits.forms) > 0 {
		ev.stability = float64(agree) / float64(len(refits.forms))
	}
	return ev
}

// lawControlNames are the requested controls that apply to laws.
func (r *runner) lawControlNames() []string {
	var out []string
	for _, name := range r.plan.controls {
		if name != ControlPlaceboCause {
			out = append(out, name)
		}
	}
	return out
}

// notRun reports each named control as not run: failed, with p-value 1 (no
// evidence against the null), so that a claim never passes on a control the
// time limit left out.
func notRun(names []string) map[string]controls.Result {
	out := make(map[string]controls.Result, len(names))
	for _, name := range names {
		out[name] = controls.Result{Passed: false, PValue: 1}
	}
	return out
}

// lawControls runs the requested controls that apply to laws; placebo_cause
// is a causal control and is not run for laws.
func (r *runner) lawControls(m *lawModel, Xh [][]float64, yh []float64) map[string]controls.Result {
	out := map[string]controls.Result{}
	pred := m.predict(Xh)
	// The statistic is the held-out R² of the law as stated (signed, unscaled): a law
	// of the wrong sign or scale does not get credit for correlating.
	fixed := func(y []float64) float64 { return controls.RSquared(y, pred) }
	for _, name := range r.plan.controls {
		rng := r.rng(name)
		switch name {
		case ControlShuffledTarget:
			out[name] = controls.ShuffledTarget(yh, fixed, rng)
		case ControlTimeShift:
			out[name] = controls.TimeShift(yh, fixed)
		case ControlNoiseFeature:
			sub := make([][]float64, len(m.used))
			for k, j := range m.used {
				sub[k] = Xh[j]
			}
			stat := func(s [][]float64) float64 {
				full := append([][]float64(nil), Xh...)
				for k, j := range m.used {
					full[j] = s[k]
				}
				return controls.RSquared(yh, m.predict(full))
			}
			out[name] = controls.NoiseFeature(sub, stat, rng)
		}
	}
	return out
}

// crossValidate refits on k-1 folds of all rows (at most maxTrainRows of
// them, thinned) with reduced effort and returns the mean R² on the
// left-out folds, each measured on all of its rows (rSquaredOn); NaN when
// no fold could be measured or the schedule left a fold out.
func (r *runner) crossValidate(ctx context.Context, y []float64, fit lawFitter, sched *refitSchedule) float64 {
	n := len(y)
	perm := rand.New(rand.NewSource(r.plan.spec.Seed + 7)).Perm(n)
	fold := make([]uint8, n)
	for pos, i := range perm {
		fold[i] = uint8(pos % crossValidateK)
	}
	total, folds, skipped := 0.0, 0, sched.skipped
	for k := 0; k < crossValidateK; k++ {
		trainRows := make([]int, 0, n-n/crossValidateK)
		for pos, i := range perm {
			if pos%crossValidateK != k {
				trainRows = append(trainRows, i)
			}
		}
		trainRows = thin(trainRows, maxTrainRows)
		m, err := refit(ctx, sched, func(ctx context.Context) (*lawModel, error) {
			return fit(ctx, rowsOf(r.data.X, trainRows), pickRows(y, trainRows), effortRefit, r.plan.spec.Seed+int64(k)+1)
		})
		if err != nil || m == nil {
			continue
		}
		r2 := r.data.rSquaredOn(m, y, 1, func(_, i int) bool { return int(fold[i]) == k })[0]
		if math.IsNaN(r2) {
			continue
		}
		total += r2
		folds++
	}
	if folds == 0 || sched.skipped > skipped {
		return math.NaN()
	}
	return total / float64(folds)
}

// bootstrapForms refits on bootstrap resamples of the training rows with
// reduced effort and returns the form of each refit ("" when a refit
// failed or the schedule left it out); a law's stability is the fraction
// of forms equal to its own.
func (r *runner) bootstrapForms(ctx context.Context, y []float64, fit lawFitter, sched *refitSchedule) []string {
	rng := r.rng("bootstrap")
	forms := make([]string, bootstrapRounds)
	for b := range forms {
		rows := make([]int, len(r.data.train))
		for k := range rows {
			rows[k] = r.data.train[rng.Intn(len(r.data.train))]
		}
		m, err := refit(ctx, sched, func(ctx context.Context) (*lawModel, error) {
			return fit(ctx, rowsOf(r.data.X, rows), pickRows(y, rows), effortRefit, r.plan.spec.Seed+100+int64(b))
		})
		if err == nil && m != nil {
			forms[b] = m.formKey()
		}
	}
	return forms
}

// lawClaim assembles the claim for a law of target.
func (r *runner) lawClaim(target string, m *lawModel, ev lawEvaluation) Claim {
	vars := make([]string, len(m.used))
	for k, j := range m.used {
		vars[k] = r.data.features[j]
	}
	slices.Sort(vars)
	passed := ev.decided && controls.AllPassed(ev.controls)
	score := controls.Score(controls.Components{Fit: ev.heldOut, Controls: ev.controls, Undecided: !ev.decided,
		Stability: ev.stability, Complexity: m.complexity, MaxComplexity: r.plan.spec.maxComplexity()})
	expr := m.expression
	if !strings.Contains(expr, "=") {
		expr = target + " = " + expr
	}
	summary := fmt.Sprintf("%s (held-out R² %.3f, negative controls %s)", expr, finite(ev.heldOut), decidedWord(passed, ev.decided))
	cv := f64(round4(ev.cv))
	if math.IsNaN(ev.cv) && r.plan.spec.Parameters.CrossValidate && !ev.decided {
		cv = nil // the time limit left a fold out: no score rather than a partial one
	}
	return Claim{
		Type:    ClaimLaw,
		Summary: summary,
		Score:   score,
		Scope: Scope{Variables: append([]string{target}, vars...), Domain: r.data.domain(append([]string{target}, vars...)),
			ConstraintsSatisfied: r.plan.constraints.Satisfied},
		Evidence: Evidence{
			RSquared:                f64(round4(ev.rSquared)),
			HeldOutRSquared:         f64(round4(ev.heldOut)),
			CrossValidationScore:    cv,
			Complexity:              m.complexity,
			DimensionallyConsistent: m.dimensionallyConsistent,
			BootstrapStability:      ev.stability,
			NegativeControlsPassed:  passed,
			NegativeControls:        ev.controls,
		},
		Expression: m.expression,
		Target:     target,
	}
}

func passWord(ok bool) string {
	if ok {
		return "passed"
	}
	return "failed"
}

// decidedWord is passWord for a claim whose evidence the time limit may
// have left incomplete.
func decidedWord(ok, decided bool) string {
	if !decided {
		return "not decided: the time limit expired first"
	}
	return passWord(ok)
}

// finite maps NaN and infinities to 0 for reporting; JSON cannot carry them.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

func round4(v float64) float64 { return math.Round(finite(v)*1e4) / 1e4 }

// laws runs m's law search for every target, then the controls on every
// resulting law, then assembles the claims.
func (r *runner) laws(ctx context.Context, m lawMethod) error {
	type found struct {
		target string
		y      []float64
		models []*lawModel // chosen first, then alternatives
		fit    lawFitter
	}
	var all []found
	for _, target := range r.plan.targets {
		y := r.data.column(target)
		chosen, alts, err := m.searchLaw(ctx, target, y)
		if err != nil {
			return err
		}
		fit := func(ctx context.Context, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error) {
			return m.refit(ctx, target, X, y, effort, seed)
		}
		all = append(all, found{target, y, append([]*lawModel{chosen}, alts...), fit})
	}
	r.track.begin(StageNegativeControls)
	perTarget := bootstrapRounds
	if r.plan.spec.Parameters.CrossValidate {
		perTarget += crossValidateK
	}
	sched := r.refits(perTarget * len(all))
	for k, f := range all {
		progress := r.track.progressFunc(float64(k)/float64(len(all)), float64(k+1)/float64(len(all)))
		skipped := sched.skipped
		refits := refitEvidence{cv: math.NaN()}
		if r.plan.spec.Parameters.CrossValidate {
			refits.cv = r.crossValidate(ctx, f.y, f.fit, sched)
		}
		progress(0.4)
		refits.forms = r.bootstrapForms(ctx, f.y, f.fit, sched)
		refits.complete = sched.skipped == skipped
		progress(0.8)
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, law := range f.models {
			pred := r.data.predictions(law)
			idx := r.addClaim(r.lawClaim(f.target, law, r.evaluateLaw(law, f.y, pred, refits, len(f.models))))
			if i > 0 {
				r.result.Summary.Alternatives = append(r.result.Summary.Alternatives, idx)
			}
			r.plotLaw(f.target, law, f.y, pred, i == 0)
		}
		progress(1)
	}
	return nil
}
