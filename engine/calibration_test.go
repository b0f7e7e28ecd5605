package engine

import (
	"context"
	"math/rand"
	"testing"
)

// On data whose target is independent of the inputs, whatever the search
// finds must not pass its negative controls, and must score low.
func TestIndependentTargetFailsControls(t *testing.T) {
	passed := 0
	for seed := int64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 120
		a, b, y := gaussian(rng, n), gaussian(rng, n), gaussian(rng, n)
		f := frameOf(t, []string{"a", "b", "y"}, a, b, y)
		res, err := Discover(context.Background(), f, Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: seed}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Claims {
			t.Logf("seed %d: %s score %.3f controls %+v", seed, c.Expression, c.Score, c.Evidence.NegativeControls)
			if c.Evidence.NegativeControlsPassed {
				passed++
			}
			if c.Score > 0.5 {
				t.Errorf("seed %d: claim %q scored %v on noise", seed, c.Expression, c.Score)
			}
		}
		if res.Summary.NegativeControlsPassed {
			t.Errorf("seed %d: summary says controls passed on noise", seed)
		}
	}
	if passed > 0 {
		t.Fatalf("%d claims passed their controls on an independent target", passed)
	}
}

// Independent variables: any edge the search reports by chance must fail
// its controls on the held-out rows.
func TestIndependentVariablesCausalFailsControls(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		rng := rand.New(rand.NewSource(seed))
		n := 200
		f := frameOf(t, []string{"a", "b", "c", "d", "e"}, gaussian(rng, n), gaussian(rng, n), gaussian(rng, n), gaussian(rng, n), gaussian(rng, n))
		res, err := Discover(context.Background(), f, Spec{Mode: ModeCausal, Seed: seed, Parameters: Parameters{Constraints: []string{"alpha:0.2"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.Claims {
			t.Logf("seed %d: %s", seed, c.Summary)
			if c.Evidence.NegativeControlsPassed || c.Score > 0.5 {
				t.Errorf("seed %d: chance edge %s passed (score %v)", seed, c.Summary, c.Score)
			}
		}
	}
}
