package engine

import (
	"context"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/discolab/disco/engine/artifacts"
	"github.com/discolab/disco/engine/symbolic"
)

func TestDiscoverSymbolicRecoversLaw(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	n := 200
	x0, x1, x2 := uniform(rng, n, -2, 2), uniform(rng, n, -2, 2), uniform(rng, n, -2, 2)
	y := make([]float64, n)
	for i := range y {
		y[i] = 3*x0[i] + x1[i]*x1[i]
	}
	f := frameOf(t, []string{"x0", "x1", "x2", "y"}, x0, x1, x2, y)
	rec := &recorder{}
	res, err := Discover(context.Background(), f, Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: 1}, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ModeSymbolic)
	if len(res.Claims) == 0 {
		t.Fatal("no claims")
	}
	best := res.Claims[res.Summary.BestClaimIndex]
	t.Logf("best: %s score %.3f evidence %+v", best.Expression, best.Score, best.Evidence)
	if best.Type != ClaimLaw || best.Target != "y" {
		t.Fatalf("claim type %q target %q", best.Type, best.Target)
	}
	if *best.Evidence.RSquared < 0.999 || *best.Evidence.HeldOutRSquared < 0.999 {
		t.Fatalf("law does not fit: %+v", best.Evidence)
	}
	if !strings.Contains(best.Expression, "x0") || !strings.Contains(best.Expression, "x1") || strings.Contains(best.Expression, "x2") {
		t.Fatalf("expression %q should use x0 and x1 only", best.Expression)
	}
	if !best.Evidence.NegativeControlsPassed || len(best.Evidence.NegativeControls) != 2 {
		t.Fatalf("controls: %+v", best.Evidence.NegativeControls)
	}
	for name, r := range best.Evidence.NegativeControls {
		if r.PValue != 0.01 {
			t.Errorf("%s p=%v, want 0.01", name, r.PValue)
		}
	}
	if best.Score < 0.8 || best.Score > 1 {
		t.Fatalf("score %v", best.Score)
	}
	if best.Scope.Domain == "" || !strings.Contains(best.Scope.Domain, "x0∈[") {
		t.Fatalf("domain %q", best.Scope.Domain)
	}
	if !res.Summary.NegativeControlsPassed || res.Summary.Rows != n {
		t.Fatalf("summary %+v", res.Summary)
	}
	// The law is exact, so the search says it stopped by the exact rule.
	if s := res.Summary.Searches; len(s) != 1 || s[0].Target != "y" || s[0].Stop != symbolic.StopExact || s[0].Generations <= 0 {
		t.Fatalf("summary.searches %+v, want one exact stop for y", s)
	}
	kinds := map[string]bool{}
	for _, a := range res.Artifacts {
		kinds[a.Name] = true
		if a.Size != int64(len(a.Content)) || len(a.SHA256) != 64 {
			t.Fatalf("artifact %s: size %d sha %q", a.Name, a.Size, a.SHA256)
		}
	}
	if !kinds["predicted-vs-observed-y.svg"] || !kinds["pareto-front-y.svg"] {
		t.Fatalf("artifacts %v", kinds)
	}
	// Every law, the alternatives too, has its own fit plot, found by its claim's target
	// and expression.
	if len(res.Summary.Alternatives) == 0 {
		t.Fatal("no alternative law: the per-law plots are not exercised")
	}
	for _, c := range res.Claims {
		if c.Type == ClaimLaw && !kinds[artifacts.LawPlotName(c.Target, c.Expression)] {
			t.Fatalf("no plot %s for law %s = %s among %v", artifacts.LawPlotName(c.Target, c.Expression), c.Target, c.Expression, kinds)
		}
	}
	body, err := json.Marshal(best)
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"r_squared"`, `"cross_validation_score"`, `"negative_controls_passed"`, `"complexity"`, `"expression"`, `"constraints_satisfied"`} {
		if field == `"constraints_satisfied"` {
			continue // no constraints were given
		}
		if !strings.Contains(string(body), field) {
			t.Errorf("claim JSON lacks %s: %s", field, body)
		}
	}
	if strings.Contains(string(body), `"cause"`) || strings.Contains(string(body), "intervention_markers") {
		t.Errorf("law claim carries causal fields: %s", body)
	}
}

// In symbolic mode the run's epochs are the main search's generations; refits stay
// bounded. Neuro-symbolic mode keeps epochs for its surrogate, and its main
// search gets symbolic mode's default budget.
func TestSymbolicOptionsHonourEpochs(t *testing.T) {
	gens := func(mode Mode, epochs int, effort float64) int {
		r := &runner{plan: &plan{spec: Spec{Mode: mode, Parameters: Parameters{Epochs: epochs}}, constraints: &Constraints{}}}
		return (&symbolicMode{r}).options(context.Background(), effort, 1).Generations
	}
	for _, c := range []struct {
		mode   Mode
		epochs int
		effort float64
		want   int
	}{
		{ModeSymbolic, 0, effortFull, mainSearchGenerations},
		{ModeSymbolic, 0, effortRefit, 18},
		{ModeSymbolic, 500, effortFull, 500},
		{ModeSymbolic, 10, effortFull, 10},
		{ModeSymbolic, 500, effortRefit, 18},
		{ModeSymbolic, 10, effortRefit, 5},
		{ModeNeuroSymbolic, 500, effortFull, mainSearchGenerations},
		{ModeNeuroSymbolic, 0, effortFull, mainSearchGenerations},
		{ModeNeuroSymbolic, 500, effortRefit, 18},
	} {
		if got := gens(c.mode, c.epochs, c.effort); got != c.want {
			t.Errorf("%s epochs %d effort %v: %d generations, want %d", c.mode, c.epochs, c.effort, got, c.want)
		}
	}
}
