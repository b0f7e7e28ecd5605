package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/discolab/disco/engine/conservation"
)

// A run over Lotka–Volterra trajectories claims the first integral
// δx − γ ln x + βy − α ln y, which needs logarithmic terms, and its
// noise_feature control passes.
func TestDiscoverConservationWithLogarithms(t *testing.T) {
	const alpha, beta, gamma, delta = 2.0 / 3, 4.0 / 3, 1.0, 1.0
	f := func(s [2]float64) [2]float64 {
		return [2]float64{alpha*s[0] - beta*s[0]*s[1], delta*s[0]*s[1] - gamma*s[1]}
	}
	var traj, x, y []float64
	for k, s := range [][2]float64{{1, 1}, {1.5, 1}, {2, 0.8}, {0.6, 1.4}, {2.5, 0.4}, {1.2, 2}} {
		for i := 0; i < 120; i++ {
			traj, x, y = append(traj, float64(k)), append(x, s[0]), append(y, s[1])
			for range 8 {
				const h = 0.01
				k1 := f(s)
				k2 := f([2]float64{s[0] + h/2*k1[0], s[1] + h/2*k1[1]})
				k3 := f([2]float64{s[0] + h/2*k2[0], s[1] + h/2*k2[1]})
				k4 := f([2]float64{s[0] + h*k3[0], s[1] + h*k3[1]})
				for j := range s {
					s[j] += h / 6 * (k1[j] + 2*k2[j] + 2*k3[j] + k4[j])
				}
			}
		}
	}
	fr := frameOf(t, []string{"traj", "x", "y"}, traj, x, y)
	res, err := Discover(context.Background(), fr, Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: 1,
		Parameters: Parameters{Epochs: 30, Constraints: []string{"trajectory:traj"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := conservationClaim(t, res)
	if !strings.Contains(found.Expression, "log(x)") || !strings.Contains(found.Expression, "log(y)") {
		t.Fatalf("expression %q, want the Lotka–Volterra integral", found.Expression)
	}
	if *found.Evidence.RelativeVariation > 0.001 || !found.Evidence.NegativeControlsPassed {
		t.Fatalf("%s: evidence %+v", found.Expression, found.Evidence)
	}
}

// conservationClaim returns the run's last conservation claim and fails the
// test when there is none.
func conservationClaim(t *testing.T, res *Result) *Claim {
	t.Helper()
	var found *Claim
	for i, c := range res.Claims {
		if c.Type == ClaimConservation {
			found = &res.Claims[i]
		}
	}
	if found == nil {
		t.Fatalf("no conservation claim among %d claims", len(res.Claims))
	}
	return found
}

// A run over 12 independent oscillators (24 variables, too many for one
// library of degree 2) claims every oscillator's energy from the grouped
// search, says so in the summary, and the claims pass their control; the
// bootstrap, which reruns the groups, finds each again (how often depends
// on the printed coefficients, which resamples may round differently).
func TestDiscoverConservationGroupsManyVariables(t *testing.T) {
	const osc, trajs, samples = 12, 6, 200
	rng := rand.New(rand.NewPCG(21, 22))
	names := []string{"traj"}
	cols := [][]float64{nil}
	for k := range osc {
		names = append(names, fmt.Sprint("x", k), fmt.Sprint("v", k))
		cols = append(cols, nil, nil)
	}
	for tr := range trajs {
		for k := range osc {
			w := 1 + float64(k)/2
			amp, phase := 0.5+2*rng.Float64(), 2*math.Pi*rng.Float64()
			for i := range samples {
				tt := 0.05 * float64(i)
				cols[1+2*k] = append(cols[1+2*k], amp*math.Cos(w*tt+phase)*(1+0.001*rng.NormFloat64()))
				cols[2+2*k] = append(cols[2+2*k], -amp*w*math.Sin(w*tt+phase)*(1+0.001*rng.NormFloat64()))
			}
		}
		for range samples {
			cols[0] = append(cols[0], float64(tr))
		}
	}
	fr := frameOf(t, names, cols...)
	res, err := Discover(context.Background(), fr, Spec{Mode: ModeSymbolic, Targets: []string{"x0"}, Seed: 1,
		Parameters: Parameters{Epochs: 10, Constraints: []string{"trajectory:traj"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, c := range res.Claims {
		if c.Type != ClaimConservation {
			continue
		}
		if !strings.Contains(c.Summary, "grouped search: the 24 variables fall into 12 groups") {
			t.Errorf("summary %q lacks the grouping", c.Summary)
		}
		if len(c.Variables) != 2 || !c.Evidence.NegativeControlsPassed || c.Evidence.BootstrapStability == 0 {
			t.Errorf("%s: variables %v, evidence %+v", c.Expression, c.Variables, c.Evidence)
		}
		found[c.Variables[0]] = true
	}
	if len(found) != osc {
		t.Errorf("energies of %d oscillators claimed, want %d", len(found), osc)
	}
}

// A bootstrap round finds the same quantity when it has the same terms and
// its coefficients point the same way, whatever their scale and last
// digits; other terms or another direction do not count.
func TestConservationStabilityMatchesQuantitiesNotStrings(t *testing.T) {
	q := conservation.Quantity{Expression: "x^2 + 0.25*v^2", Coefficients: map[string]float64{"x^2": 1, "v^2": 0.25}}
	rounds := [][]conservation.Quantity{
		{{Expression: "x^2 + 0.2501*v^2", Coefficients: map[string]float64{"x^2": 1, "v^2": 0.2501}}},
		{{Expression: "y"}, {Expression: "2*x^2 + 0.5*v^2", Coefficients: map[string]float64{"x^2": 2, "v^2": 0.5}}},
		{{Expression: "x^2", Coefficients: map[string]float64{"x^2": 1}}},
		{{Expression: "x^2 - 0.25*v^2", Coefficients: map[string]float64{"x^2": 1, "v^2": -0.25}}},
	}
	if got := stability(q, rounds); got != 2.0/bootstrapRounds {
		t.Errorf("stability %v, want %v: two rounds found the quantity", got, 2.0/bootstrapRounds)
	}
}
