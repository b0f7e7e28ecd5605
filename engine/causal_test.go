package engine

import (
	"context"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

// a -> c <- b with non-Gaussian noise: PC orients the collider.
// collider draws n rows of a, b ~ U(-1, 1) and c = a + b + U(-0.15, 0.15).
func collider(n int) (a, b, c []float64) {
	rng := rand.New(rand.NewSource(4))
	a, b = uniform(rng, n, -1, 1), uniform(rng, n, -1, 1)
	c = make([]float64, n)
	for i := range c {
		c[i] = a[i] + b[i] + 0.3*(rng.Float64()-0.5)
	}
	return a, b, c
}

func TestDiscoverCausalCollider(t *testing.T) {
	n := 600
	a, b, c := collider(n)
	flag := make([]float64, n) // an intervention indicator that no edge uses
	for i := range flag {
		if i%2 == 0 {
			flag[i] = 1
		}
	}
	f := frameOf(t, []string{"a", "b", "c", "flag"}, a, b, c, flag)
	rec := &recorder{}
	res, err := Discover(context.Background(), f, Spec{Mode: ModeCausal, Seed: 5,
		Parameters: Parameters{Constraints: []string{"include:a,b,c"}}}, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ModeCausal)
	found := map[string]Claim{}
	for _, c := range res.Claims {
		t.Logf("%s score %.3f", c.Summary, c.Score)
		found[c.Cause+"->"+c.Effect] = c
	}
	if len(res.Claims) != 2 {
		t.Fatalf("want exactly the two collider edges, got %d claims", len(res.Claims))
	}
	for _, key := range []string{"a->c", "b->c"} {
		c, ok := found[key]
		if !ok {
			t.Fatalf("missing %s in %v", key, found)
		}
		if c.Type != ClaimCausal || c.Direction != "forward" || c.TemporalScope != "contemporaneous" {
			t.Fatalf("%s: %+v", key, c)
		}
		if !c.Evidence.NegativeControlsPassed || len(c.Evidence.NegativeControls) != 3 {
			t.Fatalf("%s controls %+v", key, c.Evidence.NegativeControls)
		}
		if *c.Evidence.CausalConfidence <= 0 || *c.Evidence.EffectStrength <= 0 {
			t.Fatalf("%s evidence %+v", key, c.Evidence)
		}
		if len(c.InterventionMarkers) != 1 || c.InterventionMarkers[0] != "flag" {
			t.Fatalf("%s intervention markers %v", key, c.InterventionMarkers)
		}
		body, _ := json.Marshal(c)
		if !strings.Contains(string(body), `"intervention_markers":["flag"]`) || strings.Contains(string(body), `"r_squared"`) {
			t.Fatalf("causal JSON %s", body)
		}
	}
	names := map[string]bool{}
	for _, a := range res.Artifacts {
		names[a.Name] = true
	}
	if !names["causal-graph.dot"] || !names["causal-graph.svg"] {
		t.Fatalf("artifacts %v", names)
	}
}

func TestCausalClaimJSONHasEmptyMarkers(t *testing.T) {
	body, err := json.Marshal(Claim{Type: ClaimCausal, Cause: "a", Effect: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"intervention_markers":[]`) {
		t.Fatalf("want an empty array: %s", body)
	}
}
