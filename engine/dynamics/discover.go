package dynamics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// DerivativeMethod says how the regression avoids or estimates derivatives.
type DerivativeMethod int

const (
	// WeakForm regresses integrals against test functions (the default).
	WeakForm DerivativeMethod = iota
	// LocalPolynomial regresses local-polynomial derivative estimates.
	LocalPolynomialDerivative
)

func (m DerivativeMethod) String() string {
	switch m {
	case WeakForm:
		return "weak form (Messenger & Bortz 2021)"
	case LocalPolynomialDerivative:
		return "local polynomial (Savitzky–Golay on uneven times)"
	}
	return fmt.Sprintf("DerivativeMethod(%d)", int(m))
}

// Settings tunes Discover; the zero value is the default.
type Settings struct {
	// Degree is the largest total degree of the polynomial terms
	// (default 3, at most 5). Left at its default, it is lowered as far as
	// needed (to 1 at least) for the library to hold at most maxLibrary
	// terms, and Result.Degree says so; a degree that is set is kept, and
	// a library too large for it is refused.
	Degree int
	// NoTrig drops the sin and cos terms of each variable.
	NoTrig bool
	// Derivatives picks the regression form (default WeakForm).
	Derivatives DerivativeMethod
	// Radius is the half-width, in samples, of the test functions and local
	// polynomials (default: a twentieth of each trajectory, within [3, 32]).
	Radius int
	// Ensemble is the number of subsampled refits for the inclusion
	// probabilities (default 20; at least 5).
	Ensemble int
	// Seed seeds the ensemble's subsampling.
	Seed uint64
	// ExtraTerms join the library after the polynomial and trigonometric
	// terms: the hook for terms found by symbolic regression.
	ExtraTerms []Term
	// NoNoiseCorrection fits the final coefficients by plain least squares
	// instead of correcting the weak-form normal equations for the
	// measurement noise (see the package documentation).
	NoNoiseCorrection bool
	// MaxRows is the most rows Discover fits and simulates on (default
	// DefaultMaxRows, at least minMaxRows); beyond it the row rule of
	// sample.go keeps evenly spaced pieces of the trajectories.
	MaxRows int
	// Candidates is the most variables, the state itself included, that
	// each state's library is built from when the states and inputs are
	// too many for one library over all of them (default 5, within [2,
	// 16]; see screen.go).
	Candidates int
	// NoHeldOutFit skips Equation.HeldOutR2, a pass over every row the
	// regression did not use; refits that only need the selection (the
	// negative controls' time-shuffled refits) set it.
	NoHeldOutFit bool
}

const (
	defaultDegree   = 3
	maxDegree       = 5
	defaultEnsemble = 20
	minEnsemble     = 5
	// subsample is the share of chunks each ensemble member is fitted on.
	subsample = 0.7
	// maxLibrary bounds the library so that the normal equations stay
	// small and the regression has far more rows than terms.
	maxLibrary = 200
	// minMaxRows is the smallest Settings.MaxRows: two of the row rule's
	// longest pieces.
	minMaxRows = 2 * sampleWindow
)

func (s Settings) withDefaults() (Settings, error) {
	if s.Degree == 0 {
		s.Degree = defaultDegree
	}
	if s.Degree < 1 || s.Degree > maxDegree {
		return s, fmt.Errorf("%w: degree %d is outside [1, %d]", ErrInvalidData, s.Degree, maxDegree)
	}
	if s.Derivatives != WeakForm && s.Derivatives != LocalPolynomialDerivative {
		return s, fmt.Errorf("%w: unknown derivative method %d", ErrInvalidData, int(s.Derivatives))
	}
	if s.Radius != 0 && (s.Radius < minRadius || s.Radius > 10*maxRadius) {
		return s, fmt.Errorf("%w: radius %d is outside [%d, %d]", ErrInvalidData, s.Radius, minRadius, 10*maxRadius)
	}
	if s.Ensemble == 0 {
		s.Ensemble = defaultEnsemble
	}
	if s.Ensemble < minEnsemble {
		return s, fmt.Errorf("%w: ensemble %d is below %d", ErrInvalidData, s.Ensemble, minEnsemble)
	}
	if s.MaxRows == 0 {
		s.MaxRows = DefaultMaxRows
	}
	if s.Candidates == 0 {
		s.Candidates = defaultCandidates
	}
	if s.Candidates < minCandidates || s.Candidates > maxCandidates {
		return s, fmt.Errorf("%w: %d candidate variables per state is outside [%d, %d]", ErrInvalidData, s.Candidates, minCandidates, maxCandidates)
	}
	if s.MaxRows < minMaxRows {
		return s, fmt.Errorf("%w: at most %d rows is below the least of %d", ErrInvalidData, s.MaxRows, minMaxRows)
	}
	for _, t := range s.ExtraTerms {
		if t.Name == "" || t.Eval == nil {
			return s, fmt.Errorf("%w: an extra term needs a name and a function", ErrInvalidData)
		}
	}
	return s, nil
}

