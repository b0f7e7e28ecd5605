package apiserver_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/apiserver/mcp"
)

// mcpAnswer is an HTTP answer of /v1/mcp.
type mcpAnswer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// mcpPost sends one JSON-RPC message to /v1/mcp with authorization (none when "").
func mcpPost(t *testing.T, baseURL, authorization string, msg map[string]any) mcpAnswer {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest(http.MethodPost, baseURL+"/mcp", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	a := mcpAnswer{status: res.StatusCode, header: res.Header}
	_ = json.Unmarshal(raw, &a.body)
	if len(raw) > 400 {
		raw = append(raw[:400], "..."...)
	}
	a.raw = string(raw)
	return a
}

// errorCode returns the envelope's error code and details.reason.
func (a mcpAnswer) errorCode() (code, reason string) {
	e, _ := a.body["error"].(map[string]any)
	code, _ = e["code"].(string)
	d, _ := e["details"].(map[string]any)
	reason, _ = d["reason"].(string)
	return code, reason
}

func remaining(t *testing.T, a mcpAnswer) int {
	t.Helper()
	n, err := strconv.Atoi(a.header.Get("X-RateLimit-Remaining"))
	if err != nil {
		t.Fatalf("X-RateLimit-Remaining %q: %s", a.header.Get("X-RateLimit-Remaining"), a.raw)
	}
	return n
}

var (
	initialize = map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"}}}
	toolsList     = map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
	listProjects  = map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "list_projects", "arguments": map[string]any{}}}
	malformedKey  = "Bearer not-a-disco-credential"
	unknownKeyFmt = "Bearer disco_key_" + strings.Repeat("a", 40)
)

// TestMCPNeedsCredential (issue 17): initialize and tools/list, which call no REST
// operation, are authenticated like REST: no credential, a malformed one or an
// unknown one is 401 with the REST envelope and challenge.
func TestMCPNeedsCredential(t *testing.T) {
	base, key := apiserver.LimitedFacade(t, 1000, 1000, apiserver.Timeouts{}, mcp.Facade)
	for _, c := range []struct {
		name, authorization, reason string
		msg                         map[string]any
	}{
		{"initialize without credential", "", "missing", initialize},
		{"tools/list without credential", "", "missing", toolsList},
		{"initialize with a malformed credential", malformedKey, "malformed", initialize},
		{"tools/list with an unknown key", unknownKeyFmt, "", toolsList},
	} {
		a := mcpPost(t, base, c.authorization, c.msg)
		code, reason := a.errorCode()
		if a.status != http.StatusUnauthorized || code != "unauthenticated" || (c.reason != "" && reason != c.reason) {
			t.Errorf("%s: %d %s", c.name, a.status, a.raw)
			continue
		}
		if !strings.HasPrefix(a.header.Get("WWW-Authenticate"), "Bearer") || !strings.HasPrefix(a.header.Get("X-Request-Id"), "req_") {
			t.Errorf("%s: headers %v", c.name, a.header)
		}
	}
	if a := mcpPost(t, base, "Bearer "+key, initialize); a.status != http.StatusOK {
		t.Fatalf("initialize with a valid key: %d %s", a.status, a.raw)
	}
}

// TestMCPRateLimited (issue 17): MCP requests take from the tenant's request bucket,
// and unauthenticated ones from the client address's; beyond it they are 429. A tool
// call counts once, although it makes a REST request of its own.
func TestMCPRateLimited(t *testing.T) {
	base, key := apiserver.LimitedFacade(t, 4, 2, apiserver.Timeouts{}, mcp.Facade)
	bearer := "Bearer " + key

	first := mcpPost(t, base, bearer, initialize)
	if first.status != http.StatusOK {
		t.Fatalf("initialize: %d %s", first.status, first.raw)
	}
	call := mcpPost(t, base, bearer, listProjects)
	if call.status != http.StatusOK || call.body["result"] == nil || strings.Contains(call.raw, `"isError":true`) {
		t.Fatalf("tools/call list_projects: %d %s", call.status, call.raw)
	}
	next := mcpPost(t, base, bearer, toolsList)
	if next.status != http.StatusOK {
		t.Fatalf("tools/list within the limit: %d %s", next.status, next.raw)
	}
	// Between the initialize and this tools/list, only the tool call took from the bucket.
	if before, after := remaining(t, first), remaining(t, next); before-after != 2 {
		t.Fatalf("the tool call took %d requests from the bucket, want 1", before-after-1)
	}
	if a := mcpPost(t, base, bearer, toolsList); a.status != http.StatusOK {
		t.Fatalf("tools/list within the limit: %d %s", a.status, a.raw)
	}
	a := mcpPost(t, base, bearer, toolsList)
	if code, _ := a.errorCode(); a.status != http.StatusTooManyRequests || code != "rate_limited" || a.header.Get("Retry-After") == "" {
		t.Fatalf("tools/list beyond the limit: %d %v %s", a.status, a.header, a.raw)
	}

	for i := 0; i < 2; i++ {
		if a := mcpPost(t, base, "", initialize); a.status != http.StatusUnauthorized {
			t.Fatalf("anonymous initialize %d: %d %s", i, a.status, a.raw)
		}
	}
	a = mcpPost(t, base, "", initialize)
	if code, _ := a.errorCode(); a.status != http.StatusTooManyRequests || code != "rate_limited" {
		t.Fatalf("anonymous initialize beyond the limit: %d %s", a.status, a.raw)
	}
}

// TestMCPStalledBody (issue 17): an MCP request whose body stalls is answered and
// disconnected after the stall timeout, with any bearer string and with a valid key.
func TestMCPStalledBody(t *testing.T) {
	base, key := apiserver.LimitedFacade(t, 1000, 1000, apiserver.Timeouts{BodyStall: 200 * time.Millisecond}, mcp.Facade)
	addr := strings.TrimSuffix(strings.TrimPrefix(base, "http://"), "/v1")
	partial := `{"jsonrpc":"2.0","id":1,"method":"initialize",`
	for _, c := range []struct {
		key, code string
		status    int
	}{
		{"whatever", "unauthenticated", http.StatusUnauthorized},
		{key, "request_timeout", http.StatusRequestTimeout},
	} {
		status, code, closed := apiserver.StalledPost(t, addr, "/v1/mcp", c.key, "application/json", partial)
		if status != c.status || code != c.code || !closed {
			t.Errorf("key %.12s...: %d %s, connection closed %v; want %d %s and closed", c.key, status, code, closed, c.status, c.code)
		}
	}
}
