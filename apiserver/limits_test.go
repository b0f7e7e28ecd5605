package apiserver

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

func TestRateLimits(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1_800_000_000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	opts := env.server.opts
	opts.Now = clock
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.front.Limits.Requests[discov1.TenantTierFree] = 5
	s.front.Limits.Runs[discov1.TenantTierFree] = 2
	s.front.Limits.Anonymous = 3
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	tenant, err := makeTenant(ctx, discov1.TenantTierFree)
	if err != nil {
		t.Fatal(err)
	}
	key := newKey(t, tenant, nil)
	get := func(path, key string) *response {
		return call(t, "GET", srv.URL+path, key, nil)
	}
	for i := 0; i < 5; i++ {
		r := get("/v1/projects", key).expect(t, 200)
		if r.Header.Get("X-RateLimit-Limit") != "5" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(4-i) {
			t.Fatalf("request %d headers %v", i, r.Header)
		}
		reset, _ := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64)
		if reset <= now.Unix() || reset > now.Add(time.Minute).Unix() {
			t.Fatalf("reset %d", reset)
		}
	}
	r := get("/v1/projects", key)
	checkEnvelope(t, r, 429, "rate_limited")
	if r.Header.Get("Retry-After") != "12" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("429 headers %v", r.Header)
	}
	// Errors carry the headers too (a 404 after the window moved on).
	mu.Lock()
	now = now.Add(12 * time.Second)
	mu.Unlock()
	if r := get("/v1/nowhere", key).expect(t, 404); r.Header.Get("X-RateLimit-Limit") != "5" {
		t.Fatal("no headers on 404")
	}
	// Another tenant has its own bucket.
	get("/v1/projects", env.adminA).expect(t, 200)

	// Anonymous traffic is limited by address.
	for i := 0; i < 3; i++ {
		get("/v1/openapi.json", "").expect(t, 200)
	}
	get("/v1/openapi.json", "").expect(t, 429, "rate_limited")

	// Run submissions have their own, lower bucket.
	mu.Lock()
	now = now.Add(time.Hour)
	mu.Unlock()
	s.front.Limits.Requests[discov1.TenantTierFree] = 100
	path := srv.URL + "/v1/projects/proj_aaaaaaaaaaaaaaaaaaaaaaaaaa/campaigns/camp_aaaaaaaaaaaaaaaaaaaaaaaaaa/runs"
	for i := 0; i < 2; i++ {
		r := call(t, "POST", path, key, map[string]any{"dataset_id": "ds_x"}).expect(t, 404)
		if r.Header.Get("X-RateLimit-Limit") != "2" {
			t.Fatalf("run bucket headers %v", r.Header)
		}
	}
	call(t, "POST", path, key, map[string]any{"dataset_id": "ds_x"}).expect(t, 429, "rate_limited")
	get("/v1/projects", key).expect(t, 200)
}

func TestIdempotency(t *testing.T) {
	key := newKey(t, env.tenantA, nil)
	body := map[string]any{"name": "idem"}
	first := call(t, "POST", "/v1/projects", key, body, "Idempotency-Key", "k-1").expect(t, 201)
	again := call(t, "POST", "/v1/projects", key, body, "Idempotency-Key", "k-1").expect(t, 201)
	if again.str("id") != first.str("id") || again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get("Location") != first.Header.Get("Location") {
		t.Fatalf("replay %s %v", again.Raw, again.Header)
	}
	call(t, "POST", "/v1/projects", key, map[string]any{"name": "other"}, "Idempotency-Key", "k-1").expect(t, 409, "idempotency_key_reused")
	// Keys are per tenant.
	call(t, "POST", "/v1/projects", env.adminB, body, "Idempotency-Key", "k-1").expect(t, 201)
	// A failed request is replayed as the same failure.
	call(t, "POST", "/v1/projects", key, map[string]any{"name": ""}, "Idempotency-Key", "k-2").expect(t, 400)
	call(t, "POST", "/v1/projects", key, map[string]any{"name": ""}, "Idempotency-Key", "k-2").expect(t, 400)
	call(t, "POST", "/v1/projects", key, body, "Idempotency-Key", strings.Repeat("x", 300)).expect(t, 400, "validation_error")

	// Concurrent repeats: one runs, the others replay or wait their turn; one project.
	var wg sync.WaitGroup
	ids := make([]string, 5)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := call(t, "POST", "/v1/projects", key, map[string]any{"name": "conc"}, "Idempotency-Key", "k-3")
			if r.Status == 201 {
				ids[i] = r.str("id")
			} else if r.errCode() != "idempotency_key_in_flight" {
				t.Errorf("concurrent repeat: %d %s", r.Status, r.Raw)
			}
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" {
			seen[id] = true
		}
	}
	if len(seen) != 1 {
		t.Fatalf("concurrent idempotent requests made %d projects", len(seen))
	}

	// Uploads: a retry with a fresh multipart boundary is the same request.
	pid := mustProject(t, key, nil)
	up := func(boundary string) *response {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		must(t, mw.SetBoundary(boundary))
		writeUpload(t, mw, `{"name": "d", "format": "csv"}`, "d.csv", csvData(10))
		must(t, mw.Close())
		return call(t, "POST", "/v1/projects/"+pid+"/datasets", key, buf.Bytes(), "Content-Type", mw.FormDataContentType(), "Idempotency-Key", "up-1")
	}
	a := up("boundary-one").expect(t, 201)
	b := up("boundary-two").expect(t, 201)
	if a.str("id") != b.str("id") || b.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("upload replay: %s / %s", a.Raw, b.Raw)
	}
	_ = http.StatusOK
}
