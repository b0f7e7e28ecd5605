package apiserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/internal/ids"
)

// TestAuthMatrixEveryOperation walks every operation of the OpenAPI document: without a
// credential it answers 401, with a key lacking exactly its scope 403 naming that scope,
// and with another tenant's key 404 for anything under a project.
func TestAuthMatrixEveryOperation(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	cid := mustCampaign(t, env.adminA, pid, nil, nil)
	params := map[string]string{
		"project_id": pid, "campaign_id": cid, "run_id": ids.New(ids.Run), "dataset_id": ids.New(ids.Dataset),
		"claim_id": ids.New(ids.Claim), "entry_id": ids.New(ids.Ledger), "artifact_id": ids.New(ids.Artifact),
		"webhook_id": ids.New(ids.Webhook), "key_id": ids.New(ids.APIKey), "delivery_id": ids.New(ids.Delivery),
		"client_id": ids.New(ids.Client), "user_id": ids.New(ids.User),
	}
	doc := call(t, "GET", "/v1/openapi.json", "", nil).expect(t, 200)
	checked := 0
	for path, item := range doc.JSON["paths"].(map[string]any) {
		for method, raw := range item.(map[string]any) {
			op, ok := raw.(map[string]any)
			if !ok {
				continue
			}
			sec, _ := op["security"].([]any)
			if len(sec) == 0 {
				continue // public
			}
			scope := sec[0].(map[string]any)["bearer"].([]any)[0].(string)
			url := "/v1" + path
			for k, v := range params {
				url = strings.ReplaceAll(url, "{"+k+"}", v)
			}
			if op["operationId"] == "getLedgerConsistency" {
				url += "?old_size=1"
			}
			if strings.Contains(url, "{") {
				t.Fatalf("unfilled parameter in %s", url)
			}
			m := strings.ToUpper(method)
			var body any
			if m == "POST" || m == "PATCH" {
				body = map[string]any{}
			}
			if b, ok := validBodies[op["operationId"].(string)]; ok {
				body = b
			}
			name := m + " " + path
			checkEnvelope(t, call(t, m, url, "", body), 401, "unauthenticated")

			without := newKey(t, env.tenantA, slices.DeleteFunc(slices.Clone(auth.All), func(s string) bool { return s == scope }))
			r := call(t, m, url, without, body)
			checkEnvelope(t, r, 403, "insufficient_scope")
			if r.errDetails()["required_scope"] != scope {
				t.Fatalf("%s: required_scope %v, want %s", name, r.errDetails()["required_scope"], scope)
			}
			if strings.Contains(path, "{project_id}") {
				if r := call(t, m, url, env.adminB, body); r.Status != 404 {
					t.Fatalf("%s with another tenant's key: %d %s", name, r.Status, r.Raw)
				}
			}
			checked++
		}
	}
	if checked < 40 {
		t.Fatalf("only %d operations checked", checked)
	}
}

// validBodies pass schema validation, so the cross-tenant check reaches the lookup.
var validBodies = map[string]any{
	"promoteClaim":   map[string]any{"target_tier": "validate"},
	"demoteClaim":    map[string]any{"target_tier": "explore"},
	"createCampaign": map[string]any{"name": "x", "budget": map[string]any{"compute_units": 1, "max_runs": 1}},
	"submitRun":      map[string]any{"dataset_id": "ds_aaaaaaaaaaaaaaaaaaaaaaaaaa"},
}
