package conservation

import (
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/stat"
)

// rk4 integrates y' = f(y) from y0 with the classical fourth-order
// Runge-Kutta method and returns the state every `every` steps (including the
// start), `samples` states in all.
func rk4(f func(y []float64) []float64, y0 []float64, dt float64, samples, every int) [][]float64 {
	y := append([]float64(nil), y0...)
	out := [][]float64{append([]float64(nil), y...)}
	tmp := make([]float64, len(y))
	step := func(base []float64, k []float64, h float64) []float64 {
		for i := range tmp {
			tmp[i] = base[i] + h*k[i]
		}
		return f(tmp)
	}
	for len(out) < samples {
		for range every {
			k1 := f(y)
			k2 := step(y, k1, dt/2)
			k3 := step(y, k2, dt/2)
			k4 := step(y, k3, dt)
			for i := range y {
				y[i] += dt / 6 * (k1[i] + 2*k2[i] + 2*k3[i] + k4[i])
			}
		}
		out = append(out, append([]float64(nil), y...))
	}
	return out
}

// stack turns per-trajectory state lists into the column-major matrix and
// labels that Find takes.
func stack(trajectories [][][]float64) (X [][]float64, labels []string) {
	nvars := len(trajectories[0][0])
	X = make([][]float64, nvars)
	for t, states := range trajectories {
		for _, s := range states {
			for j, v := range s {
				X[j] = append(X[j], v)
			}
			labels = append(labels, "traj-"+strconv.Itoa(t))
		}
	}
	return X, labels
}

// addNoise adds Gaussian noise with standard deviation frac times each
// variable's standard deviation over all rows.
func addNoise(X [][]float64, frac float64, rng *rand.Rand) {
	for _, col := range X {
		sd := stat.PopStdDev(col, nil)
		for i := range col {
			col[i] += frac * sd * rng.NormFloat64()
		}
	}
}

func massSpring(k, m float64) func(y []float64) []float64 {
	return func(y []float64) []float64 { return []float64{y[1], -k / m * y[0]} }
}

func pendulum(gOverL float64) func(y []float64) []float64 {
	return func(y []float64) []float64 { return []float64{y[1], -gOverL * sinOf(y[0])} }
}

func kepler(gm float64) func(y []float64) []float64 {
	return func(y []float64) []float64 {
		r2 := y[0]*y[0] + y[1]*y[1]
		r3 := r2 * sqrtOf(r2)
		return []float64{y[2], y[3], -gm * y[0] / r3, -gm * y[1] / r3}
	}
}
