package symbolic

import (
	"math"
	"slices"
	"strconv"
)

// snapTolerance is the relative MSE increase that fixing one constant at a
// simpler value may cost: ln(n)/n, the Bayesian information criterion's
// price of a free parameter. Fixing a parameter at its true value costs
// about σ²/n in expectation, so with noisy data true simple constants
// (0.5, 1, 2) are accepted nearly always, while a wrong rounding
// (0.0795775 → 0.08) costs orders of magnitude more.
func snapTolerance(n int) float64 { return math.Log(float64(n)) / float64(n) }

// snapConstants rounds each constant of e to the simplest nearby value
// (0, an integer, a half, then 1–4 significant digits) when the fit does
// not get measurably worse. With refit, the remaining constants are
// re-optimised after each trial (slower, needed with noisy data, where
// the fitted constants compensate each other); without, they stay put.
//
// With refit the order matters, because a snapped constant is frozen and
// can no longer compensate for the next trial: first constants are
// removed (fixed at 0, which simplify prunes: x + c → x, x − c → x) by
// backward elimination against the full model's BIC (dropConstants),
// then the survivors are snapped to simple values (integers, halves,
// multiples of powers of π) and only then rounded to a few digits.
// Otherwise a scale such as 12.5443 got rounded to 12.54 first, and the
// spurious offset of 12.54·(B − 0.005) that compensated for it could not
// be removed any more.
func snapConstants(e *expr, opt *constOptimizer, varY float64, refit bool) *expr {
	y := opt.y
	tol := snapTolerance(len(y))
	floor := 1e-2 * exactNMSE * varY
	t := e.postfix(nil)
	var cur float64
	if refit {
		t, cur = opt.fitUnscaled(t, nil, 30)
	} else {
		cur = mseOf(opt.ev.eval(t), y, 0, 1)
	}
	if math.IsInf(cur, 0) {
		return e
	}
	frozen := make([]bool, len(t))
	if !refit {
		t, _ = snapStages(t, frozen, cur, opt, tol, floor, false, []snapStage{{values: snapCandidates}})
		return simplify(toExpr(t))
	}
	t, cur = dropConstants(t, frozen, opt, cur, tol, floor)
	// Among the simple values, the simplest acceptable one (an integer
	// before a multiple of π) and the best-fitting one can lead to
	// different laws: a fitted 9.9 in sqrt((ω/c)² − k/d²) is π² (II.24.17),
	// but a fitted 9.42 in k/(3.06 − n·α) − 2.08, whose other constants
	// compensate, is 9, not 3π (II.11.28). Both are tried, and the outcome
	// with fewer free constants wins, then the one with the lower loss.
	var best tree
	bestFree, bestM := 0, math.Inf(1)
	for _, closest := range []bool{false, true} {
		tt, m := snapStages(t.clone(), slices.Clone(frozen), cur, opt, tol, floor, true,
			[]snapStage{{values: simpleCandidates, closest: closest}, {values: digitCandidates}})
		if free := freeConstants(tt); best == nil || free < bestFree || (free == bestFree && m < bestM) {
			best, bestFree, bestM = tt, free, m
		}
	}
	return simplify(toExpr(best))
}

// snapStages runs the stages of snapConstants on t, whose loss is cur,
// leaving frozen constants alone, and returns the snapped tree and its
// loss. A value is accepted when the loss stays within the BIC price of
// all the values fixed so far, cur·(1+tol)^k for the k-th (or below
// floor), as dropConstants judges removals: priced one at a time against
// the loss before them, three snaps that each cost a little left the
// third over the limit (9/(3 − n·α) − 2.001 for − 2, II.11.28). With
// refit, the other constants are refitted when the value alone is not
// accepted.
func snapStages(t tree, frozen []bool, cur float64, opt *constOptimizer, tol, floor float64, refit bool, stages []snapStage) (tree, float64) {
	y := opt.y
	// Without refits each value is judged alone against the lowest loss
	// so far (ref): the others cannot compensate, so the errors of several
	// roundings would add up.
	base, ref, snapped := cur, cur, 0
	good := func(m float64) bool {
		limit := ref * (1 + tol)
		if refit {
			limit = base * math.Pow(1+tol, float64(snapped+1))
		}
		return m <= limit || m <= floor
	}
	for _, candidates := range stages {
		// Snapping one constant can make room for another, so sweep twice.
		for sweep := 0; sweep < 2; sweep++ {
			changed := false
			for pos := range t {
				if t[pos].op != opConst || frozen[pos] {
					continue
				}
				var best tree
				bestM := math.Inf(1)
				for _, v := range candidates.values(t[pos].c) {
					trial := t.clone()
					trial[pos].c = v
					m := mseOf(opt.ev.eval(trial), y, 0, 1)
					if !good(m) && refit {
						frozen[pos] = true
						trial, m = opt.fitUnscaled(trial, frozen, 15)
						frozen[pos] = false
					}
					if good(m) && m < bestM {
						best, bestM = trial, m
						if !candidates.closest {
							break
						}
					}
				}
				if best != nil {
					t, cur, ref = best, bestM, math.Min(ref, bestM)
					frozen[pos] = true
					changed = true
					snapped++
				}
			}
			if !changed {
				break
			}
		}
	}
	return t, cur
}

