package dynamics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// system is a known ODE for the tests.
type system struct {
	names []string
	f     func(x, dx []float64)
	// truth[state] maps term names (as the library prints them) to
	// coefficients.
	truth []map[string]float64
}

var lotkaVolterra = system{
	names: []string{"x", "y"},
	f: func(x, dx []float64) {
		dx[0] = 1.0*x[0] - 0.5*x[0]*x[1]
		dx[1] = 0.25*x[0]*x[1] - 0.75*x[1]
	},
	truth: []map[string]float64{{"x": 1, "x*y": -0.5}, {"x*y": 0.25, "y": -0.75}},
}

var lorenz = system{
	names: []string{"x", "y", "z"},
	f: func(x, dx []float64) {
		dx[0] = 10 * (x[1] - x[0])
		dx[1] = x[0]*(28-x[2]) - x[1]
		dx[2] = x[0]*x[1] - 8.0/3*x[2]
	},
	truth: []map[string]float64{{"x": -10, "y": 10}, {"x": 28, "y": -1, "x*z": -1}, {"z": -8.0 / 3, "x*y": 1}},
}

var linear3 = system{
	names: []string{"x", "y", "z"},
	f: func(x, dx []float64) {
		dx[0] = -0.1*x[0] + 2*x[1]
		dx[1] = -2*x[0] - 0.1*x[1]
		dx[2] = 0.3*x[0] - 0.3*x[2]
	},
	truth: []map[string]float64{{"x": -0.1, "y": 2}, {"x": -2, "y": -0.1}, {"x": 0.3, "z": -0.3}},
}

// sample integrates sys from each initial condition on times and adds
// Gaussian noise of noise·RMS(state) per state.
func sample(t *testing.T, sys system, ics [][]float64, times []float64, noise float64, seed uint64) Trajectories {
	t.Helper()
	d := Trajectories{StateNames: slices.Clone(sys.names), States: make([][]float64, len(sys.names))}
	for k, x0 := range ics {
		path, err := Integrate(func(_ float64, x, dx []float64) { sys.f(x, dx) }, x0, times, IntegrateOptions{RelTol: 1e-10, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range path {
			d.Time = append(d.Time, times[i])
			d.Trajectory = append(d.Trajectory, fmt.Sprint(k))
			for j, v := range x {
				d.States[j] = append(d.States[j], v)
			}
		}
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	for j, col := range d.States {
		scale := noise * math.Sqrt(stat.Mean(sq(col), nil))
		for i := range col {
			d.States[j][i] += scale * rng.NormFloat64()
		}
	}
	return d
}

func sq(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x * x
	}
	return out
}

func grid(n int, dt float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) * dt
	}
	return out
}

// exact reports whether every equation has exactly the true terms, each
// coefficient within tol (relative) of the truth.
func exact(res Result, sys system, tol float64) (bool, string) {
	for s, eq := range res.Equations {
		want := sys.truth[s]
		if len(eq.Coefficients) != len(want) {
			return false, fmt.Sprintf("%s: got %s", eq.Target, eq.Expression)
		}
		for term, c := range want {
			got, ok := eq.Coefficients[term]
			if !ok || math.Abs(got-c) > tol*math.Abs(c) {
				return false, fmt.Sprintf("%s: got %s", eq.Target, eq.Expression)
			}
		}
	}
	return true, ""
}

// segments validates d and returns all its trajectories as Discover's
// pieces, sorted by time, each row's values in the order states, then
// inputs.
func (d Trajectories) segments() ([]segment, error) {
	groups, err := d.groups()
	if err != nil {
		return nil, err
	}
	out := make([]segment, len(groups))
	for g, gr := range groups {
		out[g] = d.piece(gr)
	}
	return out, nil
}
