package mcp

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeREST records the requests it gets and answers them from a table keyed by
// "METHOD path" (path without the /v1 prefix, with the query).
type fakeREST struct {
	mu       sync.Mutex
	requests []recorded
	answers  map[string]answer
}

type recorded struct {
	Method, Path, Authorization, ContentType string
	Body                                     map[string]any
}

type answer struct {
	status int
	body   string
}

func (f *fakeREST) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := recorded{Method: r.Method, Path: strings.TrimPrefix(r.URL.RequestURI(), "/v1"),
		Authorization: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")}
	if data, _ := io.ReadAll(r.Body); len(data) > 0 {
		_ = json.Unmarshal(data, &rec.Body)
	}
	f.mu.Lock()
	f.requests = append(f.requests, rec)
	a, ok := f.answers[r.Method+" "+rec.Path]
	f.mu.Unlock()
	if !ok {
		a = answer{200, `{"ok":true}`}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = io.WriteString(w, a.body)
}

func (f *fakeREST) last(t *testing.T) recorded {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("no REST request was made")
	}
	return f.requests[len(f.requests)-1]
}

// session connects an MCP client to the tools over streamable HTTP, served by
// NewHTTPHandler in front of the fake REST handler, sending authorization.
func session(t *testing.T, fake *fakeREST, authorization string) *mcpsdk.ClientSession {
	t.Helper()
	srv := httptest.NewServer(NewHTTPHandler(HandlerBackend(fake, "http://disco.test/v1")))
	t.Cleanup(srv.Close)
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test", Version: "1"}, nil)
	hc := &http.Client{Transport: headerTransport{authorization: authorization}}
	cs, err := client.Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

type headerTransport struct{ authorization string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", h.authorization)
	return http.DefaultTransport.RoundTrip(r)
}

func callTool(t *testing.T, cs *mcpsdk.ClientSession, name string, args map[string]any) *mcpsdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *mcpsdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcpsdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

const bearer = "Bearer disco_key_test"

func TestListTools(t *testing.T) {
	cs := session(t, &fakeREST{}, bearer)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	byName := map[string]*mcpsdk.Tool{}
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		byName[tl.Name] = tl
	}
	for _, want := range toolNames {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s missing from %v", want, names)
		}
	}
	if len(names) != len(toolNames) {
		t.Errorf("got %d tools, want %d: %v", len(names), len(toolNames), names)
	}
	// Schemas come from the Go types with the facade's tags.
	schema, _ := json.Marshal(byName["promote_claim"].InputSchema)
	for _, want := range []string{`"required":["project_id","claim_id","target_tier"]`, `"enum":["explore","validate","publish"]`, `"maxLength":4000`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("promote_claim schema lacks %s: %s", want, schema)
		}
	}
	schema, _ = json.Marshal(byName["submit_run"].InputSchema)
	for _, want := range []string{"target_variables", "negative_controls", `"maximum":200`, `"enum":["symbolic","neural","neuro_symbolic","causal"]`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("submit_run schema lacks %s: %s", want, schema)
		}
	}
	if !byName["get_claim"].Annotations.ReadOnlyHint || byName["promote_claim"].Annotations.ReadOnlyHint {
		t.Errorf("read-only hints wrong")
	}
}

