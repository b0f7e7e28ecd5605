package conservation

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// pendulumData returns pendulum trajectories (g/L = 4) from several
// amplitudes with Gaussian noise of frac times each variable's spread.
func pendulumData(frac float64, seed uint64) ([][]float64, []string) {
	var trajs [][][]float64
	for _, theta0 := range []float64{0.4, 1.0, 1.6, 2.2, 2.8} {
		trajs = append(trajs, rk4(pendulum(4), []float64{theta0, 0}, 0.005, 300, 4))
	}
	X, labels := stack(trajs)
	addNoise(X, frac, rand.New(rand.NewPCG(seed, 1)))
	return X, labels
}

func keplerData(frac float64, seed uint64) ([][]float64, []string) {
	starts := []struct{ r, phase, speed, tilt float64 }{
		{1, 0, 0.9, 0}, {1.3, 1, 0.85, 0.2}, {0.8, 2.5, 1.3, -0.3}, {1.1, 4, 1.1, 0.4}, {0.9, 5.2, 1.0, -0.1},
	}
	var trajs [][][]float64
	for _, s := range starts {
		x, y := s.r*math.Cos(s.phase), s.r*math.Sin(s.phase)
		dir := s.phase + math.Pi/2 + s.tilt
		y0 := []float64{x, y, s.speed * math.Cos(dir), s.speed * math.Sin(dir)}
		trajs = append(trajs, rk4(kepler(1), y0, 0.002, 400, 25))
	}
	X, labels := stack(trajs)
	addNoise(X, frac, rand.New(rand.NewPCG(seed, 2)))
	return X, labels
}

// With 1 % measurement noise and default options, the energies of the
// mass-spring and the pendulum and the angular momentum of Kepler orbits are
// found (their relative variation exceeds the 2 % default tolerance, so this
// relies on the noise model), over several noise draws.
func TestOnePercentNoiseDefaultOptions(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("mass-spring/", seed), func(t *testing.T) {
			X, labels := massSpringData(2, 1)
			addNoise(X, 0.01, rand.New(rand.NewPCG(seed, 9)))
			qs, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != 1 {
				t.Fatalf("got %+v", qs)
			}
			assertTerms(t, qs[0], "v^2", "x^2")
			if r := qs[0].Coefficients["x^2"] / qs[0].Coefficients["v^2"]; math.Abs(r-2) > 0.1 {
				t.Errorf("x^2 : v^2 = %g, want 2", r)
			}
		})
		t.Run(fmt.Sprint("pendulum/", seed), func(t *testing.T) {
			X, labels := pendulumData(0.01, seed)
			qs, err := Find(context.Background(), X, []string{"theta", "omega"}, labels, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != 1 {
				t.Fatalf("got %+v", qs)
			}
			assertTerms(t, qs[0], "cos(theta)", "omega^2")
			if r := qs[0].Coefficients["cos(theta)"] / qs[0].Coefficients["omega^2"]; math.Abs(r+8) > 0.4 {
				t.Errorf("cos(theta) : omega^2 = %g, want -8", r)
			}
			if qs[0].RelativeVariation <= defaultTolerance {
				t.Logf("relative variation %g is within the fixed tolerance; the noise model was not needed", qs[0].RelativeVariation)
			}
		})
		t.Run(fmt.Sprint("kepler/", seed), func(t *testing.T) {
			X, labels := keplerData(0.01, seed)
			qs, err := Find(context.Background(), X, []string{"x", "y", "vx", "vy"}, labels, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) == 0 || qs[0].Expression != "x*vy - y*vx" {
				t.Fatalf("got %+v", qs)
			}
		})
	}
}

