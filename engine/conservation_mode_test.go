package engine

import (
	"context"
	"strings"
	"testing"
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
