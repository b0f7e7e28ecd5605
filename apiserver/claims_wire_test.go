package apiserver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/humatest"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
)

// A single claim and the hand-written claim page are byte for byte what huma's JSON format writes for the
// typed page, for every kind of field (HTML characters, unicode, optional fields, stored
// evidence with and without negative_controls_passed, an empty page, a cursor).
func TestClaimPageMatchesTypedEncoding(t *testing.T) {
	promoted := metav1.NewTime(time.Date(2026, 11, 2, 3, 4, 5, 0, time.UTC))
	law := &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{Name: "clm-aaaaaaaaaaaaaaaaaaaaaaaaaa", CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))},
		Spec: discov1.ClaimSpec{Type: discov1.ClaimLaw, Tier: discov1.TierValidate, Summary: `F = m*a <b> & "quoted" ∂`,
			Score: 0.8125, Expression: "m*a", Variables: []string{"m", "a"}, ProjectID: "prj_x", RunID: "run_y", CampaignID: "cmp_z",
			Scope:    discov1.ClaimScope{Variables: []string{"m", "a"}, Domain: "mechanics", ConstraintsSatisfied: []string{"max_depth:6"}},
			Evidence: &apiextv1.JSON{Raw: []byte(`{"r_squared": 0.99, "negative_controls_passed": true}`)}},
		Status: discov1.ClaimStatus{PreviousTier: discov1.TierExplore, PromotedAt: &promoted, PromotedBy: "usr_<x>"},
	}
	causal := &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{Name: "clm-bbbbbbbbbbbbbbbbbbbbbbbbbb"},
		Spec: discov1.ClaimSpec{Type: discov1.ClaimCausal, Summary: "pkc -> jnk", Cause: "pkc", Effect: "jnk",
			Direction: "forward", TemporalScope: "lag:1", InterventionMarkers: []string{"u0126"}, NegativeControlsPassed: true,
			Evidence: &apiextv1.JSON{Raw: []byte(`{"causal_confidence":0.7}`)}},
	}
	for _, c := range []*discov1.Claim{law, causal} {
		var want bytes.Buffer
		if err := huma.DefaultJSONFormat.Marshal(&want, claimOf(c)); err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		jsonOutput(claimWire(c)).Body(humatest.NewContext(&huma.Operation{}, httptest.NewRequest(http.MethodGet, "/", nil), rec))
		if got := rec.Body.String(); got != want.String() || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("claim differs from the typed encoding:\n got %s\nwant %s", got, want.String())
		}
	}
	for _, page := range []pagination.Page[*discov1.Claim]{
		{Items: []*discov1.Claim{law, causal}, HasMore: true, NextCursor: "abc_-DEF.123", Total: 7},
		{Items: []*discov1.Claim{}, Total: 0},
	} {
		var want bytes.Buffer
		if err := huma.DefaultJSONFormat.Marshal(&want, pageOutput(page, claimOf).Body); err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		claimPageOutput(page, claimWire).Body(humatest.NewContext(&huma.Operation{}, httptest.NewRequest(http.MethodGet, "/", nil), rec))
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
		}
		if got := rec.Body.String(); got != want.String() {
			t.Fatalf("page differs from the typed encoding:\n got %s\nwant %s", got, want.String())
		}
	}
}

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
