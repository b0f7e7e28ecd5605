// Package dynamics discovers governing equations of motion, ẋ = f(x, u),
// from sampled trajectories (issue 18, item 1), in the manner of SINDy
// (Brunton, Proctor & Kutz 2016, PNAS 113:3932).
//
// # Input
//
// Trajectories holds a time column, optional trajectory labels (several
// trajectories, each of its own length and spacing; uneven sampling is
// fine), the state columns whose equations are wanted and optional input
// columns (forcing, controls) that the right-hand sides may use. Discover
// returns one Equation per state: target "dx/dt", the right-hand side as an
// expression in the column names ("-10*x + 10*y"), its coefficients, and
// the evidence below.
//
// # Derivatives: the weak form
//
// Differentiating noisy data amplifies the noise by the inverse of the
// sampling step, and SINDy on finite differences fails at a few per cent of
// noise. Three remedies are known: smoothing before differencing (local
// polynomials, Savitzky & Golay 1964), total-variation regularised
// differentiation (Chartrand 2011, ISRN Appl. Math. 2011:164564), and the
// weak or integral form (Messenger & Bortz 2021, "Weak SINDy", Multiscale
// Model. Simul. 19:1474; J. Comput. Phys. 443:110525). The default is the
// weak form: each regression row integrates the equation against a smooth
// test function φ supported on a window of the trajectory, and integration
// by parts moves the derivative onto φ,
//
//	−∫ φ' x dt = (∫ φ Θ(x) dt) ξ,
//
// so the data are never differentiated, the noise is averaged by the
// integrals, and uneven sampling only changes the quadrature weights
// (composite Simpson rule on uneven times). Messenger & Bortz show it recovers systems at noise
// levels where derivative-based SINDy does not, at no extra cost. Chartrand's
// method is not implemented: it needs an iterative solve per state and a
// regularisation weight to tune, and gives nothing the weak form does not
// for the library regression. The local-polynomial derivative (Savitzky–
// Golay generalised to uneven times, LocalPolynomial) is kept as the
// alternative Settings.Derivatives = LocalPolynomialDerivative, and smooths
// the initial conditions of the held-out simulations.
//
// # Search
//
// The library holds every monomial of the states and inputs up to total
// degree 3 (Settings.Degree; left at its default, lowered to 2 when
// needed for the library to hold at most 200 terms, so up to 16 states
// and inputs) and sin and cos of each of them. Beyond, each state gets its
// own library over itself and the few variables (Settings.Candidates,
// default 5) that a forward-regression screen on the linear weak form
// picks, of degree 2 by default; up to 1,000 states and inputs (screen.go).
// Columns are
// normalised; for each state, candidate supports come from sequentially
// thresholded least squares (STLSQ, Brunton et al. 2016) over a ladder of
// 40 thresholds, and from forward selection and backward elimination,
// which stay reliable when library terms are strongly correlated (x, x³ and
// sin x on a small range). Among the candidates the support with the
// smallest Bayesian information criterion (Schwarz 1978) of its 5-fold
// cross-validated residual wins (folds are blocks of neighbouring test
// functions; the criterion counts each term by its complexity and each
// test-function support once, as overlapping windows share their noise).
//
// The coefficients are the least-squares fit on that support, corrected
// for the measurement noise in the library columns: the noise of each
// variable is estimated from the residuals of short local quartic fits,
// and its expected contribution to the weak-form normal equations (to first
// order, through the library's gradients) is subtracted before solving —
// corrected least squares for measurement-error models (Fuller 1987). Plain
// least squares on noisy columns is biased towards zero, the more so where
// columns are nearly collinear (x and x·z in Lorenz, where z varies little);
// Settings.NoNoiseCorrection turns the correction off. The selection itself
// uses the plain normal equations: their noise floor is what keeps the
// criterion from buying terms.
//
// Terms a polynomial-and-trigonometric library cannot hold (rational
// functions, exponentials, sin(x)·y) are the job of symbolic regression, a
// later step: Settings.ExtraTerms is its hook. Any Term given there joins
// the library and competes in the same sparse regression, so a symbolic
// search over the residuals of a first pass can propose terms and a second
// pass decides.
//
// # Evidence and acceptance
//
// Every fourth trajectory is held out when there are at least four, and
// otherwise the last quarter of each trajectory. The discovered system is
// integrated (Integrate: Dormand–Prince 5(4) with step-size control;
// Dormand & Prince 1980, Hairer, Nørsett & Wanner 1993) from four smoothed
// initial conditions on each held-out piece and compared with the data: the
// normalised error is the RMS over states of the error divided by each
// state's held-out standard deviation (windowed over a few samples), and
// the horizon of validity is how long it stays below 0.5. The persistence
// forecast x(t) = x(t0) gets the same horizon. Ensemble SINDy (Fasel, Kutz,
// Brunton & Brunton 2022, Proc. R. Soc. A 478:20210904) refits the whole
// selection on 20 random 70 % subsamples of the regression's blocks; a
// term's inclusion probability is the share of members that select it.
//
// An equation passes when
//   - the system's median horizon is at least 3 times the persistence
//     forecast's and spans at least 5 sampling intervals (the discovered
//     dynamics predict unseen data where "nothing moves" does not), and
//   - it has at least one term, and every term's inclusion probability is
//     at least 0.6.
//
// Time-shuffled states, independent random walks and smooth random curves
// fail this rule (the package's negative-control test runs 40 seeds of
// each); on the smooth curves the sparse regression does select terms, and
// the rule is what rejects them.
//
// # Bounds
//
// The library is evaluated on a sliding window and the regression rows go
// straight into at most 250 blocks of normal equations (one M×M matrix
// each, M ≤ 200 library terms), so memory grows with the data only by the
// copy of the trajectories. Screened libraries are fitted one state at a
// time, each state's design built again for the ensemble rather than
// kept, and the screen holds one (n+1)² Gram matrix for n states and
// inputs. The fit and the simulation use at most
// Settings.MaxRows rows (default 100,000): beyond it, evenly spaced whole
// trajectories, long ones cut into windows (sample.go), and only those are
// copied; Equation.HeldOutR2 then measures the equations on every other
// row, one piece at a time. Input errors wrap ErrInvalidData and name the
// column, row, trajectory or library term at fault; Discover honours
// context cancellation between its steps.
package dynamics