func TestToolsMapToREST(t *testing.T) {
	const runs = "/projects/proj_a/campaigns/camp_b/runs"
	cases := []struct {
		tool   string
		args   map[string]any
		method string
		path   string
		body   map[string]any
	}{
		{"list_projects", map[string]any{}, "GET", "/projects", nil},
		{"list_projects", map[string]any{"limit": 5, "cursor": "c1", "status": "active", "sort": "name", "order": "asc"}, "GET", "/projects?cursor=c1&limit=5&order=asc&sort=name&status=active", nil},
		{"get_project", map[string]any{"project_id": "proj_a"}, "GET", "/projects/proj_a", nil},
		{"list_campaigns", map[string]any{"project_id": "proj_a", "limit": 3}, "GET", "/projects/proj_a/campaigns?limit=3", nil},
		{"get_campaign", map[string]any{"project_id": "proj_a", "campaign_id": "camp_b"}, "GET", "/projects/proj_a/campaigns/camp_b", nil},
		{"list_datasets", map[string]any{"project_id": "proj_a", "status": "ready"}, "GET", "/projects/proj_a/datasets?status=ready", nil},
		{"get_dataset", map[string]any{"project_id": "proj_a", "dataset_id": "ds_c"}, "GET", "/projects/proj_a/datasets/ds_c", nil},
		{"get_dataset_profile", map[string]any{"project_id": "proj_a", "dataset_id": "ds_c"}, "GET", "/projects/proj_a/datasets/ds_c/profile", nil},
		{"list_runs", map[string]any{"project_id": "proj_a", "campaign_id": "camp_b", "status": "completed"}, "GET", runs + "?status=completed", nil},
		{"get_run", map[string]any{"project_id": "proj_a", "campaign_id": "camp_b", "run_id": "run_d"}, "GET", runs + "/run_d", nil},
		{"submit_run", map[string]any{"project_id": "proj_a", "campaign_id": "camp_b", "mode": "symbolic", "dataset_id": "ds_c",
			"parameters": map[string]any{"target_variables": []string{"y"}, "constraints": []string{}, "cross_validate": true, "max_complexity": 10}},
			"POST", runs, map[string]any{"mode": "symbolic", "dataset_id": "ds_c",
				"parameters": map[string]any{"target_variables": []any{"y"}, "constraints": []any{}, "cross_validate": true, "max_complexity": float64(10)}}},
		{"get_run_status", map[string]any{"project_id": "proj_a", "campaign_id": "camp_b", "run_id": "run_d"}, "GET", runs + "/run_d/status", nil},
		{"get_run_results", map[string]any{"project_id": "proj_a", "campaign_id": "camp_b", "run_id": "run_d"}, "GET", runs + "/run_d/results", nil},
		{"cancel_run", map[string]any{"project_id": "proj_a", "campaign_id": "camp_b", "run_id": "run_d"}, "POST", runs + "/run_d/cancel", nil},
		{"list_claims", map[string]any{"project_id": "proj_a", "run_id": "run_d", "type": "law", "tier": "explore", "limit": 50, "cursor": "x"}, "GET", "/projects/proj_a/claims?cursor=x&limit=50&run_id=run_d&tier=explore&type=law", nil},
		{"get_claim", map[string]any{"project_id": "proj_a", "claim_id": "clm_e"}, "GET", "/projects/proj_a/claims/clm_e", nil},
		{"promote_claim", map[string]any{"project_id": "proj_a", "claim_id": "clm_e", "target_tier": "validate", "rationale": "r"}, "POST", "/projects/proj_a/claims/clm_e/promote", map[string]any{"target_tier": "validate", "rationale": "r"}},
		{"demote_claim", map[string]any{"project_id": "proj_a", "claim_id": "clm_e", "target_tier": "explore"}, "POST", "/projects/proj_a/claims/clm_e/demote", map[string]any{"target_tier": "explore"}},
		{"list_ledger", map[string]any{"project_id": "proj_a", "claim_id": "clm_e"}, "GET", "/projects/proj_a/ledger?claim_id=clm_e", nil},
		{"get_ledger_entry", map[string]any{"project_id": "proj_a", "entry_id": "led_f"}, "GET", "/projects/proj_a/ledger/led_f", nil},
		{"verify_ledger", map[string]any{"project_id": "proj_a"}, "GET", "/projects/proj_a/ledger/verify", nil},
		// Path segments are escaped: an id cannot reach another route.
		{"get_project", map[string]any{"project_id": "../api-keys"}, "GET", "/projects/..%2Fapi-keys", nil},
	}
	fake := &fakeREST{}
	cs := session(t, fake, bearer)
	for _, c := range cases {
		res := callTool(t, cs, c.tool, c.args)
		if res.IsError {
			t.Errorf("%s: error %s", c.tool, text(res))
			continue
		}
		got := fake.last(t)
		if got.Method != c.method || got.Path != c.path {
			t.Errorf("%s: %s %s, want %s %s", c.tool, got.Method, got.Path, c.method, c.path)
		}
		if got.Authorization != bearer {
			t.Errorf("%s: Authorization %q, want %q", c.tool, got.Authorization, bearer)
		}
		gb, _ := json.Marshal(got.Body)
		wb, _ := json.Marshal(c.body)
		if string(gb) != string(wb) {
			t.Errorf("%s: body %s, want %s", c.tool, gb, wb)
		}
		if c.body != nil && got.ContentType != "application/json" {
			t.Errorf("%s: Content-Type %q", c.tool, got.ContentType)
		}
		if text(res) != `{"ok":true}` {
			t.Errorf("%s: text %q", c.tool, text(res))
		}
		if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"ok":true}` {
			t.Errorf("%s: structured content %s", c.tool, sc)
		}
	}
}

func TestInvalidArgumentsNeverReachREST(t *testing.T) {
	fake := &fakeREST{}
	cs := session(t, fake, bearer)
	for _, args := range []map[string]any{
		{"project_id": "proj_a", "claim_id": "clm_e"},                        // target_tier missing
		{"project_id": "proj_a", "claim_id": "clm_e", "target_tier": "gold"}, // not a tier
		{"project_id": "proj_a", "claim_id": "clm_e", "target_tier": 3},      // wrong type
	} {
		res, err := cs.CallTool(context.Background(), &mcpsdk.CallToolParams{Name: "promote_claim", Arguments: args})
		if err == nil && !res.IsError {
			t.Errorf("%v: accepted", args)
		}
	}
	if len(fake.requests) != 0 {
		t.Errorf("invalid arguments reached REST: %+v", fake.requests)
	}
}

func TestGovernanceRefusalNamesTheConstraint(t *testing.T) {
	envelope := `{"error":{"code":"governance_policy_violation","message":"promotion to publish exceeds the promotion ceiling validate","status":403,` +
		`"details":{"claim_id":"clm_e","requested_tier":"publish","policy_ceiling":"validate","truth_dial_score":0.97,"constraint":"promotion_ceiling_exceeded"},` +
		`"request_id":"req_x","documentation_url":"http://disco.test/v1/docs/errors/governance_policy_violation"}}`
	fake := &fakeREST{answers: map[string]answer{"POST /projects/proj_a/claims/clm_e/promote": {403, envelope}}}
	cs := session(t, fake, bearer)
	res := callTool(t, cs, "promote_claim", map[string]any{"project_id": "proj_a", "claim_id": "clm_e", "target_tier": "publish"})
	if !res.IsError {
		t.Fatalf("not an error: %s", text(res))
	}
	txt := text(res)
	first, _, _ := strings.Cut(txt, "\n")
	if want := "governance_policy_violation: promotion to publish exceeds the promotion ceiling validate (constraint: promotion_ceiling_exceeded)"; first != want {
		t.Errorf("first line %q, want %q", first, want)
	}
	for _, want := range []string{"status: 403", `"policy_ceiling":"validate"`, `"requested_tier":"publish"`, "request_id: req_x"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(sc), `"constraint":"promotion_ceiling_exceeded"`) {
		t.Errorf("structured content %s", sc)
	}
}

func TestErrorsOtherThanTheEnvelope(t *testing.T) {
	fake := &fakeREST{answers: map[string]answer{
		"GET /projects/proj_a": {404, `{"error":{"code":"not_found","message":"project proj_a not found","status":404,"details":{},"request_id":"req_y","documentation_url":"u"}}`},
		"GET /projects/proj_b": {502, `upstream broke`},
	}}
	cs := session(t, fake, bearer)
	res := callTool(t, cs, "get_project", map[string]any{"project_id": "proj_a"})
	if !res.IsError || !strings.HasPrefix(text(res), "not_found: project proj_a not found\nstatus: 404") {
		t.Errorf("404: %v %q", res.IsError, text(res))
	}
	res = callTool(t, cs, "get_project", map[string]any{"project_id": "proj_b"})
	if !res.IsError || text(res) != "http_502: upstream broke" {
		t.Errorf("502: %v %q", res.IsError, text(res))
	}
	// A backend that cannot be reached is a tool error too.
	dead := HTTPBackend("http://127.0.0.1:1/v1", nil)
	srv := NewServer(dead, func(context.Context) string { return bearer })
	ct, st := mcpsdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res = callTool(t, c, "list_projects", nil)
	if !res.IsError || !strings.HasPrefix(text(res), "request_failed: GET /projects") {
		t.Errorf("dead backend: %v %q", res.IsError, text(res))
	}
}

func TestMissingCredentialIs401(t *testing.T) {
	fake := &fakeREST{}
	h := NewHTTPHandler(HandlerBackend(fake, "http://disco.test/v1"))
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, authz := range []string{"", "Basic dXNlcjpwdw==", "Bearer "} {
		r := httptest.NewRequest(http.MethodPost, "/v1/mcp", strings.NewReader(init))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if authz != "" {
			r.Header.Set("Authorization", authz)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusUnauthorized {
			t.Fatalf("%q: status %d: %s", authz, w.Code, w.Body)
		}
		if !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%q: WWW-Authenticate %q", authz, w.Header().Get("WWW-Authenticate"))
		}
		var env struct {
			Error struct {
				Code, Message, RequestID, DocumentationURL string
				Status                                     int
				Details                                    map[string]any
			} `json:"error"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &env); err != nil {
			t.Fatalf("%q: %v: %s", authz, err, w.Body)
		}
		e := env.Error
		if e.Code != "unauthenticated" || e.Status != 401 || e.Message == "" || e.Details == nil {
			t.Errorf("%q: envelope %+v", authz, e)
		}
		var raw map[string]map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &raw)
		if id, _ := raw["error"]["request_id"].(string); !strings.HasPrefix(id, "req_") || w.Header().Get("X-Request-Id") != id {
			t.Errorf("%q: request_id %q, X-Request-Id %q", authz, id, w.Header().Get("X-Request-Id"))
		}
		if u, _ := raw["error"]["documentation_url"].(string); u != "http://disco.test/v1/docs/errors/unauthenticated" {
			t.Errorf("%q: documentation_url %q", authz, u)
		}
	}
	if len(fake.requests) != 0 {
		t.Errorf("REST was called: %+v", fake.requests)
	}

	// An MCP client without a credential cannot even initialize.
	srv := httptest.NewServer(h)
	defer srv.Close()
	_, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err == nil {
		t.Fatal("connected without a credential")
	}
}

