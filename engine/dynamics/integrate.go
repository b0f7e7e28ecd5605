package dynamics

import (
	"errors"
	"math"
)

// ErrDiverged is returned by Integrate when the solution leaves the bound,
// stops being finite or needs more steps than allowed.
var ErrDiverged = errors.New("dynamics: integration diverged")

// IntegrateOptions bounds an integration.
type IntegrateOptions struct {
	// RelTol and AbsTol are the local error tolerances per component
	// (defaults 1e-6 and 1e-9).
	RelTol, AbsTol float64
	// Bound stops the integration once any |x_i| exceeds it (default +Inf).
	Bound float64
	// MaxSteps bounds the accepted and rejected steps (default 100000).
	MaxSteps int
}

// Dormand–Prince 5(4) coefficients (Dormand & Prince 1980, J. Comput. Appl.
// Math. 6:19; Hairer, Nørsett & Wanner 1993, Solving ODEs I, table II.5.2).
var (
	dpC = [7]float64{0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1}
	dpA = [7][6]float64{
		{},
		{1.0 / 5},
		{3.0 / 40, 9.0 / 40},
		{44.0 / 45, -56.0 / 15, 32.0 / 9},
		{19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
		{9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
		{35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84},
	}
	// dpE = b − b̂: the difference of the 5th- and 4th-order weights.
	dpE = [7]float64{71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40}
)

// Integrate solves ẋ = f(t, x), x(times[0]) = x0, and returns x at every
// time in times (increasing), by the explicit Runge–Kutta pair of Dormand &
// Prince with the standard step-size control (Hairer, Nørsett & Wanner
// 1993, section II.4: h ← h·min(5, max(0.2, 0.9·err^(−1/5))), steps
// clipped to land on each output time). f writes ẋ into dx. On ErrDiverged
// the states up to the failure are returned.
func Integrate(f func(t float64, x, dx []float64), x0 []float64, times []float64, opts IntegrateOptions) ([][]float64, error) {
	if opts.RelTol <= 0 {
		opts.RelTol = 1e-6
	}
	if opts.AbsTol <= 0 {
		opts.AbsTol = 1e-9
	}
	if opts.Bound <= 0 {
		opts.Bound = math.Inf(1)
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = 100000
	}
	n := len(x0)
	out := make([][]float64, 0, len(times))
	if len(times) == 0 {
		return out, nil
	}
	x := append([]float64(nil), x0...)
	out = append(out, append([]float64(nil), x...))
	var k [7][]float64
	for i := range k {
		k[i] = make([]float64, n)
	}
	tmp := make([]float64, n)
	xn := make([]float64, n)
	t := times[0]
	f(t, x, k[0])
	h := 0.0
	if len(times) > 1 {
		h = (times[1] - times[0]) / 4
	}
	steps := 0
	for _, target := range times[1:] {
		for t < target {
			if steps++; steps > opts.MaxSteps {
				return out, ErrDiverged
			}
			last, free := false, h
			if t+h >= target {
				h, last = target-t, true
			}
			for s := 1; s < 7; s++ {
				for i := range x {
					v := x[i]
					for j := range s {
						v += h * dpA[s][j] * k[j][i]
					}
					tmp[i] = v
				}
				f(t+dpC[s]*h, tmp, k[s])
			}
			copy(xn, tmp) // stage 7's argument is the 5th-order solution
			var errSum float64
			for i := range x {
				var e float64
				for s := range 7 {
					e += dpE[s] * k[s][i]
				}
				sc := opts.AbsTol + opts.RelTol*math.Max(math.Abs(x[i]), math.Abs(xn[i]))
				errSum += (h * e / sc) * (h * e / sc)
			}
			errNorm := math.Sqrt(errSum / float64(n))
			if math.IsNaN(errNorm) {
				return out, ErrDiverged
			}
			if errNorm <= 1 {
				t += h
				if last {
					t = target
				}
				copy(x, xn)
				copy(k[0], k[6]) // first same as last
				for _, v := range x {
					if math.IsNaN(v) || math.Abs(v) > opts.Bound {
						return out, ErrDiverged
					}
				}
			}
			fac := 5.0
			if errNorm > 0 {
				fac = math.Min(5, math.Max(0.2, 0.9*math.Pow(errNorm, -0.2)))
			}
			if errNorm > 1 {
				fac = math.Min(fac, 1)
			}
			h *= fac
			if last && errNorm <= 1 {
				// the step was clipped to land on the output time; the
				// next one starts from the step the control proposed
				h = math.Max(h, free)
			} else if h < 1e-12*math.Max(1, math.Abs(t)) {
				return out, ErrDiverged
			}
		}
		out = append(out, append([]float64(nil), x...))
	}
	return out, nil
}
