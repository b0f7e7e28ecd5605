package claims

import (
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/data"
)

// What the engine writes as a claim's evidence validates against the evidence schema of the
// claim's own type (issue 16): the per-type split of the wire schema follows what each mode
// sets, not only the field set TestEvidenceFieldsMatchEngine compares.
func TestEngineEvidenceValidatesAgainstItsTypesSchema(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	column := func(name string, v []float64) data.Column {
		return data.Column{Name: name, DType: data.Float64, Values: v}
	}

	// A law: F = 3 q / r^2.
	n := 300
	q, r, f := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range f {
		q[i], r[i] = 1+4*rng.Float64(), 1+4*rng.Float64()
		f[i] = 3 * q[i] / (r[i] * r[i])
	}
	law := &data.Frame{Rows: n, Columns: []data.Column{column("q", q), column("r", r), column("F", f)}}

	// Causal edges into a collider, c = a + b + noise.
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range c {
		a[i], b[i] = 2*rng.Float64()-1, 2*rng.Float64()-1
		c[i] = a[i] + b[i] + 0.3*(rng.Float64()-0.5)
	}
	causal := &data.Frame{Rows: n, Columns: []data.Column{column("a", a), column("b", b), column("c", c)}}

	// A conserved quantity, x^2 + v^2, along five oscillator trajectories.
	var traj, tm, x, v []float64
	for k := range 5 {
		amp, phase := 0.5+rng.Float64(), rng.Float64()*math.Pi
		for i := range 40 {
			s := float64(i) * 0.2
			traj, tm = append(traj, float64(k)), append(tm, s)
			x, v = append(x, amp*math.Cos(s+phase)), append(v, -amp*math.Sin(s+phase))
		}
	}
	conservation := &data.Frame{Rows: len(x), Columns: []data.Column{column("traj", traj), column("t", tm), column("x", x), column("v", v)}}

	runs := []struct {
		frame *data.Frame
		spec  engine.Spec
	}{
		{law, engine.Spec{Mode: engine.ModeSymbolic, Targets: []string{"F"}, Seed: 1, Parameters: engine.Parameters{Epochs: 10}}},
		{causal, engine.Spec{Mode: engine.ModeCausal, Seed: 5}},
		{conservation, engine.Spec{Mode: engine.ModeSymbolic, Targets: []string{"v"}, Seed: 1,
			Parameters: engine.Parameters{Epochs: 10, Constraints: []string{"trajectory:traj", "exclude:t"}}}},
	}
	reg := huma.NewMapRegistry("#/components/schemas/", huma.DefaultSchemaNamer)
	seen := map[string]bool{}
	for _, run := range runs {
		res, err := engine.Discover(context.Background(), run.frame, run.spec, nil)
		if err != nil {
			t.Fatalf("%s: %v", run.spec.Mode, err)
		}
		for _, claim := range res.Claims {
			typ := string(claim.Type)
			schema := reg.Schema(evidenceTypes[typ], false, "")
			raw, err := json.Marshal(claim.Evidence)
			if err != nil {
				t.Fatal(err)
			}
			var value any
			if err := json.Unmarshal(raw, &value); err != nil {
				t.Fatal(err)
			}
			result := &huma.ValidateResult{}
			huma.Validate(reg, schema, huma.NewPathBuffer([]byte{}, 0), huma.ModeReadFromServer, value, result)
			if len(result.Errors) > 0 {
				t.Errorf("%s claim %q: evidence %s does not match its type's schema: %v", typ, claim.Summary, raw, result.Errors)
			}
			seen[typ] = true
		}
	}
	for typ := range evidenceTypes {
		if !seen[typ] {
			t.Errorf("no %s claim was discovered, so its evidence schema went unchecked", typ)
		}
	}
}
