package dynamics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestForwardSelectPicksTheTrueColumns: y = 2·x3 − x7 + noise over 12
// columns, one of them (column 9) an exact copy of column 3. Forward
// selection from the constant picks 3 and 7, and never the copy, which
// adds no direction.
func TestForwardSelectPicksTheTrueColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const p, n = 12, 500
	G, c := make([]float64, p*p), make([]float64, p)
	row := make([]float64, p)
	for range n {
		row[0] = 1
		for j := 1; j < p; j++ {
			row[j] = rng.NormFloat64()
		}
		row[9] = row[3]
		y := 2*row[3] - row[7] + 0.05*rng.NormFloat64()
		for i := range p {
			for j := range p {
				G[i*p+j] += row[i] * row[j]
			}
			c[i] += row[i] * y
		}
	}
	got := forwardSelect(G, c, p, []int{0}, 3)
	if !slices.Equal(got, []int{0, 3, 7}) {
		t.Errorf("picked %v, want [0 3 7]", got)
	}
	all := forwardSelect(G, c, p, []int{0}, p)
	if len(all) != p-1 || slices.Contains(all[1:], 9) && slices.Contains(all[1:], 3) {
		t.Errorf("picked %v: want every column but one of the two copies", all)
	}
}

// screenedSystem is Lotka–Volterra in x and y, and z driven by the input
// u7 (ż = −z + u7), among 20 inputs u0…u19, sin(w_j t + p_j): 23 states
// and inputs, more than one library of degree 2 holds, so each state's
// library is screened. The product x*y has a linear trace in x and y, so
// the screen keeps both.
func screenedSystem(t *testing.T, seed uint64) (Trajectories, system) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	const inputs = 20
	w, ph := make([]float64, inputs), make([]float64, inputs)
	for j := range w {
		w[j], ph[j] = 0.3+1.7*rng.Float64(), 2*math.Pi*rng.Float64()
	}
	u := func(j int, t float64) float64 { return math.Sin(w[j]*t + ph[j]) }
	sys := system{
		names: []string{"x", "y", "z"},
		truth: []map[string]float64{{"x": 1, "x*y": -0.5}, {"x*y": 0.25, "y": -0.75}, {"z": -1, "u7": 1}},
	}
	d := Trajectories{StateNames: sys.names, States: make([][]float64, 3), Inputs: make([][]float64, inputs)}
	for j := range inputs {
		d.InputNames = append(d.InputNames, fmt.Sprint("u", j))
	}
	times := grid(400, 0.025)
	for k, x0 := range [][]float64{{2, 1, 0}, {4, 1.5, 1}, {1, 3, -1}, {3, 2.5, 0.5}, {2.5, 0.8, -0.5}, {1.5, 2, 2}, {3.5, 1.2, -2}, {1.2, 1.8, 1.5}} {
		path, err := Integrate(func(t float64, x, dx []float64) {
			dx[0] = x[0] - 0.5*x[0]*x[1]
			dx[1] = 0.25*x[0]*x[1] - 0.75*x[1]
			dx[2] = -x[2] + u(7, t)
		}, x0, times, IntegrateOptions{RelTol: 1e-10, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range path {
			d.Time = append(d.Time, times[i])
			d.Trajectory = append(d.Trajectory, fmt.Sprint(k))
			for j, v := range x {
				d.States[j] = append(d.States[j], v*(1+0.005*rng.NormFloat64()))
			}
			for j := range inputs {
				d.Inputs[j] = append(d.Inputs[j], u(j, times[i]))
			}
		}
	}
	return d, sys
}

// TestDiscoverScreensManyVariables: past 16 states and inputs each state
// gets a library of degree 2 over 5 screened variables; the screen keeps
// each equation's true variables, the equations are exact and pass, and
// the result says how its libraries were built.
func TestDiscoverScreensManyVariables(t *testing.T) {
	d, sys := screenedSystem(t, 1)
	res, err := Discover(context.Background(), d, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Candidates != defaultCandidates || res.Degree != 2 || res.Library != nil {
		t.Errorf("%d candidates, degree %d, %d shared terms; want %d screened variables per state at degree 2", res.Candidates, res.Degree, len(res.Library), defaultCandidates)
	}
	for s, want := range [][]string{{"x", "y"}, {"x", "y"}, {"z", "u7"}} {
		eq := res.Equations[s]
		if len(eq.Variables) != defaultCandidates {
			t.Errorf("%s: library over %v, want %d variables", eq.Target, eq.Variables, defaultCandidates)
		}
		for _, v := range want {
			if !slices.Contains(eq.Variables, v) {
				t.Errorf("%s: the screen kept %v, without %s", eq.Target, eq.Variables, v)
			}
		}
		if !eq.Passed {
			t.Errorf("%s = %s did not pass: %v", eq.Target, eq.Expression, eq.Reasons)
		}
	}
	if ok, why := exact(res, sys, 0.02); !ok {
		t.Error(why)
	}
	if want := "23 states and inputs"; !strings.Contains(res.LibraryNote, want) || !strings.Contains(res.LibraryNote, "linear screen") {
		t.Errorf("note %q, want it to name the %s and the linear screen", res.LibraryNote, want)
	}
	// with more candidates the libraries grow, and the equations stay
	wide, err := Discover(context.Background(), d, Settings{Seed: 1, Candidates: 8})
	if err != nil {
		t.Fatal(err)
	}
	if wide.Candidates != 8 || len(wide.Equations[2].Variables) != 8 {
		t.Errorf("8 candidates asked: %d, ż's library over %v", wide.Candidates, wide.Equations[2].Variables)
	}
	if ok, why := exact(wide, sys, 0.02); !ok {
		t.Errorf("8 candidates: %s", why)
	}
}
