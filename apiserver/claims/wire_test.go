package claims

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/humatest"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/internal/jsonshape"
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
		if err := huma.DefaultJSONFormat.Marshal(&want, Of(c)); err != nil {
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
		if err := huma.DefaultJSONFormat.Marshal(&want, resource.PageOutput(page, Of).Body); err != nil {
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

// evidenceTypes are the per-claim-type evidence schemas, by claim type.
var evidenceTypes = map[string]reflect.Type{
	string(engine.ClaimLaw):          reflect.TypeFor[LawEvidence](),
	string(engine.ClaimCausal):       reflect.TypeFor[CausalEvidence](),
	string(engine.ClaimConservation): reflect.TypeFor[ConservationEvidence](),
}

// The wire evidence schemas declare engine.Evidence's fields, with the same JSON kinds, and
// each type-specific field belongs to one claim type only (issue 16: the engine is the
// source of the evidence field set).
func TestEvidenceFieldsMatchEngine(t *testing.T) {
	common := jsonshape.Paths(reflect.TypeFor[EvidenceCommon](), nil)
	wire := map[string]string{}
	owner := map[string]string{}
	for claimType, typ := range evidenceTypes {
		for p, kind := range jsonshape.Paths(typ, nil) {
			wire[p] = kind
			if _, ok := common[p]; ok {
				continue
			}
			if other, ok := owner[p]; ok {
				t.Errorf("evidence field %s is declared by both %s and %s evidence; shared fields go in EvidenceCommon", p, other, claimType)
			}
			owner[p] = claimType
		}
	}
	if d := jsonshape.Diff(jsonshape.Paths(reflect.TypeFor[engine.Evidence](), nil), wire); len(d) > 0 {
		t.Fatalf("engine.Evidence (-) and the wire evidence schemas (+) differ: %v", d)
	}
}

// The claim's fields agree between the engine's claim, the Claim CRD's spec and the wire
// Claim, but for the fields only one of them carries, listed here with the reason.
func TestClaimFieldsMatchEngineAndCRD(t *testing.T) {
	engineClaim := jsonshape.Paths(reflect.TypeFor[engine.Claim](), nil)
	crd := jsonshape.Paths(reflect.TypeFor[discov1.ClaimSpec](), jsonshape.Snake)
	wire := jsonshape.Paths(reflect.TypeFor[Claim](), nil)
	// Set by the facade and the controllers, from the object's metadata and status.
	facade := []string{"id", "tier", "ledger_entry_id", "run_id", "campaign_id", "project_id", "created_at",
		"previous_tier", "promoted_at", "promoted_by"}
	// The engine's evidence is stored as given (compared in TestEvidenceFieldsMatchEngine).
	if d := jsonshape.Diff(engineClaim, wire, append(facade, "evidence")...); len(d) > 0 {
		t.Errorf("engine.Claim (-) and the wire Claim (+) differ: %v", d)
	}
	// The CRD keeps evidence as the engine's JSON, and negative_controls_passed copied out
	// of it for governance checks and printing.
	if crd["negative_controls_passed"] != jsonshape.Paths(reflect.TypeFor[engine.Evidence](), nil)["negative_controls_passed"] {
		t.Errorf("ClaimSpec.NegativeControlsPassed is %q, engine evidence's negative_controls_passed is not", crd["negative_controls_passed"])
	}
	metadata := []string{"id", "created_at", "previous_tier", "promoted_at", "promoted_by"}
	if d := jsonshape.Diff(crd, wire, append(metadata, "evidence", "negative_controls_passed")...); len(d) > 0 {
		t.Errorf("ClaimSpec (-, names in snake case) and the wire Claim (+) differ: %v", d)
	}
}
