package apiserver

import (
	"context"
	"fmt"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// makeClaim creates a claim as the run controller would.
func makeClaim(t *testing.T, pid, cid, rid string, typ discov1.ClaimType, score float64, controls bool) string {
	t.Helper()
	id := ids.New(ids.Claim)
	c := &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: nsA()},
		Spec: discov1.ClaimSpec{
			ProjectID: pid, CampaignID: cid, RunID: rid, Type: typ, Tier: discov1.TierExplore,
			Summary: "y = 2x", Score: score, Expression: "2*x", NegativeControlsPassed: controls,
			Scope:    discov1.ClaimScope{Variables: []string{"x", "y"}, Domain: "x in [0, 10]"},
			Evidence: &apiextensionsv1.JSON{Raw: []byte(fmt.Sprintf(`{"r_squared": 0.99, "negative_controls_passed": %v, "cross_validation_score": 0.97}`, controls))},
		},
	}
	if typ == discov1.ClaimCausal {
		c.Spec.Cause, c.Spec.Effect, c.Spec.Direction = "x", "y", "x->y"
	}
	if err := env.direct.Create(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	inFacadeCache(t, c)
	return id
}

func TestClaimsAndGovernance(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, map[string]any{"name": "gov", "settings": map[string]any{"governance": map[string]any{
		"promotion_ceiling": "publish", "truth_dial_threshold": 0.8, "require_negative_controls": true}}})
	cid := mustCampaign(t, key, pid, nil, map[string]any{"promotion_ceiling": "validate"})
	rid := ids.New(ids.Run)
	good := makeClaim(t, pid, cid, rid, discov1.ClaimLaw, 0.9, true)
	low := makeClaim(t, pid, cid, rid, discov1.ClaimLaw, 0.5, true)
	noControls := makeClaim(t, pid, cid, rid, discov1.ClaimCausal, 0.95, false)
	other := makeClaim(t, pid, cid, ids.New(ids.Run), discov1.ClaimCausal, 0.95, true)

	// The cache keeps claims without their managed fields (index.CacheOptions); the API
	// server has them.
	var cached, stored discov1.Claim
	name := client.ObjectKey{Namespace: nsA(), Name: ids.ToName(good)}
	if err := env.client.Get(context.Background(), name, &cached); err != nil {
		t.Fatal(err)
	}
	if err := env.direct.Get(context.Background(), name, &stored); err != nil {
		t.Fatal(err)
	}
	if len(cached.ManagedFields) != 0 || len(stored.ManagedFields) == 0 {
		t.Fatalf("managed fields: %d cached, %d stored", len(cached.ManagedFields), len(stored.ManagedFields))
	}

	c := call(t, "GET", "/v1/projects/"+pid+"/claims/"+good, key, nil).expect(t, 200)
	for _, k := range []string{"id", "type", "tier", "summary", "score", "scope", "evidence", "ledger_entry_id", "run_id", "created_at", "expression"} {
		if _, ok := c.JSON[k]; !ok {
			t.Errorf("claim lacks %s: %s", k, c.Raw)
		}
	}
	if c.JSON["evidence"].(map[string]any)["r_squared"] != 0.99 || c.str("tier") != "explore" {
		t.Fatalf("claim %s", c.Raw)
	}
	// A claim is found only under its own project, also in another project of the tenant.
	elsewhere := mustProject(t, key, map[string]any{"name": "gov-elsewhere"})
	call(t, "GET", "/v1/projects/"+elsewhere+"/claims/"+good, key, nil).expect(t, 404, "not_found")
	call(t, "GET", "/v1/projects/"+pid+"/claims/"+ids.New(ids.Claim), key, nil).expect(t, 404, "not_found")
	// Filters.
	l := call(t, "GET", "/v1/projects/"+pid+"/claims?run_id="+rid, key, nil).expect(t, 200)
	if l.JSON["total_count"] != 3.0 {
		t.Fatalf("run filter: %s", l.Raw)
	}
	l = call(t, "GET", "/v1/projects/"+pid+"/claims?type=causal", key, nil).expect(t, 200)
	if l.JSON["total_count"] != 2.0 {
		t.Fatalf("type filter: %s", l.Raw)
	}
	l = call(t, "GET", "/v1/projects/"+pid+"/claims?sort=score&order=asc&limit=1", key, nil).expect(t, 200)
	if l.JSON["data"].([]any)[0].(map[string]any)["id"] != low || l.JSON["has_more"] != true {
		t.Fatalf("sort by score: %s", l.Raw)
	}
	call(t, "GET", "/v1/projects/"+pid+"/claims?sort=bogus", key, nil).expect(t, 400, "validation_error")
	_ = other

	promote := func(id, tier string) *response {
		return call(t, "POST", "/v1/projects/"+pid+"/claims/"+id+"/promote", key, map[string]any{"target_tier": tier, "rationale": "replicated"})
	}
	// Campaign ceiling validate is lower than the project's publish: publish is refused.
	r := promote(good, "publish").expect(t, 403, "governance_policy_violation")
	d := r.errDetails()
	if d["claim_id"] != good || d["requested_tier"] != "publish" || d["policy_ceiling"] != "validate" || d["truth_dial_score"] != 0.9 || d["constraint"] != "promotion_ceiling_exceeded" {
		t.Fatalf("details %v", d)
	}
	promote(low, "validate").expect(t, 403, "truth_dial_threshold_not_met")
	if d := promote(noControls, "validate").expect(t, 403, "negative_controls_required").errDetails(); d["constraint"] != "negative_controls" {
		t.Fatalf("details %v", d)
	}
	ok := promote(good, "validate").expect(t, 200)
	gc := ok.JSON["governance_checks"].(map[string]any)
	if ok.str("tier") != "validate" || ok.str("previous_tier") != "explore" || ok.str("ledger_entry_id") == "" || ok.str("promoted_by") == "" ||
		ok.str("rationale") != "replicated" || gc["threshold_met"] != true || gc["negative_controls"] != "passed" || gc["policy_ceiling"] != "validate" || gc["within_ceiling"] != true {
		t.Fatalf("promotion %s", ok.Raw)
	}
	promote(good, "validate").expect(t, 409, "conflict")
	g := call(t, "GET", "/v1/projects/"+pid+"/claims/"+good, key, nil).expect(t, 200)
	if g.str("tier") != "validate" || g.str("previous_tier") != "explore" {
		t.Fatalf("after promotion %s", g.Raw)
	}
	// Demotion is ledgered too.
	dm := call(t, "POST", "/v1/projects/"+pid+"/claims/"+good+"/demote", key, map[string]any{"target_tier": "explore", "rationale": "retracted"}).expect(t, 200)
	if dm.str("tier") != "explore" || dm.str("ledger_entry_id") == "" {
		t.Fatalf("demotion %s", dm.Raw)
	}

	// Ledger: promotion, demotion and the three refusals.
	led := call(t, "GET", "/v1/projects/"+pid+"/ledger?limit=100", key, nil).expect(t, 200)
	types := map[string]int{}
	for _, it := range led.JSON["data"].([]any) {
		types[it.(map[string]any)["event_type"].(string)]++
	}
	if types["claim_promoted"] != 1 || types["claim_demoted"] != 1 || types["policy_evaluated"] != 3 {
		t.Fatalf("ledger types %v", types)
	}
	byClaim := call(t, "GET", "/v1/projects/"+pid+"/ledger?claim_id="+good+"&limit=2", key, nil).expect(t, 200)
	if byClaim.JSON["total_count"] != 3.0 || byClaim.JSON["has_more"] != true {
		t.Fatalf("claim filter %s", byClaim.Raw)
	}
	next := call(t, "GET", "/v1/projects/"+pid+"/ledger?claim_id="+good+"&limit=2&cursor="+byClaim.str("next_cursor"), key, nil).expect(t, 200)
	if len(next.JSON["data"].([]any)) != 1 || next.JSON["has_more"] != false {
		t.Fatalf("second page %s", next.Raw)
	}
	call(t, "GET", "/v1/projects/"+pid+"/ledger?cursor="+byClaim.str("next_cursor"), key, nil).expect(t, 400, "invalid_cursor")
	entry := call(t, "GET", "/v1/projects/"+pid+"/ledger/"+ok.str("ledger_entry_id"), key, nil).expect(t, 200)
	det := entry.JSON["details"].(map[string]any)
	if entry.str("event_type") != "claim_promoted" || det["from_tier"] != "explore" || det["to_tier"] != "validate" || entry.str("hash") == "" || entry.str("prev_hash") == "" {
		t.Fatalf("entry %s", entry.Raw)
	}
	if ge := det["governance_evaluation"].(map[string]any); ge["policy_ceiling"] != "validate" || ge["within_ceiling"] != true || ge["truth_dial_threshold_met"] != true {
		t.Fatalf("evaluation %v", ge)
	}
	v := call(t, "GET", "/v1/projects/"+pid+"/ledger/verify", key, nil).expect(t, 200)
	// Five governance decisions, after the policy_changed entries of the project's and the campaign's settings.
	if v.JSON["valid"] != true || v.str("checkpoint") == "" || v.JSON["size"] != 7.0 {
		t.Fatalf("verify %s", v.Raw)
	}
	pr := call(t, "GET", "/v1/projects/"+pid+"/ledger/"+ok.str("ledger_entry_id")+"/proof", key, nil).expect(t, 200)
	if pr.str("root_hash") == "" || pr.str("checkpoint") == "" {
		t.Fatalf("proof %s", pr.Raw)
	}
	call(t, "GET", "/v1/projects/"+pid+"/ledger/led_aaaaaaaaaaaaaaaaaaaaaaaaaa", key, nil).expect(t, 404)
	call(t, "GET", "/v1/projects/"+pid+"/ledger/consistency?old_size=2", key, nil).expect(t, 200)
	// Other tenant.
	call(t, "GET", "/v1/projects/"+pid+"/ledger", env.adminB, nil).expect(t, 404)
	call(t, "GET", "/v1/projects/"+pid+"/claims/"+good, env.adminB, nil).expect(t, 404)
}

func TestConcurrentPromotions(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, map[string]any{"name": "race", "settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "publish"}}})
	cid := mustCampaign(t, key, pid, nil, nil)
	for round := 0; round < 5; round++ {
		id := makeClaim(t, pid, cid, ids.New(ids.Run), discov1.ClaimLaw, 0.95, true)
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, tier := range []string{"validate", "validate"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = call(t, "POST", "/v1/projects/"+pid+"/claims/"+id+"/promote", key, map[string]any{"target_tier": tier}).Status
			}()
		}
		wg.Wait()
		ok, conflict := 0, 0
		for _, c := range codes {
			switch c {
			case 200:
				ok++
			case 409:
				conflict++
			}
		}
		if ok != 1 || conflict != 1 {
			t.Fatalf("round %d: codes %v", round, codes)
		}
	}
	// One claim_promoted entry per round, never two, after the project's policy_changed.
	l := call(t, "GET", "/v1/projects/"+pid+"/ledger?limit=100", key, nil).expect(t, 200)
	if l.JSON["total_count"] != 6.0 {
		t.Fatalf("ledger %s", l.Raw)
	}
}
