package engine

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/discolab/disco/engine/controls"
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
		t.Logf("seed %d: searches %+v", seed, res.Summary.Searches)
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

// A law of the wrong sign, or of the right shape at a wrong scale, predicts unseen rows
// worse than their mean: its controls fail, although it correlates with the target
// (under the earlier squared-correlation statistic both passed). The right law passes.
func TestLawWithoutHeldOutSkillFailsControls(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	n := 400
	x := gaussian(rng, n)
	y := make([]float64, n)
	for i := range y {
		y[i] = x[i] + 0.5*rng.NormFloat64()
	}
	f := frameOf(t, []string{"x", "y"}, x, y)
	p, err := Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: 1}.resolve(f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := prepare(f, p)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{plan: p, data: d}
	law := func(expr string, k float64) *lawModel {
		return &lawModel{expression: expr, complexity: 3, used: []int{0}, predict: func(X [][]float64) []float64 {
			out := make([]float64, len(X[0]))
			for i, v := range X[0] {
				out[i] = k * v
			}
			return out
		}}
	}
	for _, c := range []struct {
		law  *lawModel
		pass bool
	}{{law("x", 1), true}, {law("-x", -1), false}, {law("10*x", 10), false}} {
		ev := r.evaluateLaw(c.law, y, r.data.predictions(c.law), refitEvidence{cv: math.NaN(), complete: true}, 1)
		if len(ev.controls) == 0 {
			t.Fatalf("%s: no controls ran", c.law.expression)
		}
		if got := controls.AllPassed(ev.controls); got != c.pass {
			t.Errorf("%s (held-out R² %.3f): controls passed = %v, want %v (%+v)", c.law.expression, ev.heldOut, got, c.pass, ev.controls)
		}
	}
}