func TestEachCallForwardsItsOwnCredential(t *testing.T) {
	fake := &fakeREST{}
	a := session(t, fake, "Bearer disco_key_aaa")
	b := session(t, fake, "Bearer disco_session_bbb")
	callTool(t, a, "list_projects", nil)
	if got := fake.last(t).Authorization; got != "Bearer disco_key_aaa" {
		t.Errorf("a: %q", got)
	}
	callTool(t, b, "list_projects", nil)
	if got := fake.last(t).Authorization; got != "Bearer disco_session_bbb" {
		t.Errorf("b: %q", got)
	}
}

func TestServeStdio(t *testing.T) {
	fake := &fakeREST{}
	rest := httptest.NewServer(fake)
	defer rest.Close()
	if err := ServeStdio(context.Background(), rest.URL+"/v1", "", strings.NewReader(""), io.Discard); err == nil ||
		!strings.Contains(err.Error(), "DISCO_API_KEY") {
		t.Fatalf("no key: %v", err)
	}

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeStdio(ctx, rest.URL+"/v1", "disco_key_stdio", inR, outW) }()
	c, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t", Version: "1"}, nil).
		Connect(context.Background(), &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := callTool(t, c, "get_claim", map[string]any{"project_id": "proj_a", "claim_id": "clm_e"})
	if res.IsError {
		t.Fatal(text(res))
	}
	got := fake.last(t)
	if got.Path != "/projects/proj_a/claims/clm_e" || got.Authorization != "Bearer disco_key_stdio" {
		t.Errorf("got %+v", got)
	}
	_ = c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}
