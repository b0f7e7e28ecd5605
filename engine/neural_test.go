package engine

import (
	"context"
	"math"
	"math/rand"
	"strings"
	"testing"
)

// y = q·(E + 3c·sin c) is a product, not a sum. Its q·E interaction is
// small beside q·c·sin c, so the local mixed partials alone called it
// f(q, c) + g(E); the rebuilt surrogate refuses that split and finds the
// product.
func TestDiscoverNeuralRefusesASplitThatDoesNotHold(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	n := 600
	q, e, c := uniform(rng, n, 1, 5), uniform(rng, n, 1, 5), uniform(rng, n, 0.5, 3)
	y := make([]float64, n)
	for i := range y {
		y[i] = q[i] * (e[i] + 3*c[i]*math.Sin(c[i]))
	}
	f := frameOf(t, []string{"q", "E", "c", "y"}, q, e, c, y)
	spec := Spec{Mode: ModeNeural, Targets: []string{"y"}, Seed: 3, Parameters: Parameters{Epochs: 300}}
	res, err := Discover(context.Background(), f, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Claims[res.Summary.BestClaimIndex].Expression; got != "y = f(q) * g(E, c)" {
		t.Fatalf("structure %q, want y = f(q) * g(E, c)", got)
	}
}

func TestDiscoverNeuralReportsSeparableForm(t *testing.T) {
	a, b, c, y := separableSample(rand.New(rand.NewSource(2)), 400, 0)
	f := frameOf(t, []string{"a", "b", "c", "y"}, a, b, c, y)
	rec := &recorder{}
	spec := Spec{Mode: ModeNeural, Targets: []string{"y"}, Seed: 3, Parameters: Parameters{Epochs: 1000, NeuralBackbone: "mlp-2x32"}}
	res, err := Discover(context.Background(), f, spec, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ModeNeural)
	best := res.Claims[res.Summary.BestClaimIndex]
	t.Logf("%s score %.3f r2 %.3f held-out %.3f controls %+v", best.Expression, best.Score,
		*best.Evidence.RSquared, *best.Evidence.HeldOutRSquared, best.Evidence.NegativeControls)
	if best.Expression != "y = f(a, b) + g(c)" {
		t.Fatalf("structure %q, want y = f(a, b) + g(c)", best.Expression)
	}
	if *best.Evidence.RSquared < 0.9 || !best.Evidence.NegativeControlsPassed {
		t.Fatalf("evidence %+v", best.Evidence)
	}
	var model bool
	for _, a := range res.Artifacts {
		model = model || (a.Kind == KindModel && strings.HasPrefix(a.Name, "surrogate-y"))
	}
	if !model {
		t.Fatal("the surrogate is not saved as a model artifact")
	}
}