// Result is what Discover found: one equation per state, and the evidence
// of the system as a whole.
type Result struct {
	// Equations holds ẋ = f(...) per state, in the order of StateNames.
	Equations []Equation
	// Simulation is the held-out simulation evidence of the whole system.
	Simulation Simulation
	// Library lists the candidate terms, in regression order, of the
	// library every state shares; nil when each state has its own
	// (Candidates > 0).
	Library []string
	// Degree is the library's largest total degree; LibraryNote says why
	// it is below the default when it was lowered to keep the library
	// within maxLibrary terms, or why each state got its own ("" when
	// neither happened).
	Degree      int
	LibraryNote string
	// Candidates is the most variables each state's own library was built
	// from, after screening (see screen.go); 0 when every state shared one
	// library over all the variables.
	Candidates int
	// Method names the derivative treatment, Selection the model choice.
	Method, Selection string
	// TrainingRows is the number of regression rows (test functions or
	// samples) fitted on; TrainingTrajectories the trajectories (or pieces
	// of the row rule) they came from.
	TrainingRows, TrainingTrajectories int
	// Rows is the number of rows of the data, SampledRows how many of them
	// the regression and the simulation used (all of them up to
	// Settings.MaxRows; see sample.go), and HeldOutRows how many rows the
	// held-out fit measured (every row the regression did not use, in
	// pieces long enough for a test function; 0 with NoHeldOutFit).
	Rows, SampledRows, HeldOutRows int
}

// Equation is the discovered law of one state.
type Equation struct {
	// State is the state's column name; Target is "d<state>/dt".
	State, Target string
	// Expression is the right-hand side in the column names, e.g.
	// "10*y - 10*x"; "0" when no term was selected.
	Expression string
	// Coefficients maps each selected term (as printed in Expression) to
	// its coefficient.
	Coefficients map[string]float64
	// Inclusion maps each selected term to the share of ensemble members
	// that selected it too; Stability is the smallest of them (0 without
	// terms). Both are computed only when the simulation passed.
	Inclusion map[string]float64
	Stability float64
	// CVR2 is 1 − (cross-validated residual)/(Σ response²) of the
	// selected support on the regression rows.
	CVR2 float64
	// Variables names the states and inputs the equation's library was
	// built from: all of them, or those the screen picked.
	Variables []string
	// HeldOutR2 is 1 − (residual)/(Σ response²) of the equation, as
	// fitted, on the regression rows (weak-form integrals or point
	// derivatives) of every row the regression did not use: the held-out
	// pieces and the pieces the row rule left out. NaN without such rows
	// or with Settings.NoHeldOutFit.
	HeldOutR2 float64
	// Passed is the acceptance rule: the system's simulation passed, the
	// equation has at least one term, and Stability ≥ minInclusion.
	// Reasons says why not when it fails.
	Passed  bool
	Reasons []string
}

