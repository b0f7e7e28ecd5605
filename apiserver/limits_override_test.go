package apiserver

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// Options.Limits replaces a tier's request limit: an enterprise tenant limited to 3 requests
// a minute gets its 4th request refused with 429 and the headers saying why.
func TestLimitsOverride(t *testing.T) {
	hs := httptest.NewUnstartedServer(nil)
	url := "http://" + hs.Listener.Addr().String() + "/v1"
	s, err := New(Options{
		Client: env.client, APIReader: env.direct, Store: env.store, Ledger: env.ledger, Blob: env.blob, BaseURL: url,
		Limits: &Limits{Requests: map[discov1.TenantTier]int{discov1.TenantTierFree: 3, discov1.TenantTierTeam: 3, discov1.TenantTierEnterprise: 3}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.front.Limits.Runs[discov1.TenantTierFree] != 10 || s.front.Limits.Anonymous != 300 {
		t.Fatalf("entries not overridden must keep their defaults: %+v", s.front.Limits)
	}
	hs.Config.Handler = s.Handler()
	hs.Start()
	defer hs.Close()
	var codes []int
	for i := 0; i < 4; i++ {
		req, _ := http.NewRequest("GET", url+"/projects", nil)
		req.Header.Set("Authorization", "Bearer "+env.adminA)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
		if resp.Header.Get("X-RateLimit-Limit") != "3" {
			t.Fatalf("X-RateLimit-Limit = %q", resp.Header.Get("X-RateLimit-Limit"))
		}
		if i == 3 && resp.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	}
	if !slices.Equal(codes, []int{200, 200, 200, 429}) {
		t.Errorf("status codes = %v, want 200 200 200 429", codes)
	}
}
