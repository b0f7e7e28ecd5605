package engine

import (
	"context"
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestDiscoverNeuralReportsSeparableForm(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	n := 400
	a, b, c := uniform(rng, n, -1, 1), uniform(rng, n, -1, 1), uniform(rng, n, -1, 1)
	y := make([]float64, n)
	for i := range y {
		y[i] = a[i]*b[i] + math.Sin(2*c[i])
	}
	f := frameOf(t, []string{"a", "b", "c", "y"}, a, b, c, y)
	rec := &recorder{}
	spec := Spec{Mode: ModeNeural, Targets: []string{"y"}, Seed: 3, Parameters: Parameters{Epochs: 300, NeuralBackbone: "mlp-2x32"}}
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
