package apiserver

import (
	"fmt"
	"testing"

	"github.com/discolab/disco/apiserver/auth"
)

// PATCH /projects/{pid}/campaigns/{cid} (beyond the contract, README "API notes"): a merge
// patch over name, description, status, budget and governance, as updateProject.

func TestUpdateCampaignMergesThePatch(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	cid := mustCampaign(t, env.adminA, pid, map[string]any{"compute_units": 1000, "max_runs": 10, "expires_at": "2099-01-01T00:00:00Z"}, nil)
	path := "/v1/projects/" + pid + "/campaigns/" + cid

	r := call(t, "PATCH", path, env.adminA, map[string]any{"name": "renamed", "description": "why",
		"budget": map[string]any{"compute_units": 5000}, "created_by": "ignored"}).expect(t, 200)
	b := r.JSON["budget"].(map[string]any)
	if r.str("name") != "renamed" || r.str("description") != "why" || r.str("created_by") == "ignored" ||
		b["compute_units"] != 5000.0 || b["max_runs"] != 10.0 || b["expires_at"] != "2099-01-01T00:00:00Z" || r.Header.Get("ETag") == "" {
		t.Fatalf("patched: %s", r.Raw)
	}
	// null removes the expiry and resets the description; name and limits cannot be null.
	r = call(t, "PATCH", path, env.adminA, map[string]any{"description": nil, "budget": map[string]any{"expires_at": nil}}).expect(t, 200)
	if r.str("description") != "" || r.JSON["budget"].(map[string]any)["expires_at"] != nil {
		t.Fatalf("nulls: %s", r.Raw)
	}
	if f := invalidField(t, call(t, "PATCH", path, env.adminA, map[string]any{"name": nil})); f != "body.name" {
		t.Fatalf("null name: field %q", f)
	}
	for _, body := range []map[string]any{
		{"budget": map[string]any{"compute_units": -1}},
		{"budget": map[string]any{"max_runs": 1000001}},
		{"status": "exhausted"},
		{"governance": map[string]any{"promotion_ceiling": "top"}},
		{"name": "evil\u202E"},
	} {
		checkEnvelope(t, call(t, "PATCH", path, env.adminA, body), 400, "validation_error")
	}
	// A budget below what is used is allowed: the campaign is exhausted.
	r = call(t, "PATCH", path, env.adminA, map[string]any{"budget": map[string]any{"max_runs": 0}}).expect(t, 200)
	if r.JSON["budget"].(map[string]any)["max_runs"] != 0.0 {
		t.Fatalf("lowered: %s", r.Raw)
	}

	// Other tenants' and unknown campaigns answer 404.
	call(t, "PATCH", path, env.adminB, map[string]any{"name": "x"}).expect(t, 404, "not_found")
	call(t, "PATCH", "/v1/projects/"+pid+"/campaigns/camp_aaaaaaaaaaaaaaaaaaaaaaaaaa", env.adminA, map[string]any{"name": "x"}).expect(t, 404, "not_found")
	other := mustProject(t, env.adminA, nil)
	call(t, "PATCH", "/v1/projects/"+other+"/campaigns/"+cid, env.adminA, map[string]any{"name": "x"}).expect(t, 404, "not_found")
}

func TestUpdateCampaignArchivesAndTakesNoRuns(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	cid := mustCampaign(t, env.adminA, pid, nil, nil)
	path := "/v1/projects/" + pid + "/campaigns/" + cid
	for range 2 { // archiving an archived campaign changes nothing
		if r := call(t, "PATCH", path, env.adminA, map[string]any{"status": "archived"}).expect(t, 200); r.str("status") != "archived" {
			t.Fatalf("archived: %s", r.Raw)
		}
	}
	list := call(t, "GET", "/v1/projects/"+pid+"/campaigns?status=archived", env.adminA, nil).expect(t, 200)
	if data := list.JSON["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != cid {
		t.Fatalf("archived campaigns: %s", list.Raw)
	}
	r := call(t, "POST", path+"/runs", env.adminA, map[string]any{"dataset_id": "ds_aaaaaaaaaaaaaaaaaaaaaaaaaa"})
	checkEnvelope(t, r, 409, "conflict")
	if r.errDetails()["status"] != "archived" {
		t.Fatalf("details %v", r.errDetails())
	}
	if r := call(t, "PATCH", path, env.adminA, map[string]any{"status": "active"}).expect(t, 200); r.str("status") != "active" {
		t.Fatalf("reactivated: %s", r.Raw)
	}
	// Past the archive check: the dataset does not exist.
	call(t, "POST", path+"/runs", env.adminA, map[string]any{"dataset_id": "ds_aaaaaaaaaaaaaaaaaaaaaaaaaa"}).expect(t, 404, "not_found")
}