// snapStage is one round of snapping: the values to try for a constant,
// and whether the first acceptable one wins (values listed simplest
// first) or the one that fits best (values equally simple: 10 and π²
// are both candidates for a fitted 9.9, and the data decide).
type snapStage struct {
	values  func(float64) []float64
	closest bool
}

// dropConstants removes constants of t by backward elimination: each
// round fixes at 0 the constant whose removal, with the others refitted,
// costs least, as long as the loss stays within the BIC price of all
// removed parameters, full·(1+tol)^k for k removed (or below floor).
// Judging the removed set jointly against the full model lets two
// spurious constants that compensate each other, (q + 0.005)/C − 0.002,
// go together where each alone would be kept. Removed constants are
// marked frozen; t's loss after the removals is returned.
func dropConstants(t tree, frozen []bool, opt *constOptimizer, full, tol, floor float64) (tree, float64) {
	cur := full
	var alive []int
	for pos, nd := range t {
		if nd.op == opConst && !frozen[pos] && nd.c != 0 {
			alive = append(alive, pos)
		}
	}
	// Refitted losses only grow as more constants are fixed, so a removal
	// that alone exceeds the budget for removing every constant can never
	// be accepted later and is not tried again.
	maxBudget := math.Max(full*math.Pow(1+tol, float64(len(alive))), floor)
	for removed := 1; len(alive) > 0; removed++ {
		bestPos, bestM := -1, math.Inf(1)
		var bestT tree
		keep := alive[:0]
		for _, pos := range alive {
			trial := t.clone()
			trial[pos].c = 0
			frozen[pos] = true
			trial, m := opt.fitUnscaled(trial, frozen, 15)
			frozen[pos] = false
			if !(m <= maxBudget) {
				continue
			}
			keep = append(keep, pos)
			if m < bestM {
				bestPos, bestM, bestT = pos, m, trial
			}
		}
		alive = keep
		if bestPos < 0 || !(bestM <= full*math.Pow(1+tol, float64(removed)) || bestM <= floor) {
			break
		}
		t, cur = bestT, bestM
		frozen[bestPos] = true
		alive = slices.DeleteFunc(alive, func(p int) bool { return p == bestPos })
	}
	return t, cur
}

// piWindow is the relative distance within which simpleCandidates offers
// a power of π or 2π itself, and multipleWindow a multiple of one (q·u,
// u/q with q > 1). The 12 powers are few: within 1 % of them lie 4 % of
// the constants drawn log-uniformly from 0.1 to 10. Within 1 % of the
// 106 distinct multiples lie 28 % of them, within 0.1 % 3 %.
const (
	piWindow       = 1e-2
	multipleWindow = 1e-3
)

// piMultiples are the factors q of the simple multiples q·u and u/q of
// the units u in piUnits.
var piMultiples = []float64{1, 2, 3, 4, 6, 8}

var piUnits = func() []float64 {
	var u []float64
	for _, base := range []float64{math.Pi, 2 * math.Pi} {
		for _, pw := range []float64{1, -1, 2, -2, 0.5, -0.5} {
			u = append(u, math.Pow(base, pw))
		}
	}
	return u
}()

// snapCandidates lists simpler values near c, simplest first: 0, then
// simpleCandidates, then digitCandidates.
func snapCandidates(c float64) []float64 {
	if c == 0 {
		return nil
	}
	out := []float64{0}
	for _, v := range append(simpleCandidates(c), digitCandidates(c)...) {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// simpleCandidates lists the nearest integer and half and the simple
// multiples of powers of π near c (not c itself, not 0): the powers
// within piWindow, the other multiples within multipleWindow. The window
// for the powers is wide because a constant that carries little of y is
// fitted loosely (π²/d² beside (ω/c)², II.24.17); the loss decides.
func simpleCandidates(c float64) []float64 {
	var out []float64
	add := func(v float64) {
		if v == c || v == 0 || math.IsNaN(v) || math.IsInf(v, 0) || slices.Contains(out, v) {
			return
		}
		out = append(out, v)
	}
	add(math.Round(c))
	add(math.Round(2*c) / 2)
	// Simple multiples of powers of π and 2π (4π, 1/(4π), 1/sqrt(2π),
	// π²/8, ...) are frequent in physical laws.
	for _, unit := range piUnits {
		for _, q := range piMultiples {
			for _, v := range []float64{q * unit, unit / q} {
				window := multipleWindow
				if q == 1 {
					window = piWindow
				}
				if math.Abs(v-math.Abs(c)) <= window*math.Abs(c) {
					add(math.Copysign(v, c))
				}
			}
		}
	}
	return out
}

// digitCandidates lists c rounded to 1–4 significant digits (not c
// itself, not 0).
func digitCandidates(c float64) []float64 {
	var out []float64
	for digits := 1; digits <= 4; digits++ {
		v, err := strconv.ParseFloat(strconv.FormatFloat(c, 'g', digits, 64), 64)
		if err == nil && v != c && v != 0 && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
