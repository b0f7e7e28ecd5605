package apiserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/internal/store"
)

func TestAuthMatrix(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	ctx := context.Background()

	soon := time.Now().Add(50 * time.Millisecond)
	_, expiredKey, err := env.store.CreateAPIKey(ctx, store.NewAPIKey{TenantID: env.tenantA, Name: "exp", Scopes: auth.All, CreatedBy: "t", ExpiresAt: &soon})
	if err != nil {
		t.Fatal(err)
	}
	revoked := newKey(t, env.tenantA, nil)
	rk, _ := env.store.APIKeyByHash(ctx, store.HashAPIKey(revoked))
	call(t, "DELETE", "/v1/api-keys/"+rk.ID, env.adminA, nil).expect(t, 204)
	time.Sleep(60 * time.Millisecond)

	valid := newKey(t, env.tenantA, nil)
	badChecksum := valid[:len(valid)-1] + map[bool]string{true: "A", false: "B"}[valid[len(valid)-1] != 'A']
	unknown, _ := store.GenerateAPIKey()

	cases := []struct {
		name, header, reason string
	}{
		{"missing", "", "missing"},
		{"not bearer", "Basic abc", "malformed"},
		{"empty bearer", "Bearer ", "malformed"},
		{"unknown prefix", "Bearer abc", "malformed"},
		{"bad checksum", "Bearer " + badChecksum, "malformed"},
		{"unknown key", "Bearer " + unknown, "invalid"},
		{"revoked", "Bearer " + revoked, "revoked"},
		{"expired", "Bearer " + expiredKey, "expired"},
		{"bad session", "Bearer disco_session_nope", "invalid"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/v1/projects", "/v1/projects/" + pid, "/v1/api-keys", "/v1/webhooks"} {
				r := call(t, "GET", path, "", nil, "Authorization", c.header)
				if c.header == "" {
					r = call(t, "GET", path, "", nil)
				}
				checkEnvelope(t, r, 401, "unauthenticated")
				if r.errDetails()["reason"] != c.reason {
					t.Fatalf("%s: reason %v, want %s", path, r.errDetails()["reason"], c.reason)
				}
				if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Fatalf("WWW-Authenticate %q", r.Header.Get("WWW-Authenticate"))
				}
				if r.Header.Get("X-RateLimit-Limit") == "" {
					t.Fatal("no rate-limit headers on 401")
				}
			}
		})
	}
	// A bad credential on an unknown route is still a 404.
	call(t, "GET", "/v1/nope", "garbage", nil).expect(t, 404)
	// The OpenAPI document and error pages are public.
	call(t, "GET", "/v1/openapi.json", "", nil).expect(t, 200)
}

func TestScopes(t *testing.T) {
	pid := mustProject(t, env.adminA, nil)
	cid := mustCampaign(t, env.adminA, pid, nil, nil)
	ops := []struct {
		method, path string
		body         any
		scope        string
	}{
		{"GET", "/v1/projects", nil, auth.ProjectsRead},
		{"POST", "/v1/projects", map[string]any{"name": "x"}, auth.ProjectsWrite},
		{"GET", "/v1/projects/" + pid, nil, auth.ProjectsRead},
		{"PATCH", "/v1/projects/" + pid, map[string]any{"description": "x"}, auth.ProjectsWrite},
		{"GET", "/v1/projects/" + pid + "/campaigns", nil, auth.ProjectsRead},
		{"GET", "/v1/projects/" + pid + "/datasets", nil, auth.DatasetsRead},
		{"GET", "/v1/projects/" + pid + "/campaigns/" + cid + "/runs", nil, auth.RunsRead},
		{"POST", "/v1/projects/" + pid + "/campaigns/" + cid + "/runs", map[string]any{"dataset_id": "ds_x"}, auth.RunsWrite},
		{"GET", "/v1/projects/" + pid + "/claims", nil, auth.ClaimsRead},
		{"GET", "/v1/projects/" + pid + "/ledger", nil, auth.LedgerRead},
		{"GET", "/v1/webhooks", nil, auth.WebhooksWrite},
		{"GET", "/v1/api-keys", nil, auth.APIKeysWrite},
	}
	for _, op := range ops {
		var others []string
		for _, s := range auth.All {
			if s != op.scope {
				others = append(others, s)
			}
		}
		without := newKey(t, env.tenantA, others)
		r := call(t, op.method, op.path, without, op.body)
		checkEnvelope(t, r, 403, "insufficient_scope")
		if r.errDetails()["required_scope"] != op.scope {
			t.Fatalf("%s %s: required_scope %v", op.method, op.path, r.errDetails()["required_scope"])
		}
		with := newKey(t, env.tenantA, []string{op.scope})
		if r := call(t, op.method, op.path, with, op.body); r.Status == 401 || r.Status == 403 {
			t.Fatalf("%s %s with %s: %d %s", op.method, op.path, op.scope, r.Status, r.Raw)
		}
	}
}

