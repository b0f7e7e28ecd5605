// Package engine runs disco's discovery pipeline on one dataset: it
// validates a run Spec, extracts features, runs the mode's search
// (symbolic regression, a neural surrogate, both, or causal discovery),
// tests every finding with negative controls, scores it on the Truth Dial
// and returns typed claims with artifacts. It knows nothing of Kubernetes;
// the controllers call Discover and turn the Result into Claim objects.
//
// # Modes
//
// Each mode is one type, in the file named after it (mode_symbolic.go,
// mode_neural.go, mode_neuro_symbolic.go, mode_causal.go; the conservation
// search in mode_conservation.go), behind the method interface of mode.go.
//
//   - symbolic: genetic-programming symbolic regression (engine/symbolic)
//     per target on the training rows; the claim is the model the symbolic
//     package chose, plus up to two Pareto-front neighbours (one simpler,
//     one more complex) listed in Summary.Alternatives.
//   - neural: an MLP surrogate (engine/neural); the claim's expression is
//     the surrogate's separable structure, e.g. "y = f(a, b) * g(c)", and
//     the trained model is an artifact of kind model. A split is claimed
//     only when the surrogate rebuilt from its parts stays within
//     neural.SplitTolerance of itself, so the structure holds to about the
//     surrogate's own fit error (a few per cent at the default epochs).
//     The surrogate reads only the columns it uses: it is trained again
//     without the columns of little importance and kept when it fits as
//     well (surrogate_screen.go), so the structure names only the law's
//     variables, e.g. "y = f(x0) * g(x1) * h(x2)" among 500 columns.
//   - neuro_symbolic: the surrogate denoises the target and tests
//     separability; short symbolic searches fit each group's partial
//     function (or the denoised target when nothing separates), and their
//     sum or product seeds the symbolic mode's search on the real target,
//     which chooses the law.
//   - causal: PC-stable (DiscoverLagged when a time: constraint is given) on
//     all numeric columns, or those named by include:; one claim per edge,
//     with the graph as DOT and SVG artifacts.
//
// With a trajectory: constraint, symbolic and neuro_symbolic runs also
// search for conserved quantities and add conservation claims.
//
// With a dynamics:x,y constraint (and time:, mode symbolic) a run discovers
// equations of motion instead of static laws (mode_dynamics.go, the sparse
// weak-form regression of engine/dynamics): one law claim per state, with
// target "dx/dt" and the right-hand side in the column names as its
// expression. The states are the run's targets; its inputs are the other
// numeric columns that are not the time or the trajectory, restricted by
// include: and minus exclude:.
//
// Targets: Spec.Targets, else Parameters.TargetVariables, else the last
// numeric column that is not excluded, the time or the trajectory column.
// Features: every other numeric column, restricted by include: and minus
// exclude:.
//
// # Constraints
//
// Parameters.Constraints is a list of "key:value" strings; lists inside a
// value are comma-separated:
//
//	operators:+,-,*,/     operators symbolic regression may use (+ - * / ^ sin cos tan exp log sqrt abs tanh asin cosh);
//	                      without it: + - * / ^ sqrt exp log sin cos, and tanh cosh asin in seeds only
//	exclude:x3,x4         columns that are neither targets nor features
//	include:x1,x2         restrict features (causal: variables) to these columns
//	max_depth:6           depth bound of expression trees (1..20)
//	trajectory:<column>   rows belong to trajectories: conservation search
//	time:<column>         rows are ordered by this column: lagged causal
//	                      discovery, chronological hold-out, time_shift control
//	alpha:0.01            significance level of causal independence tests (0..1)
//	max_lag:3             largest lag of lagged causal discovery (1..50)
//	dynamics:x,y          discover dx/dt and dy/dt (needs time:; symbolic mode)
//	units:x=m,t=s,y=m/s^2 SI units of columns (engine/units; "" or 1: dimensionless)
//
// An unknown key, a malformed value, an unknown operator or a column not in
// the dataset is a *SpecError with Code "constraint_invalid" and Field
// "constraints". An unknown mode is "mode_invalid"; a bad neural_backbone,
// an unknown symbolic_prior, an unknown negative control, time_shift
// without a time: column, or a target that is missing or not numeric is
// "parameter_invalid" with Field naming the parameter. Problems with the
// data itself are *data.ValidationError. Spec.Validate performs all of
// these checks without running anything. A dynamics: constraint without
// time:, in another mode than symbolic, with an empty or repeated state
// list, or naming a state that is not a numeric column, the time or the
// trajectory column or an excluded one, a time column that is not numeric
// or repeats a time within a trajectory, and trajectories too short or
// inputs too many for engine/dynamics are "constraint_invalid"; a target
// that is not a state is "parameter_invalid". A symbolic or
// neuro-symbolic run with trajectory: whose variables are too many for the
// conservation search even at degree 1 (more than 66) is also
// "constraint_invalid", before anything runs. A units: entry that is not
// column=unit, a column given twice or not in the dataset, or a unit
// string that does not parse (the message gives engine/units' column and
// what it expected) is "constraint_invalid".
//
// # Units
//
// With a units: constraint, a symbolic or neuro-symbolic search whose
// target and usable features all have declared units refuses
// dimensionally inconsistent candidates: they score as undefined
// expressions do, and a printed model that is inconsistent leaves the
// final front. A law is consistent when some assignment of units to its
// fitted constants makes every sum add terms of one dimension, the
// arguments of sin, cos, tan, exp, log, tanh, asin and cosh
// dimensionless and the whole the target's dimension (engine/symbolic
// dims.go). Before its
// other seeding passes such a search also fits the law on the
// dimensionless groups of its inputs (Buckingham π; engine/symbolic
// pigroups.go) and starts from the result. Without units,
// or with some of those columns undeclared, the search is unchanged.
// Other modes ignore units.
//
// # Stages
//
// Reporter.Stage is called as the run moves through data_validation,
// feature_extraction, neural_pretraining, symbolic_regression (causal runs:
// causal_discovery instead), negative_controls and claim_generation, with
// statuses running, completed, skipped (neural_pretraining outside the
// neural modes, symbolic_regression in neural mode) or failed, and progress
// in [0, 1] that never decreases within a stage. The conservation search,
// when asked for, runs at the end of negative_controls. In a dynamics run,
// symbolic_regression is the sparse regression of engine/dynamics and
// negative_controls its 19 time-shuffled refits; neither stops early at the
// time limit with a partial result: a search that does not finish fails the
// run, and shuffles that do not finish leave the controls failed.
//
// # Held-out rows and evidence
//
// A quarter of the rows (chronologically the last quarter when a time
// column is given, else a seeded random quarter) is held out; searches use
// the rest. Subsampling rule (issue 18, item 4): the search and every refit
// train on at most 2,000 rows of the training split, and the permutation
// controls test on at most 2,000 held-out rows, each subsample evenly
// spaced over its split in row order, so it is the same for a seed and
// cost stops growing with the rows. The fit evidence is computed on all
// rows: r_squared on every row, held_out_r_squared on every row the search
// did not train on (for time-ordered data, every row of the chronological
// hold-out), streamed over the columns in chunks without copying the
// table. Negative controls and held_out_r_squared use held-out rows only,
// so a search that fits noise cannot pass its controls (see
// engine/controls for the tests and p-values).
//
// Law evidence: r_squared (all rows), held_out_r_squared (all rows the
// search did not train on), cross_validation_score (mean R² over 5 folds,
// each refit with 30 % of the search effort on at most 2,000 rows of the
// other folds and measured on all rows of its own, when cross_validate is
// set; else the held-out R²; absent when the time limit left a fold out),
// complexity, bootstrap_stability, negative_controls_passed,
// negative_controls (name -> {passed, p_value}); dimensionally_consistent
// (see Units) when the run declares the units of the target and of every
// variable the law uses, absent otherwise. placebo_cause is a causal
// control and is not run for laws.
//
// Causal controls are computed on the held-out subsample (at most 2,000
// rows; the graph is learned on the training subsample) from the partial
// correlation of cause and effect given the effect's other parents (lagged
// edges: given the effect's previous value). noise_feature for an edge also
// reruns discovery with a Gaussian noise column added and fails when the
// noise is linked to the effect at least as strongly as the cause.
//
// Causal evidence: causal_confidence and effect_strength (standardised
// linear effect) for contemporaneous edges; for lagged edges granger_score
// (the Granger F statistic), intervention_effect_size (standardised lagged
// effect) and p_value; plus oriented_by, bootstrap_stability and the
// controls. direction is "forward" when the edge is oriented (cause ->
// effect) and "undirected" when the data cannot orient it (cause and
// effect then in name order); temporal_scope is "contemporaneous" or
// "lag:k". intervention_markers lists the numeric columns other than cause
// and effect whose values are all 0 or 1 with both present: indicator
// columns that mark perturbed rows. It may be empty.
//
// Conservation evidence: relative_variation (all rows the search did not
// use; its noise_feature control runs on the held-out subsample), trajectories,
// bootstrap_stability (trajectory resamples reproducing the expression),
// negative_controls_passed and negative_controls (noise_feature only).
//
// Dynamics evidence (law claims of target dx/dt): r_squared and
// cross_validation_score are the equation's 5-fold cross-validated R² on
// the weak-form regression rows; simulation_horizon, persistence_horizon
// and simulation_nrmse come from simulating the system from held-out
// initial conditions (engine/dynamics, which holds out whole trajectories
// itself); held_out_r_squared is the equation's weak-form R² on every row
// the regression did not use. Row rule (engine/dynamics/sample.go): the
// regression and the simulation use at most 100,000 rows; beyond that
// they use evenly spaced whole trajectories (long ones cut into windows of
// at most 2,000 rows), the summary says "fitted and simulated on N of M rows", and
// held_out_r_squared measures every row left out. term_inclusion is each term's share
// of the 20 subsampled refits, bootstrap_stability the smallest of them;
// complexity counts each term's degree (sin, cos: 2) plus one for its
// coefficient. negative_controls are held_out_simulation and time_shuffle,
// whatever the spec asks: the system is refitted on 19 copies of the data
// permuted in time within each trajectory, and the held-out simulation
// error and the equation's cross-validated R² must beat all 19 (p = 0.05);
// an equation that fails engine/dynamics' acceptance rule fails both. The
// score's fit is the cross-validated R².
//
// Scope domain is the observed range of each scope variable, e.g.
// "raf∈[1, 552]; mek∈[0.2, 1010]" (4 significant digits).
//
// # Score
//
// Each claim's score is the Truth Dial score of engine/controls:
//
//	0.40*fit + 0.30*controls passed fraction + 0.20*bootstrap stability + 0.10*parsimony
//
// capped at 0.5 when a control failed or none ran, or when the claim is
// not decided (see Time limit). fit is the held-out R²
// (law), causal_confidence (causal) or 1 - relative_variation/0.02
// (conservation), clipped to [0, 1]; parsimony is
// max(0, 1 - (complexity-1)/max_complexity) (causal: complexity is 1 + the
// size of the conditioning set, max the number of variables). Stability uses
// 4 bootstrap refits at 30 % effort: laws agree when the refit uses the same
// variable set (neural: the same separable form), edges when the same edge
// is found with the same orientation.
//
// # Time limit
//
// Searches get 70 % of Spec.TimeLimit; when it expires they return their
// best model so far, the rest of the pipeline runs on it and
// Summary.TimedOut is set. Every stage after the search keeps to the
// limit as well, in every mode:
//
//   - The refits after the search share the time left until 90 % of the
//     limit: the cross-validation folds and bootstrap refits of every
//     target (law modes), the noise_feature rerun and the bootstrap reruns
//     (causal), the bootstrap searches (conservation). Each refit, as it
//     starts, gets an equal share of the time left until then among the
//     refits still to run, as its own time limit; time a refit leaves
//     unused goes to the next ones. A refit that would start after that
//     point is not run. The conservation search that follows the laws of a
//     symbolic or neuro-symbolic run also ends by then; when it does not
//     finish the run keeps its laws and has no conservation claim. The
//     time-shuffled refits of a dynamics run end at the limit itself.
//   - Once the limit has passed, a claim's negative controls are not run:
//     each is reported failed with p_value 1.
//   - A claim whose controls were not run, or one of whose refits the
//     limit left out (or ended without a result), is not decided: its
//     negative_controls_passed is false, its score capped at 0.5 as for a
//     failed control, its summary says "not decided: the time limit
//     expired first", and Summary.TimedOut is set. It never passes on
//     evidence the limit left out; bootstrap_stability counts refits not
//     run as not reproducing the claim.
//
// With time enough nothing is cut, and results are the same for a seed as
// without a limit; the fit evidence (held_out_r_squared, r_squared,
// relative_variation), being one pass over the rows, is always computed.
//
// # Epochs
//
// Parameters.Epochs is the surrogate's training epochs in neural and
// neuro-symbolic mode, and the main search's generations in symbolic mode
// (default 1,500, also the neuro-symbolic main search's budget; the
// neuro-symbolic part searches run 30). The default is a budget
// that searches rarely use up: one stops once an exact model stops getting
// simpler or, on noisy data, once the chosen law has stopped changing and
// its residuals look like noise (the symbolic package's "settle" rule). A
// search with more generations than fit in the time limit runs until 3/4 of
// the search time, and the refits share the time after it (see Time
// limit). Summary.Searches says, per
// target, how many generations ran and which of these ended the search.
package engine
