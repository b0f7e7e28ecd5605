package symbolic

import (
	"math"
	"strconv"
)

// snapConstants rounds each constant of e to the simplest nearby value
// (0, an integer, a half, then 1–4 significant digits) when doing so does
// not measurably worsen the fit. "Measurably" follows the Akaike criterion:
// dropping a free parameter is worth a relative MSE increase of 2/n. This
// turns 0.4999998 into 0.5 and 1e-9 offsets into nothing, which is what
// exact recovery (and a human reader) needs.
func snapConstants(e *expr, ev *evaluator, y []float64, varY float64) *expr {
	n := float64(len(y))
	cur := mseOf(ev.eval(e.postfix(nil)), y, 0, 1)
	if math.IsInf(cur, 0) {
		return e
	}
	var consts []*expr
	var walk func(*expr)
	walk = func(x *expr) {
		if x.op == opConst {
			consts = append(consts, x)
		}
		for _, a := range x.args {
			walk(a)
		}
	}
	walk(e)
	// Snapping one constant can make room for another, so sweep until
	// nothing changes.
	for sweep := 0; sweep < 3; sweep++ {
		changed := false
		for _, k := range consts {
			orig := k.c
			for _, v := range snapCandidates(orig) {
				k.c = v
				m := mseOf(ev.eval(e.postfix(nil)), y, 0, 1)
				if m <= cur*(1+2/n) || m <= 1e-2*exactNMSE*varY {
					cur = math.Min(cur, m)
					orig = v
					changed = true
					break
				}
			}
			k.c = orig
		}
		if !changed {
			break
		}
	}
	return simplify(e)
}

// snapCandidates lists simpler values near c, simplest first.
func snapCandidates(c float64) []float64 {
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
	for digits := 1; digits <= 4; digits++ {
		v, err := strconv.ParseFloat(strconv.FormatFloat(c, 'g', digits, 64), 64)
		if err == nil {
			add(v)
		}
	}
	if c == 0 {
		return nil
	}
	return out
}