func TestProjectRestrictedKey(t *testing.T) {
	allowed := mustProject(t, env.adminA, nil)
	hidden := mustProject(t, env.adminA, nil)
	key := newKey(t, env.tenantA, nil, allowed)
	call(t, "GET", "/v1/projects/"+allowed, key, nil).expect(t, 200)
	call(t, "GET", "/v1/projects/"+hidden, key, nil).expect(t, 404, "not_found")
	call(t, "GET", "/v1/projects/"+hidden+"/claims", key, nil).expect(t, 404)
	call(t, "POST", "/v1/projects", key, map[string]any{"name": "x"}).expect(t, 403, "forbidden")
	l := call(t, "GET", "/v1/projects?limit=100", key, nil).expect(t, 200)
	if l.JSON["total_count"] != 1.0 || l.JSON["data"].([]any)[0].(map[string]any)["id"] != allowed {
		t.Fatalf("list %s", l.Raw)
	}
	// It cannot mint an unrestricted key, nor see unrestricted ones.
	k := call(t, "POST", "/v1/api-keys", key, map[string]any{"name": "child"}).expect(t, 201)
	if ps := k.JSON["project_ids"].([]any); len(ps) != 1 || ps[0] != allowed {
		t.Fatalf("child key %s", k.Raw)
	}
	call(t, "POST", "/v1/api-keys", key, map[string]any{"name": "child", "project_ids": []string{hidden}}).expect(t, 404)
	for _, it := range call(t, "GET", "/v1/api-keys?limit=100", key, nil).expect(t, 200).JSON["data"].([]any) {
		if len(it.(map[string]any)["project_ids"].([]any)) == 0 {
			t.Fatal("restricted key sees an unrestricted key")
		}
	}
}

func TestAPIKeys(t *testing.T) {
	admin := newKey(t, env.tenantA, nil)
	r := call(t, "POST", "/v1/api-keys", admin, map[string]any{"name": "ci", "scopes": []string{"projects:read", "runs:write"}}).expect(t, 201)
	plain := r.str("key")
	id := r.str("id")
	if !store.ValidAPIKeyFormat(plain) || !strings.HasPrefix(id, "key_") || r.str("status") != "active" {
		t.Fatalf("created %s", r.Raw)
	}
	call(t, "GET", "/v1/projects", plain, nil).expect(t, 200)
	call(t, "POST", "/v1/projects", plain, map[string]any{"name": "x"}).expect(t, 403, "insufficient_scope")
	// Listing never shows the key again.
	g := call(t, "GET", "/v1/api-keys/"+id, admin, nil).expect(t, 200)
	if g.str("key") != "" || strings.Contains(string(g.Raw), plain) {
		t.Fatalf("key shown again: %s", g.Raw)
	}
	// A key cannot grant what it lacks; unknown scopes are refused.
	call(t, "POST", "/v1/api-keys", plain, map[string]any{"name": "x"}).expect(t, 403, "insufficient_scope")
	limited := newKey(t, env.tenantA, []string{auth.APIKeysWrite})
	call(t, "POST", "/v1/api-keys", limited, map[string]any{"name": "x", "scopes": []string{"projects:write"}}).expect(t, 403, "insufficient_scope")
	call(t, "POST", "/v1/api-keys", admin, map[string]any{"name": "x", "scopes": []string{"root"}}).expect(t, 400, "validation_error")
	call(t, "POST", "/v1/api-keys", admin, map[string]any{"name": "x", "expires_at": "2001-01-01T00:00:00Z"}).expect(t, 400, "validation_error")

	// Roll: the new key works, and the old one keeps working for the grace period.
	rolled := call(t, "POST", "/v1/api-keys/"+id+"/roll", admin, map[string]any{"grace_period_seconds": 1}).expect(t, 201)
	newPlain := rolled.str("key")
	if newPlain == "" || newPlain == plain {
		t.Fatalf("roll %s", rolled.Raw)
	}
	call(t, "GET", "/v1/projects", plain, nil).expect(t, 200)
	call(t, "GET", "/v1/projects", newPlain, nil).expect(t, 200)
	call(t, "POST", "/v1/api-keys/"+id+"/roll", admin, nil).expect(t, 409, "conflict")
	time.Sleep(1100 * time.Millisecond)
	env.server.authn.Forget(id)
	call(t, "GET", "/v1/projects", plain, nil).expect(t, 401)
	call(t, "GET", "/v1/projects", newPlain, nil).expect(t, 200)
	// Without a body the roll uses the default grace.
	call(t, "POST", "/v1/api-keys/"+rolled.str("id")+"/roll", admin, nil).expect(t, 201)
	call(t, "GET", "/v1/projects", newPlain, nil).expect(t, 200)

	// Revoke takes effect at once.
	k := call(t, "POST", "/v1/api-keys", admin, map[string]any{"name": "tmp"}).expect(t, 201)
	call(t, "GET", "/v1/projects", k.str("key"), nil).expect(t, 200)
	call(t, "DELETE", "/v1/api-keys/"+k.str("id"), admin, nil).expect(t, 204)
	call(t, "GET", "/v1/projects", k.str("key"), nil).expect(t, 401)
	if g := call(t, "GET", "/v1/api-keys/"+k.str("id"), admin, nil).expect(t, 200); g.str("status") != "revoked" {
		t.Fatalf("status %s", g.Raw)
	}
	// Other tenants' keys do not exist.
	call(t, "GET", "/v1/api-keys/"+id, env.adminB, nil).expect(t, 404)
	call(t, "DELETE", "/v1/api-keys/"+id, env.adminB, nil).expect(t, 404)
	l := call(t, "GET", "/v1/api-keys?status=revoked", admin, nil).expect(t, 200)
	if l.JSON["total_count"].(float64) < 1 {
		t.Fatalf("list %s", l.Raw)
	}
}

