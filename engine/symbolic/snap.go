package symbolic

import (
	"math"
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
func snapConstants(e *expr, opt *constOptimizer, varY float64, refit bool) *expr {
	y := opt.y
	tol := snapTolerance(len(y))
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
	good := func(m float64) bool { return m <= cur*(1+tol) || m <= 1e-2*exactNMSE*varY }
	frozen := make([]bool, len(t))
	// Snapping one constant can make room for another, so sweep twice.
	for sweep := 0; sweep < 2; sweep++ {
		changed := false
		for pos := range t {
			if t[pos].op != opConst || frozen[pos] {
				continue
			}
			for _, v := range snapCandidates(t[pos].c) {
				trial := t.clone()
				trial[pos].c = v
				m := mseOf(opt.ev.eval(trial), y, 0, 1)
				if !good(m) && refit {
					frozen[pos] = true
					trial, m = opt.fitUnscaled(trial, frozen, 15)
					frozen[pos] = false
				}
				if good(m) {
					t, cur = trial, math.Min(m, cur)
					frozen[pos] = true
					changed = true
					break
				}
			}
		}
		if !changed {
			break
		}
	}
	return simplify(toExpr(t))
}

var piUnits = func() []float64 {
	var u []float64
	for _, base := range []float64{math.Pi, 2 * math.Pi} {
		for _, pw := range []float64{1, -1, 2, -2, 0.5, -0.5} {
			u = append(u, math.Pow(base, pw))
		}
	}
	return u
}()

// snapCandidates lists simpler values near c, simplest first.
func snapCandidates(c float64) []float64 {
	if c == 0 {
		return nil
	}
	out := []float64{0}
	add := func(v float64) {
		if v == c || math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		for _, w := range out {
			if w == v {
				return
			}
		}
		out = append(out, v)
	}
	add(math.Round(c))
	add(math.Round(2*c) / 2)
	// Simple multiples of powers of π and 2π (4π, 1/(4π), 1/sqrt(2π),
	// π²/8, ...) are frequent in physical laws.
	for _, unit := range piUnits {
		for _, q := range []float64{1, 2, 3, 4, 6, 8} {
			for _, v := range []float64{q * unit, unit / q} {
				if math.Abs(v-math.Abs(c)) <= 1e-3*math.Abs(c) {
					add(math.Copysign(v, c))
				}
			}
		}
	}
	for digits := 1; digits <= 4; digits++ {
		v, err := strconv.ParseFloat(strconv.FormatFloat(c, 'g', digits, 64), 64)
		if err == nil {
			add(v)
		}
	}
	return out
}
