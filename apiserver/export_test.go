package apiserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// LimitedFacade serves, for tests outside the package, a facade over the shared test
// environment with the free tier's per-minute request limit and the anonymous limit
// set as given, and the timeouts to, through serve (which builds the handler from the
// server and its base URL, as apiserver/mcp.Facade does). It returns the base URL
// (including /v1) and an all-scope API key of a new free-tier tenant.
func LimitedFacade(t *testing.T, requests, anonymous int, to Timeouts, serve func(*Server, string) http.Handler) (baseURL, key string) {
	t.Helper()
	hs := httptest.NewUnstartedServer(nil)
	baseURL = "http://" + hs.Listener.Addr().String() + "/v1"
	opts := env.server.opts
	opts.BaseURL = baseURL
	opts.Timeouts = to
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	s.front.Limits.Requests[discov1.TenantTierFree] = requests
	s.front.Limits.Anonymous = anonymous
	hs.Config.Handler = serve(s, baseURL)
	hs.Start()
	t.Cleanup(hs.Close)
	tenant, err := makeTenant(context.Background(), discov1.TenantTierFree)
	if err != nil {
		t.Fatal(err)
	}
	return baseURL, newKey(t, tenant, nil)
}

// StalledPost sends a POST whose headers declare more body than is sent, then keeps
// the connection open; it returns the status, the error code of the envelope and
// whether the server closed the connection after answering (see rawExchange).
func StalledPost(t *testing.T, addr, path, key, contentType, partial string) (status int, code string, closed bool) {
	t.Helper()
	r, closed := rawExchange(t, addr, "POST", path, key, contentType, len(partial)+100, 0, false, partial)
	return r.Status, r.errCode(), closed
}
