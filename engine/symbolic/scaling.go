package symbolic

import "math"

// linearScale finds a, b minimising Σ(y − a − b·f)² in closed form (Keijzer's
// linear scaling). It lets the search ignore the overall offset and scale of
// an expression, which are then free. ok is false when f is not finite.
func linearScale(f, y []float64) (a, b, mse float64, ok bool) {
	n := float64(len(y))
	var sf, sy float64
	for i, v := range f {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, math.Inf(1), false
		}
		sf += v
		sy += y[i]
	}
	mf, my := sf/n, sy/n
	var vf, cov float64
	for i, v := range f {
		d := v - mf
		vf += d * d
		cov += d * (y[i] - my)
	}
	// A (numerically) constant f carries no information: fit the mean only.
	// The relative test stops rounding noise in f from being amplified.
	if !(vf > 1e-24*n*(mf*mf+1e-300)) || math.IsInf(vf, 0) {
		a, b = my, 0
	} else {
		b = cov / vf
		a = my - b*mf
	}
	var sse float64
	for i, v := range f {
		r := y[i] - a - b*v
		sse += r * r
	}
	mse = sse / n
	if math.IsNaN(mse) || math.IsInf(mse, 0) {
		return 0, 0, math.Inf(1), false
	}
	return a, b, mse, true
}

// mseOf returns the mean squared error of a + b·f against y.
func mseOf(f, y []float64, a, b float64) float64 {
	var sse float64
	for i, v := range f {
		r := y[i] - a - b*v
		sse += r * r
	}
	mse := sse / float64(len(y))
	if math.IsNaN(mse) {
		return math.Inf(1)
	}
	return mse
}
