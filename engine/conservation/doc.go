// Package conservation finds conserved quantities in time-series data that
// is grouped into trajectories.
//
// A conserved quantity Q(x) is constant along every trajectory but may take a
// different value on each one (the energy of an oscillator depends on its
// amplitude). The method follows the null-space idea of implicit sparse
// regression:
//
//  1. Build a library of candidate terms: monomials of the variables up to
//     Options.MaxDegree (default 2) and sin/cos of each variable (the
//     pendulum energy needs cos(theta)). Past 16 variables degree 2 would
//     give more than 200 terms; the variables are then split into groups
//     that may share a quantity, and each group is searched alone, by the
//     steps below, at the highest degree its size allows (see groups.go).
//  2. Centre every term within each trajectory, so that only the variation
//     along a trajectory remains, stack the trajectories and scale each
//     column to unit root mean square.
//  3. Take the SVD. A combination Q = sum_k c_k f_k is conserved exactly when
//     the centred library times c vanishes, so right singular vectors with
//     near-zero singular values span the conserved quantities; their count
//     bounds how many independent quantities are reported.
//  4. Extract sparse, readable combinations from that near-null space by
//     sequential thresholding (each term that takes part in the near-null
//     space regressed on the others, and each near-null singular vector
//     thresholded), re-solving on the support, and pruning terms one at a
//     time while the quantity stays conserved. At most 8 terms.
//  5. Accept a candidate only if (a) its relative variation (see Quantity)
//     is within Options.Tolerance, divided by (terms-1) beyond two terms,
//     since every extra coefficient is freedom to look conserved by
//     accident; (b) it stays within that bound on trajectories left out of
//     the fit, one at a time, so it generalises to unseen orbits; and (c) its
//     value separates the trajectories: the spread of its per-trajectory
//     means must clearly exceed its spread along trajectories. (c) rejects
//     identities of the data (a combination that is constant everywhere, or
//     nearly so, such as cos(x) + x^2/2 for small x) which would otherwise
//     look conserved. With measurement noise, (a) and (b) may instead be met
//     by the noise model (see noise.go and Options.DisableNoiseModel): on
//     time-ordered trajectories whose terms rise well above their noise
//     floor, Q may vary as much as the noise estimated from its own
//     fourth-order differences explains (relative variation at most 0.2).
//  6. Report independent quantities, fewest terms first, with coefficients
//     rounded to small integers when the data cannot tell the difference.
//  7. If fewer than Options.MaxQuantities were found, search again with the
//     library extended by logarithmic and rational terms (log x, 1/x, x/y,
//     1/sqrt(x² + y²) and x/sqrt(x² + y²); see extended.go) for
//     quantities that need one of them, such as the Lotka–Volterra integral
//     or the Kepler energy. This stage also tries every support of up to
//     four terms, and so accepts with the fixed tolerance divided by 10 (the
//     noise model is unchanged); it drops a quantity that is a function of
//     a single one already found, and a set of quantities whose gradients
//     span every direction of the varying variables, which no flow
//     conserves, loses its longest members (see dependence.go).
//
// Terms that are constant within every trajectory (parameters, labels) carry
// no dynamics; they vanish after centring and are left out of the library.
// A quantity that takes the same value on every trajectory cannot be told
// apart from an identity and is not reported.
package conservation
