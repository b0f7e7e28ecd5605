// Package symbolic finds closed-form expressions y ≈ f(x) from data
// (symbolic regression).
//
// # Method
//
// Fit runs genetic programming over expression trees built from the chosen
// operators (+ − × ÷, powers with small integer and half-integer exponents,
// sin, cos, tan, exp, log, sqrt, abs, tanh, asin, cosh), the input
// variables and numeric constants. Trees are stored flat in postfix order
// and evaluated on all rows at once.
//
// Operators: random trees and mutations draw from Options.Operators, or
// DefaultOperators when it is empty. In that case the seeding passes below
// may also write SeedOperators (tanh, cosh, asin): laws such as
// n·μ·tanh(μB/kT), n0/(2·cosh(μB/kT)) and asin(n·sin θ) are short with
// them and long or impossible without, while drawing them in every
// mutation would change every search. A listed operator set is used as
// given, by the search and the seeds alike.
//
//   - Linear scaling: every tree f is scored as a + b·f with a and b solved
//     in closed form, so the search looks for the shape of a law and never
//     for its offset or scale. Printed models include a and b.
//   - Constant fitting: the numeric constants inside a tree (and a, b) are
//     refined by Levenberg–Marquardt; the Jacobian comes from reverse-mode
//     differentiation of the tree, one backward sweep for all constants.
//     The best few individuals of every island are refined each generation,
//     a fraction of the children briefly, and the final front thoroughly.
//   - Islands: several populations evolve independently (tournament
//     selection, elitism, subtree crossover, and mutations that replace,
//     change, insert, delete or swap nodes or jitter constants) and
//     exchange their best individuals on a ring every few generations.
//     Each island has its own random stream and islands synchronise at
//     migration, so a seed gives the same result on any number of cores.
//   - Seeding: before evolution a sparse-regression pass fits y as a sparse
//     linear combination of candidate terms (monomials up to degree 3,
//     ratios, and the allowed functions of variables and of products) by
//     STLSQ — ridge least squares with sequential thresholding — and by
//     forward stepwise selection; a power-law pass fits log|y| linearly in
//     log|x_j| and rounds the exponents. Their models enter every
//     population as trees.
//   - Rational seeding: laws y = M·(P/Q)^(1/k) with sparse polynomials P,
//     Q, k ∈ {1, 2} and M the power-law monomial are found through the
//     linear relation z·Q − P = 0 for z = (y/M)^k (the implicit form of
//     SINDy-PI): one denominator term is fixed to coefficient 1 and a beam
//     search over supports, scored by the explicit error of P/Q, picks the
//     rest. This yields weighted means, parallel sums and relativistic
//     factors that evolution assembles only slowly.
//   - Target transforms (AI Feynman's inverted target): T(y/M) for T in
//     {identity, z⁻², 1/z, z², √z, log z} and factors M from the power law
//     is fitted as a sum of at most three library terms, and y =
//     M·T⁻¹(fit) seeds the search (transform.go). A relativistic factor is
//     (y/M)⁻² = 1 − (v/c)², a Gaussian log(y·σ) = c − ½(θ/σ)². When asin
//     may be written and |y| ≤ π/2, sin(y)/M is fitted too and y =
//     asin(M·fit) seeds the search (Snell's law: sin θ1 = n·sin θ2).
//   - Link seeds: laws y = M·g(m) with monomials M and m and g one of
//     exp, 1/(exp − 1), exp − 1, tanh and sech (Boltzmann, Bose–Einstein,
//     diode, paramagnetic laws) are monomials under the inverted link,
//     T_a(y/M) = m, which is linear in log space; the link's constant a is
//     scanned, and when nothing seeded so far is exact, y = M·g(m) seeds
//     the search (linkseeds.go), with tanh and cosh where they may be
//     written.
//   - Structure moves (AI Feynman's separability and symmetry): when no
//     seed so far fits y as well as a smooth surrogate of the data
//     (kernel ridge regression, smoother.go) does, the surrogate is tested
//     for y = f(A) + g(B) and y = f(A)·g(B) over the splits of the inputs
//     (mixed differences of S and of log|S|), and for dependence on two
//     inputs only through x_i − x_j, x_i + x_j, x_i·x_j or x_i/x_j (joint
//     moves along their level sets). A split is searched as two smaller
//     problems whose models, summed or multiplied, seed the search; a
//     symmetry as one problem in u = x_i ∘ x_j (several disjoint pairs at
//     once when they hold about as clearly), written back in the inputs.
//     Before them, inputs whose log-space power-law exponents are
//     integers are taken as a factor M, and y/M is searched on the other
//     inputs (structure.go has the rules and thresholds).
//   - Units: with Options.InputUnits and TargetUnit covering every usable
//     input, dimensionally inconsistent candidates score as invalid ones
//     (dims.go), and a search on the dimensionless groups of the inputs
//     (Buckingham π) runs before the other seeding passes and seeds its
//     front, written back in the inputs (pigroups.go).
//   - Invalid values: an expression that yields NaN or ±Inf on any row has
//     infinite loss and is never selected, so printed models are defined
//     on all training data.
//
// # Model selection
//
// Fit keeps a Pareto front of mean squared error against complexity (the
// node count of the printed expression). Before printing, expressions are
// put in a canonical form (constants folded, products gathered into
// c·Π base^k, sums into Σ c·term, identities such as x·1 and x+0 removed),
// and each constant is rounded to the simplest nearby value (0, an
// integer, a half, a simple multiple of a power of π, then fewer
// significant digits) when the MSE grows by less than ln(n)/n in relative
// terms, the BIC price of one parameter; for the models selection can pick
// the other constants are refitted after each trial, which noisy data
// need.
//
// Result.Best is chosen from the front as PySR does. If a model reproduces
// the data exactly (MSE below 1e-14 of the variance of y) the simplest such
// model is chosen. Otherwise each model i gets the score
//
//	score_i = −(log MSE_i − log MSE_{i−1}) / (complexity_i − complexity_{i−1})
//
// against its simpler neighbour on the front, and the highest-scoring model
// among those whose MSE is within 1.5× of the lowest wins: extra
// complexity must buy a large relative drop in error, which favours the
// knee of the front and, with noisy data, the true law over models that fit
// the noise.
//
// # Stopping
//
// A search ends at the first of: its generation budget, its time limit (or
// context), the exact rule, or the settle rule; Result.Stop says which.
// The exact rule stops three epochs after the simplest exact model last got
// simpler. The settle rule is for noisy data, where nothing is exact: it
// stops once the model selection would pick from the running front has not
// changed for max(10, epochs it took to appear) epochs and that model's
// residuals look like noise: mean((r_i − r_nn(i))²)/(2·var r) ≥ 0.8 over
// nearest-neighbour pairs of rows, a ratio near 1 for noise and near 0 when
// a smooth, still explainable part is left. Neighbours are taken over all
// inputs and over the variables the front uses, and the smaller ratio
// counts (test/bench/CALIBRATION.md#settle-rule has the measurements
// behind the thresholds).
//
// # Time and size at many columns
//
// Seeding (the sparse, exponential, transform, link, rational, structure
// and π-group passes) may use at most 30 % of the search time; the
// evolutionary search always gets the rest. Every pass reads the clock (the
// time limit and the context) between its stages and inside its long loops
// (forward selection, STLSQ and the pair search stop between solves) and,
// once time is up, returns the seeds found so far, or none. No library
// grows with the square of the columns: the candidate library is capped
// at maxLibrary terms, and the squared ratios (x_i/x_j)², of which there
// are v(v−1), are cut to maxRatioTerms by sure independence screening
// (Fan & Lv 2008): the ratios most correlated with log|y| on the search
// rows. Up to 10 inputs every ratio is kept, so small problems are
// searched as before (issue 18, item 4).
//
// Expressions print in infix with ^ for powers and explicit *, for example
// "0.0795775*q1*q2/epsilon*r^(-2)", and parse with sympy's parse_expr
// (convert_xor) or sympify.
package symbolic
