// Package controls implements the negative controls and the Truth Dial score
// that every disco claim carries.
//
// A negative control asks whether a claim beats what chance alone would give.
// Each control is a permutation (randomisation) test: the claim's statistic
// is computed once on the real data and N times on data in which the
// relationship the claim asserts has been destroyed; the p-value is
//
//	p = (1 + #{null >= observed}) / (1 + N)
//
// with N = Permutations (99), so the smallest attainable p-value is 0.01.
// A control passes when p <= Alpha (0.05): the real data must beat the null.
//
// The null statistics are drawn one at a time and a control stops at the
// fifth one at least as large as the observed statistic, after l draws,
// with p = 5/l (Besag & Clifford 1991, "Sequential Monte Carlo p-values",
// Biometrika 78(2); see Sequential). Such a control fails the fixed test of
// 99 draws as well, and one that does not stop has exactly the fixed test's
// p-value, so every decision is the fixed test's while a claim whose
// statistic is typical of the null costs about 10 draws instead of 99.
//
// The claims of one causal run share their null data (Shared): the k-th
// permutation of the held-out rows and the k-th placebo are drawn once and
// used by every edge's controls. Each test stays exact; the tests of
// different edges become dependent, which Bonferroni's bound allows. The
// partial-correlation statistic of an edge (Partial) projects out the
// conditioning set once, so that a null draw costs O(n·k).
// When a run tests several laws for a target (a chosen law and its
// alternatives), each passes at Alpha divided by their number (Bonferroni),
// so that the chance of any of them passing on data without a relationship
// stays at Alpha.
// The statistic is always computed on rows the claim's model was not fitted
// on (the engine's held-out split) so the model's own selection on the data
// does not leak into the test; that is what keeps the controls calibrated on
// data where the target is independent of the inputs. For laws the statistic
// is the held-out R² of the law as stated (so a law of the wrong sign or
// scale gets no credit for correlating), and a law whose held-out R² is not
// above 0 fails every control: predicting unseen rows worse than their mean
// is no skill, even when it beats shuffled targets by chance.
//
// The controls (names are the wire values of the API):
//
//   - shuffled_target: the target (law), the effect (causal) is permuted.
//   - noise_feature: each input in turn is replaced by a pure-noise column (a
//     random permutation of itself, so the marginal is unchanged); the claim
//     must do better with the real column than with any noise column. The
//     reported p-value is the largest over the inputs.
//   - time_shift: the target is circularly shifted against the inputs by k
//     steps, k spread over [n/10, n-n/10]; circular shifts keep the
//     autocorrelation of a time series, which plain permutations destroy.
//   - placebo_cause: a Gaussian random variable takes the cause's place; the
//     real cause must depend on the effect more strongly than placebos do.
//
// The Truth Dial score (see Score) is
//
//	score = 0.40*fit + 0.30*controls + 0.20*stability + 0.10*parsimony
//
// where fit is the held-out R² clipped to [0, 1] (causal: the causal
// confidence), controls the fraction of applied controls that passed (0 when
// none ran), stability the fraction of bootstrap refits that reproduce the
// claim, and parsimony max(0, 1 - (complexity-1)/maxComplexity). When any
// control failed the score is additionally capped at 0.5, so a claim that
// does not beat chance can never reach a promotion threshold above 0.5.
package controls
