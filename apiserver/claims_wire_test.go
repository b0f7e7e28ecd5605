package apiserver

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/apiserver/claims"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/controls"
)

// listClaims documents the same 200 schema a typed listPage[Claim] output would.
func TestListClaimsDocumentsItsPageSchema(t *testing.T) {
	doc := call(t, "GET", "/v1/openapi.json", "", nil).expect(t, 200).JSON
	ok := doc["paths"].(map[string]any)["/projects/{project_id}/claims"].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
	ref, _ := ok["content"].(map[string]any)["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
	name := ref[len("#/components/schemas/"):]
	schema, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	items, _ := props["data"].(map[string]any)["items"].(map[string]any)
	if items["$ref"] != "#/components/schemas/Claim" || props["next_cursor"] == nil || props["total_count"] == nil {
		t.Fatalf("listClaims 200 schema %s = %v", ref, schema)
	}
	if ok["headers"].(map[string]any)["X-RateLimit-Limit"] == nil {
		t.Fatal("listClaims 200 lacks the rate-limit headers")
	}
}

// The OpenAPI document types evidence per claim type, and what the engine writes for each
// type validates against it while mixed or mistyped evidence does not.
func TestEvidenceSchemaIsTypedPerClaimType(t *testing.T) {
	reg := env.server.api.OpenAPI().Components.Schemas
	schema := reg.Schema(reflect.TypeFor[claims.Evidence](), true, "")
	if len(schema.AnyOf) != 3 {
		b, _ := json.Marshal(schema)
		t.Fatalf("evidence schema %s, want anyOf the three claim types' evidence", b)
	}
	for i, name := range []string{"LawEvidence", "CausalEvidence", "ConservationEvidence"} {
		if schema.AnyOf[i].Ref != "#/components/schemas/"+name {
			t.Fatalf("evidence anyOf[%d] = %q, want %s", i, schema.AnyOf[i].Ref, name)
		}
	}
	f := func(v float64) *float64 { return &v }
	controlsRun := map[string]controls.Result{"shuffled_target": {Passed: true, PValue: 0.01}}
	cases := []struct {
		name  string
		value any
		valid bool
	}{
		{"law", engine.Evidence{RSquared: f(0.99), HeldOutRSquared: f(-0.2), CrossValidationScore: f(0.97), Complexity: 5,
			BootstrapStability: 0.9, NegativeControlsPassed: true, NegativeControls: controlsRun}, true},
		{"causal, lagged", engine.Evidence{CausalConfidence: f(0.8), GrangerScore: f(12.5), InterventionEffectSize: f(0.4),
			PValue: f(0.001), OrientedBy: "lingam", BootstrapStability: 0.7, NegativeControls: controlsRun}, true},
		{"conservation, no controls run", engine.Evidence{RelativeVariation: f(0.001), Trajectories: 12,
			NegativeControls: map[string]controls.Result{}}, true},
		{"older evidence", json.RawMessage(`{"causal_confidence":0.7,"negative_controls_passed":false}`), true},
		{"law and causal measures mixed", json.RawMessage(`{"r_squared":0.9,"causal_confidence":0.7,"negative_controls_passed":true}`), false},
		{"r_squared not a number", json.RawMessage(`{"r_squared":"0.9","negative_controls_passed":true}`), false},
		{"no negative_controls_passed", json.RawMessage(`{"r_squared":0.9}`), false},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.value)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		res := &huma.ValidateResult{}
		huma.Validate(reg, schema, huma.NewPathBuffer([]byte{}, 0), huma.ModeReadFromServer, v, res)
		if valid := len(res.Errors) == 0; valid != c.valid {
			t.Errorf("%s: %s valid = %v, want %v (%v)", c.name, b, valid, c.valid, res.Errors)
		}
	}
}

// A claim's evidence property is described as what its schema is, anyOf the three claim
// types' evidence: a field doc would replace Evidence.Schema's description in the document.
func TestClaimEvidenceDescriptionNamesItsTypedSchemas(t *testing.T) {
	doc := call(t, "GET", "/v1/openapi.json", "", nil).expect(t, 200).JSON
	claim := doc["components"].(map[string]any)["schemas"].(map[string]any)["Claim"].(map[string]any)
	evidence := claim["properties"].(map[string]any)["evidence"].(map[string]any)
	desc, _ := evidence["description"].(string)
	anyOf, _ := evidence["anyOf"].([]any)
	if len(anyOf) != 3 {
		t.Fatalf("Claim.evidence = %v, want anyOf the three claim types' evidence", evidence)
	}
	for _, s := range anyOf {
		ref, _ := s.(map[string]any)["$ref"].(string)
		name := ref[len("#/components/schemas/"):]
		if !strings.Contains(desc, name) {
			t.Errorf("Claim.evidence description %q does not name %s, one of its anyOf schemas", desc, name)
		}
	}
}