func TestUpdateCampaignIfMatch(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	cid := mustCampaign(t, env.adminA, pid, nil, nil)
	path := "/v1/projects/" + pid + "/campaigns/" + cid
	tag := call(t, "GET", path, env.adminA, nil).expect(t, 200).Header.Get("ETag")
	next := call(t, "PATCH", path, env.adminA, map[string]any{"description": "v2"}, "If-Match", tag).expect(t, 200).Header.Get("ETag")
	if next == tag {
		t.Fatalf("ETag %q did not change", next)
	}
	r := call(t, "PATCH", path, env.adminA, map[string]any{"description": "stale"}, "If-Match", tag)
	checkEnvelope(t, r, 412, "precondition_failed")
	if got := call(t, "GET", path, env.adminA, nil).expect(t, 200); got.str("description") != "v2" {
		t.Fatalf("a refused patch changed the campaign: %s", got.Raw)
	}
	call(t, "PATCH", path, env.adminA, map[string]any{"description": "v3"}, "If-Match", "*").expect(t, 200)
}

// Governance changes need governance:write and are ledgered as policy_changed, as a
// project's are; the rest of a campaign needs projects:write only.
func TestUpdateCampaignGovernanceNeedsItsScopeAndIsLedgered(t *testing.T) {
	pid := mustProject(t, env.adminA, map[string]any{"name": "gov", "settings": map[string]any{
		"governance": map[string]any{"promotion_ceiling": "publish"}}})
	cid := mustCampaign(t, env.adminA, pid, nil, nil)
	path := "/v1/projects/" + pid + "/campaigns/" + cid
	before := len(policyEntries(t, pid))

	writer := newKey(t, env.tenantA, []string{auth.ProjectsRead, auth.ProjectsWrite})
	reader := newKey(t, env.tenantA, []string{auth.ProjectsRead})
	checkEnvelope(t, call(t, "PATCH", path, reader, map[string]any{"name": "x"}), 403, "insufficient_scope")
	for _, g := range []map[string]any{
		{"promotion_ceiling": "validate"}, {"require_negative_controls": true}, {"auto_promote_to": "explore"},
	} {
		r := call(t, "PATCH", path, writer, map[string]any{"description": "x", "governance": g})
		checkEnvelope(t, r, 403, "insufficient_scope")
		if r.errDetails()["required_scope"] != auth.GovernanceWrite {
			t.Fatalf("required_scope: %s", r.Raw)
		}
	}
	if got := call(t, "GET", path, writer, nil).expect(t, 200); got.str("description") != "" {
		t.Fatalf("a refused patch changed the campaign: %s", got.Raw)
	}
	// Restating the project's rules the campaign follows, or budget changes, need nothing more.
	call(t, "PATCH", path, writer, map[string]any{"budget": map[string]any{"max_runs": 7}, "governance": map[string]any{}}).expect(t, 200)
	if n := len(policyEntries(t, pid)); n != before {
		t.Fatalf("%d policy_changed entries after a budget change, want %d", n, before)
	}

	governor := newKey(t, env.tenantA, []string{auth.ProjectsRead, auth.ProjectsWrite, auth.GovernanceWrite})
	r := call(t, "PATCH", path, governor, map[string]any{"governance": map[string]any{
		"promotion_ceiling": "validate", "auto_promote_to": "explore"}}).expect(t, 200)
	if g := r.JSON["governance"].(map[string]any); g["promotion_ceiling"] != "validate" || g["auto_promote_to"] != "explore" {
		t.Fatalf("governance: %s", r.Raw)
	}
	checkEnvelope(t, call(t, "PATCH", path, governor, map[string]any{"governance": map[string]any{"auto_promote_to": "publish"}}),
		400, "validation_error")
	entries := policyEntries(t, pid)
	if len(entries) != before+1 {
		t.Fatalf("%d policy_changed entries, want %d", len(entries), before+1)
	}
	d := entries[len(entries)-1]["details"].(map[string]any)
	if d["resource"] != "campaign" || d["campaign_id"] != cid || d["before"].(map[string]any)["promotion_ceiling"] != nil ||
		d["after"].(map[string]any)["promotion_ceiling"] != "validate" || fmt.Sprint(d["changed"]) != "[auto_promote_to promotion_ceiling]" {
		t.Fatalf("entry: %v", d)
	}
	// null gives a rule back to the project, and is ledgered too.
	r = call(t, "PATCH", path, governor, map[string]any{"governance": map[string]any{"promotion_ceiling": nil, "auto_promote_to": nil}}).expect(t, 200)
	if g := r.JSON["governance"].(map[string]any); g["promotion_ceiling"] != "publish" || g["auto_promote_to"] != nil {
		t.Fatalf("reset: %s", r.Raw)
	}
	if n := len(policyEntries(t, pid)); n != before+2 {
		t.Fatalf("%d policy_changed entries after the reset, want %d", n, before+2)
	}
	call(t, "GET", "/v1/projects/"+pid+"/ledger/verify", env.adminA, nil).expect(t, 200)
}