// Discover finds ẋ = f(x, u) for every state of data: a sparse combination
// of the library's terms per state, chosen by cross-validation, with
// ensemble inclusion probabilities and held-out simulation as evidence. See
// the package documentation for the method and the acceptance rule.
func Discover(ctx context.Context, data Trajectories, settings Settings) (Result, error) {
	lowerable := settings.Degree == 0
	settings, err := settings.withDefaults()
	if err != nil {
		return Result{}, err
	}
	states := len(data.StateNames)
	names := slices.Concat(data.StateNames, data.InputNames)
	plan, err := planLibrary(len(names), settings, lowerable)
	if err != nil {
		return Result{}, err
	}
	settings.Degree = plan.degree
	groups, err := data.groups()
	if err != nil {
		return Result{}, err
	}
	kept, rest := samplePieces(groups, settings.MaxRows)
	segs := make([]segment, len(kept))
	sampled := 0
	for i, g := range kept {
		segs[i] = data.piece(g)
		sampled += len(g.rows)
	}
	train, test, heldOut, err := split(segs)
	if err != nil {
		return Result{}, err
	}
	var f *fit
	if plan.candidates == 0 {
		f, err = fitShared(ctx, train, names, states, settings)
	} else {
		f, err = fitScreened(ctx, train, names, states, plan.candidates, settings)
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{
		Degree:               settings.Degree,
		LibraryNote:          plan.note,
		Candidates:           plan.candidates,
		Method:               settings.Derivatives.String(),
		Selection:            fmt.Sprintf("STLSQ path and backward elimination; support by BIC of the %d-fold cross-validated residual", folds),
		TrainingRows:         f.rows,
		TrainingTrajectories: len(train),
		Rows:                 len(data.Time),
		SampledRows:          sampled,
	}
	if plan.candidates == 0 {
		for _, t := range f.lib {
			res.Library = append(res.Library, t.Name)
		}
	}
	for s := range states {
		eq := Equation{
			State:        data.StateNames[s],
			Target:       "d" + data.StateNames[s] + "/dt",
			Expression:   expression(f.lib, f.coefs[s]),
			Coefficients: map[string]float64{},
			Inclusion:    map[string]float64{},
			CVR2:         f.cvR2[s],
			Variables:    f.variables[s],
		}
		for j, v := range f.coefs[s] {
			if v != 0 {
				eq.Coefficients[f.lib[j].Name] = v
			}
		}
		res.Equations = append(res.Equations, eq)
	}
	// the simulation evaluates only the terms some equation uses
	used, terms := usedTerms(f.coefs), nonZero(f.coefs)
	row := make([]float64, len(f.lib))
	rhs := func(z, dx []float64) {
		for _, j := range used {
			row[j] = f.lib[j].Eval(z)
		}
		for s, ts := range terms {
			var v float64
			for _, t := range ts {
				v += t.coef * row[t.term]
			}
			dx[s] = v
		}
	}
	res.Simulation = simulate(test, states, rhs)
	res.Simulation.HeldOut = heldOut
	for i := range res.Equations {
		res.Equations[i].HeldOutR2 = math.NaN()
	}
	if !settings.NoHeldOutFit {
		if err := heldOutFit(ctx, &res, data, test, rest, f.lib, f.coefs, settings); err != nil {
			return Result{}, err
		}
	}
	if res.Simulation.Passed {
		// the ensemble only decides between systems that simulate well: a
		// system that fails the simulation is rejected whatever its
		// stability, so its inclusion probabilities are not computed
		counts, err := f.inclusion(ctx, ensembleSubsets(f.chunks, settings))
		if err != nil {
			return Result{}, err
		}
		setInclusion(&res, f, counts, settings.Ensemble)
	}
	for i := range res.Equations {
		eq := &res.Equations[i]
		if !res.Simulation.Passed {
			eq.Reasons = append(eq.Reasons, fmt.Sprintf("the simulated system follows the held-out data for %.4g, not %g times the persistence forecast's %.4g", res.Simulation.Horizon, horizonGain, res.Simulation.PersistenceHorizon))
		}
		if len(eq.Coefficients) == 0 {
			eq.Reasons = append(eq.Reasons, "no term was selected")
		} else if eq.Stability < minInclusion {
			eq.Reasons = append(eq.Reasons, fmt.Sprintf("a term is in only %.0f%% of the ensemble's models (at least %.0f%% needed)", 100*eq.Stability, 100*minInclusion))
		}
		eq.Passed = len(eq.Reasons) == 0
	}
	return res, nil
}

// split holds out every fourth trajectory when there are at least four,
// and otherwise the last quarter of each trajectory.
func split(segs []segment) (train, test []segment, heldOut string, err error) {
	if len(segs) >= 4 {
		for i, s := range segs {
			if i%4 == 3 {
				test = append(test, s)
			} else {
				train = append(train, s)
			}
		}
		return train, test, "trajectories", nil
	}
	for _, s := range segs {
		cut := len(s.t) * 3 / 4
		if cut < minRowsPerTrajectory || len(s.t)-cut < minRowsPerTrajectory {
			return nil, nil, "", fmt.Errorf("%w: trajectory %q has %d rows; with fewer than 4 trajectories each needs at least %d rows so that its last quarter can be held out", ErrInvalidData, s.label, len(s.t), 4*minRowsPerTrajectory)
		}
		train = append(train, s.slice(0, cut))
		test = append(test, s.slice(cut, len(s.t)))
	}
	return train, test, "tails", nil
}

// fit is the regression's answer for every state: the terms an equation
// may use (the shared library, or after screening the terms some equation
// selected), each state's coefficients over them, the cross-validated R²
// of its selection, the variables its library was built from, the
// regression rows and their chunks, and the ensemble refits.
type fit struct {
	lib       []Term
	coefs     [][]float64
	cvR2      []float64
	variables [][]string
	rows      int
	chunks    int
	// inclusion refits every state on each subset of chunks and counts
	// how often each term of lib is selected, per state.
	inclusion func(ctx context.Context, subsets [][]int) ([][]int, error)
}

// fitShared regresses every state on one library of settings.Degree over
// all the variables: one design, shared by all states.
func fitShared(ctx context.Context, train []segment, names []string, states int, settings Settings) (*fit, error) {
	lib := buildLibrary(names, settings.Degree, !settings.NoTrig, settings.ExtraTerms)
	d, err := buildDesign(ctx, train, lib, states, allTargets(states), settings)
	if err != nil {
		return nil, err
	}
	if d.total() < 2*len(lib) {
		return nil, tooFewRows(d.total(), len(lib))
	}
	all := allTargets(len(d.chunks))
	f := &fit{lib: lib, rows: d.total(), chunks: len(d.chunks), inclusion: d.inclusion}
	sels := make([]selection, states)
	var union []int
	for s := range states {
		sel, err := d.selectSupport(ctx, s, all)
		if err != nil {
			return nil, err
		}
		sels[s] = sel
		for _, j := range sel.support {
			if !slices.Contains(union, j) {
				union = append(union, j)
			}
		}
	}
	slices.Sort(union)
	if err := d.addSupportNoise(ctx, train, lib, union, states, allTargets(states), settings); err != nil {
		return nil, err
	}
	for s, sel := range sels {
		c, ok := d.coefficients(s, all, sel.support)
		if !ok {
			c = make([]float64, len(lib))
		}
		f.coefs = append(f.coefs, c)
		f.cvR2 = append(f.cvR2, sel.r2())
		f.variables = append(f.variables, names)
	}
	return f, nil
}

// addSupportNoise stores in d the expected noise moments (noiseMoments)
// of the library terms U over the training pieces, for the corrected
// coefficients of supports within U. An entry of the moments depends
// only on its two terms, so the moments of U alone are the same numbers
// as those entries of the whole library's, for a fraction of the
// gradients. Nothing is stored without the weak form's noise correction.
func (d *design) addSupportNoise(ctx context.Context, train []segment, lib []Term, U []int, states int, targets []int, settings Settings) error {
	if settings.Derivatives != WeakForm || settings.NoNoiseCorrection || len(U) == 0 {
		return nil
	}
	sub := make([]Term, len(U))
	for a, j := range U {
		sub[a] = lib[j]
	}
	m, u := d.m, len(U)
	d.noiseGG, d.noiseGB = make([]float64, m*m), make([]float64, d.states*m)
	for _, s := range train {
		if err := ctx.Err(); err != nil {
			return err
		}
		gg, gb := regressionRows(s, sub, states, targets, settings.radius(len(s.t)), settings, true, func(_, _ []float64) {})
		if gg == nil {
			continue
		}
		for a, j := range U {
			for b, k := range U {
				d.noiseGG[j*m+k] += gg[a*u+b]
			}
			for r := range targets {
				d.noiseGB[r*m+j] += gb[r*u+a]
			}
		}
	}
	return nil
}

// tooFewRows is the error of a regression with fewer than two rows per
// library term.
func tooFewRows(rows, terms int) error {
	return fmt.Errorf("%w: %d regression rows for %d library terms; give longer or more trajectories (at least %d rows)", ErrInvalidData, rows, terms, 2*terms)
}

// allTargets is 0, 1, …, n−1.
func allTargets(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// buildDesign assembles the chunked regression of the training pieces: the
// responses of the target variables (the first states variables are
// states) on the library. The noise moments are left to addSupportNoise,
// once the supports are chosen.
func buildDesign(ctx context.Context, train []segment, lib []Term, states int, targets []int, settings Settings) (*design, error) {
	radii := make([]int, len(train))
	perChunk, total := 1, 0
	overlap := 1.0
	for i, s := range train {
		r := settings.radius(len(s.t))
		radii[i] = r
		switch settings.Derivatives {
		case LocalPolynomialDerivative:
			perChunk = max(perChunk, 2*r+1)
			overlap = max(overlap, float64(r))
			total += len(s.t) - 2*r
		default:
			perChunk = max(perChunk, 4)
			overlap = max(overlap, float64(2*r+1)/float64(weakStride(r)))
			total += weakRowCount(len(s.t), r)
		}
	}
	// at most maxChunks chunks, plus one short one per trajectory
	perChunk = max(perChunk, (total+maxChunks-1)/maxChunks)
	cost := make([]float64, len(lib))
	for j, t := range lib {
		cost[j] = float64(max(t.Complexity, 1))
	}
	d := newDesign(cost, len(targets), perChunk, overlap)
	for i, s := range train {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d.startBlock()
		regressionRows(s, lib, states, targets, radii[i], settings, false, d.addRow)
	}
	if err := d.finish(); err != nil {
		for j, v := range d.scale {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: library term %q is not finite on the data", ErrInvalidData, lib[j].Name)
			}
		}
		return nil, err
	}
	return d, nil
}

// usedTerms returns, in library order, the terms with a non-zero
// coefficient in some state's equation.
func usedTerms(coefs [][]float64) []int {
	var used []int
	for j := range coefs[0] {
		for s := range coefs {
			if coefs[s][j] != 0 {
				used = append(used, j)
				break
			}
		}
	}
	return used
}

// coefTerm is one term of an equation: its index in the library and its
// coefficient.
type coefTerm struct {
	term int
	coef float64
}

// nonZero lists, per state, the terms with a non-zero coefficient, in
// library order.
func nonZero(coefs [][]float64) [][]coefTerm {
	out := make([][]coefTerm, len(coefs))
	for s, c := range coefs {
		for j, v := range c {
			if v != 0 {
				out[s] = append(out[s], coefTerm{j, v})
			}
		}
	}
	return out
}

// radius is the half-width of the test functions (or local polynomials) on
// a trajectory of n samples.
func (s Settings) radius(n int) int {
	r := s.Radius
	if r == 0 {
		r = autoRadius(n)
	}
	return min(r, (n-1)/2)
}

// regressionRows emits the regression rows of s in the settings' form:
// weak-form rows (with their noise moments when noise is set) or point
// rows of local-polynomial derivatives, with the responses of the target
// variables (the first states variables of s are states).
func regressionRows(s segment, lib []Term, states int, targets []int, radius int, settings Settings, noise bool, emit emitFunc) (gg, gb []float64) {
	switch settings.Derivatives {
	case LocalPolynomialDerivative:
		pointRows(s, lib, states, targets, radius, emit)
		return nil, nil
	default:
		var sd []float64
		if noise {
			sd = noiseSD(s)
		}
		return weakRows(s, lib, targets, radius, sd, emit)
	}
}

func (d *design) total() int {
	n := 0
	for _, c := range d.chunks {
		n += c.n
	}
	return n
}

// ensembleSubsets draws the chunks of each ensemble member: a random
// subsample of the given number of chunks, in chunk order.
func ensembleSubsets(chunks int, settings Settings) [][]int {
	rng := rand.New(rand.NewPCG(settings.Seed, 0x5eed))
	k := max(int(subsample*float64(chunks)), folds)
	subsets := make([][]int, settings.Ensemble)
	for i := range subsets {
		perm := rng.Perm(chunks)
		idx := perm[:min(k, len(perm))]
		slices.Sort(idx)
		subsets[i] = idx
	}
	return subsets
}

// inclusion refits the selection of each target of d on every subset of
// chunks and counts, per target, how many refits select each term.
func (d *design) inclusion(ctx context.Context, subsets [][]int) ([][]int, error) {
	counts := make([][]int, d.states)
	for s := range counts {
		counts[s] = make([]int, d.m)
	}
	for _, idx := range subsets {
		for s := range d.states {
			sel, err := d.selectSupport(ctx, s, idx)
			if err != nil {
				return nil, err
			}
			for _, j := range sel.support {
				counts[s][j]++
			}
		}
	}
	return counts, nil
}

// setInclusion records, per equation, the share of the members ensemble
// members that select each of its terms (counts[state][term of f.lib]),
// and the smallest share as its stability.
func setInclusion(res *Result, f *fit, counts [][]int, members int) {
	for s, c := range f.coefs {
		eq := &res.Equations[s]
		first := true
		for j, v := range c {
			if v == 0 {
				continue
			}
			p := float64(counts[s][j]) / float64(members)
			eq.Inclusion[f.lib[j].Name] = p
			if first || p < eq.Stability {
				eq.Stability = p
			}
			first = false
		}
	}
}