// The noise model must not turn noise into conservation laws: random walks
// (with and without measurement noise), trajectories that are pure noise
// around a per-trajectory constant, and a near-identity z = x + y + noise
// give nothing, at noise levels from 0.1 % to 100 % of the signal.
func TestNoiseModelFalsePositives(t *testing.T) {
	names3 := []string{"x", "y", "z"}
	run := func(t *testing.T, X [][]float64, labels []string, names []string) {
		t.Helper()
		qs, err := Find(context.Background(), X, names, labels, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(qs) != 0 {
			t.Errorf("false positive: %+v", qs)
		}
	}
	for _, noise := range []float64{0.001, 0.01, 0.1, 1} {
		rng := rand.New(rand.NewPCG(uint64(noise*1e4), 17))
		t.Run(fmt.Sprint("random-walk/", noise), func(t *testing.T) {
			var trajs [][][]float64
			for range 5 {
				x, y, z := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
				var states [][]float64
				for range 200 {
					x += 0.1 * rng.NormFloat64()
					y += 0.1 * rng.NormFloat64()
					z += 0.1 * rng.NormFloat64()
					states = append(states, []float64{x, y, z})
				}
				trajs = append(trajs, states)
			}
			X, labels := stack(trajs)
			addNoise(X, noise, rng)
			run(t, X, labels, names3)
		})
		t.Run(fmt.Sprint("noise-only/", noise), func(t *testing.T) {
			var trajs [][][]float64
			for range 5 {
				// Independent random centres: with centres on a line (say
				// x - z equal on every trajectory) a smooth function of x - z
				// stationary there is a genuine near-identity of the data.
				centre := []float64{2 * rng.NormFloat64(), 2 * rng.NormFloat64(), 2 * rng.NormFloat64()}
				var states [][]float64
				for range 200 {
					s := make([]float64, 3)
					for j := range s {
						s[j] = centre[j] + noise*rng.NormFloat64()
					}
					states = append(states, s)
				}
				trajs = append(trajs, states)
			}
			X, labels := stack(trajs)
			run(t, X, labels, names3)
		})
		t.Run(fmt.Sprint("near-identity/", noise), func(t *testing.T) {
			var trajs [][][]float64
			for range 4 {
				x, y := rng.NormFloat64(), rng.NormFloat64()
				var states [][]float64
				for range 200 {
					x += 0.1 * rng.NormFloat64()
					y += 0.1 * rng.NormFloat64()
					states = append(states, []float64{x, y, x + y + 0.1*noise*rng.NormFloat64()})
				}
				trajs = append(trajs, states)
			}
			X, labels := stack(trajs)
			run(t, X, labels, names3)
		})
	}
}

// Shuffling the rows of noisy trajectories destroys the time order the noise
// floor is estimated from; the noise model must then stay out of the way
// (terms are not resolved) rather than explain everything as noise.
func TestNoiseModelNeedsTimeOrder(t *testing.T) {
	X, labels := massSpringData(2, 1)
	addNoise(X, 0.01, rand.New(rand.NewPCG(4, 4)))
	groups, err := groupTrajectories(X, []string{"x", "v"}, labels)
	if err != nil {
		t.Fatal(err)
	}
	p := newProblem(buildLibrary(X, []string{"x", "v"}, 2), groups, len(labels))
	all := seq(len(p.terms))
	if !p.resolved(all) {
		t.Fatal("time-ordered trajectories: terms should be resolved")
	}
	perm := rand.New(rand.NewPCG(5, 5)).Perm(len(labels))
	Y := [][]float64{make([]float64, len(labels)), make([]float64, len(labels))}
	shuffled := make([]string, len(labels))
	for to, from := range perm {
		Y[0][to], Y[1][to], shuffled[to] = X[0][from], X[1][from], labels[from]
	}
	groups, _ = groupTrajectories(Y, []string{"x", "v"}, shuffled)
	q := newProblem(buildLibrary(Y, []string{"x", "v"}, 2), groups, len(shuffled))
	for k := range q.terms {
		if q.resolved([]int{k}) {
			t.Errorf("shuffled rows: term %s resolved", q.terms[k].name)
		}
	}
}

// DisableNoiseModel restores the fixed-tolerance rule: 1 % noise on the
// mass-spring is then beyond the default tolerance.
func TestDisableNoiseModel(t *testing.T) {
	X, labels := massSpringData(2, 1)
	addNoise(X, 0.01, rand.New(rand.NewPCG(1, 2)))
	qs, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{DisableNoiseModel: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 0 {
		t.Errorf("fixed tolerance accepted %+v", qs)
	}
}