func TestWebhooks(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	body := map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"run.completed", "claim.promoted"}, "project_id": pid, "secret": "0123456789abcdef0123"}
	r := call(t, "POST", "/v1/webhooks", key, body).expect(t, 201)
	id := r.str("id")
	if !strings.HasPrefix(id, "whk_") || r.str("status") != "active" || strings.Contains(string(r.Raw), "0123456789abcdef") || r.str("project_id") != pid {
		t.Fatalf("webhook %s", r.Raw)
	}
	call(t, "GET", "/v1/webhooks/"+id, key, nil).expect(t, 200)
	call(t, "GET", "/v1/webhooks/"+id, env.adminB, nil).expect(t, 404)
	l := call(t, "GET", "/v1/webhooks?project_id="+pid, key, nil).expect(t, 200)
	if l.JSON["total_count"] != 1.0 {
		t.Fatalf("list %s", l.Raw)
	}
	d := call(t, "GET", "/v1/webhooks/"+id+"/deliveries", key, nil).expect(t, 200)
	if len(d.JSON["data"].([]any)) != 0 {
		t.Fatalf("deliveries %s", d.Raw)
	}
	call(t, "POST", "/v1/webhooks/"+id+"/deliveries/dlv_aaaaaaaaaaaaaaaaaaaaaaaaaa/redeliver", key, nil).expect(t, 404)

	for _, bad := range []string{"http://169.254.169.254/latest", "http://10.0.0.1/x", "ftp://example.com/", "http://user:pw@example.com/", "http://[::1]:80/"} {
		b := map[string]any{"url": bad, "events": []string{"run.completed"}, "secret": "0123456789abcdef0123"}
		if bad == "http://[::1]:80/" {
			continue // loopback is allowed in this (dev-mode) server
		}
		call(t, "POST", "/v1/webhooks", key, b).expect(t, 422, "webhook_url_not_allowed")
	}
	call(t, "POST", "/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1/x", "events": []string{"nope"}, "secret": "0123456789abcdef0123"}).expect(t, 400, "validation_error")
	call(t, "POST", "/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1/x", "events": []string{"run.completed"}, "secret": "short"}).expect(t, 400, "validation_error")
	call(t, "POST", "/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1/x", "events": []string{"run.completed"}, "secret": "0123456789abcdef0123", "project_id": "proj_aaaaaaaaaaaaaaaaaaaaaaaaaa"}).expect(t, 404)

	call(t, "DELETE", "/v1/webhooks/"+id, key, nil).expect(t, 204)
	call(t, "GET", "/v1/webhooks/"+id, key, nil).expect(t, 404)
}

func TestWebhookDeliveryOnPromotion(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, map[string]any{"name": "hooks", "settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "publish"}}})
	cid := mustCampaign(t, key, pid, nil, nil)
	wh := call(t, "POST", "/v1/webhooks", key, map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"claim.promoted"}, "project_id": pid, "secret": "0123456789abcdef0123"}).expect(t, 201)
	clm := makeClaim(t, pid, cid, "run_aaaaaaaaaaaaaaaaaaaaaaaaaa", "law", 0.95, true)
	call(t, "POST", "/v1/projects/"+pid+"/claims/"+clm+"/promote", key, map[string]any{"target_tier": "validate"}).expect(t, 200)
	d := call(t, "GET", "/v1/webhooks/"+wh.str("id")+"/deliveries", key, nil).expect(t, 200)
	data := d.JSON["data"].([]any)
	if len(data) != 1 || data[0].(map[string]any)["event_type"] != "claim.promoted" {
		t.Fatalf("deliveries %s", d.Raw)
	}
	dl := data[0].(map[string]any)["id"].(string)
	call(t, "POST", "/v1/webhooks/"+wh.str("id")+"/deliveries/"+dl+"/redeliver", key, nil).expect(t, http.StatusAccepted)
	if d := call(t, "GET", "/v1/webhooks/"+wh.str("id")+"/deliveries?limit=1", key, nil).expect(t, 200); d.JSON["has_more"] != true {
		t.Fatalf("deliveries page %s", d.Raw)
	} else {
		call(t, "GET", "/v1/webhooks/"+wh.str("id")+"/deliveries?limit=1&cursor="+d.str("next_cursor"), key, nil).expect(t, 200)
	}
}
