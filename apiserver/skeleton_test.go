package apiserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/discolab/disco/apiserver/transport"
)

// checkEnvelope asserts the contract's error envelope.
func checkEnvelope(t *testing.T, r *response, status int, code string) {
	t.Helper()
	r.expect(t, status, code)
	e, ok := r.JSON["error"].(map[string]any)
	if !ok || len(r.JSON) != 1 {
		t.Fatalf("not an envelope: %s", r.Raw)
	}
	for _, k := range []string{"code", "message", "status", "details", "request_id", "documentation_url"} {
		if _, ok := e[k]; !ok {
			t.Fatalf("envelope lacks %s: %s", k, r.Raw)
		}
	}
	if int(e["status"].(float64)) != status {
		t.Fatalf("status field %v, want %d", e["status"], status)
	}
	rid := e["request_id"].(string)
	if !strings.HasPrefix(rid, "req_") || r.Header.Get("X-Request-Id") != rid {
		t.Fatalf("request id %q, header %q", rid, r.Header.Get("X-Request-Id"))
	}
	if !strings.HasSuffix(e["documentation_url"].(string), "/v1/docs/errors/"+code) {
		t.Fatalf("documentation_url %v", e["documentation_url"])
	}
	if _, ok := e["details"].(map[string]any); !ok {
		t.Fatalf("details is not an object: %s", r.Raw)
	}
}

func TestErrorEnvelopes(t *testing.T) {
	key := env.adminA
	t.Run("unknown route", func(t *testing.T) {
		checkEnvelope(t, call(t, "GET", "/v1/nothing-here", key, nil), 404, "not_found")
	})
	t.Run("missing version prefix names /v1", func(t *testing.T) {
		r := call(t, "GET", "/projects", key, nil)
		checkEnvelope(t, r, 404, "not_found")
		if !strings.Contains(r.Raw2(), "/v1") {
			t.Fatalf("message does not name /v1: %s", r.Raw)
		}
	})
	t.Run("wrong method", func(t *testing.T) {
		r := call(t, "DELETE", "/v1/projects", key, nil)
		checkEnvelope(t, r, 405, "method_not_allowed")
		if !strings.Contains(r.Header.Get("Allow"), "GET") {
			t.Fatalf("Allow: %q", r.Header.Get("Allow"))
		}
	})
	t.Run("malformed json", func(t *testing.T) {
		checkEnvelope(t, call(t, "POST", "/v1/projects", key, `{"name": `), 400, "malformed_request")
	})
	t.Run("wrong type", func(t *testing.T) {
		r := call(t, "POST", "/v1/projects", key, `{"name": 42}`)
		checkEnvelope(t, r, 400, "validation_error")
		if f, _ := r.errDetails()["fields"].([]any); len(f) == 0 {
			t.Fatalf("no details.fields: %s", r.Raw)
		}
	})
	t.Run("missing required field", func(t *testing.T) {
		checkEnvelope(t, call(t, "POST", "/v1/projects", key, `{"description": "x"}`), 400, "validation_error")
	})
	t.Run("wrong content type", func(t *testing.T) {
		checkEnvelope(t, call(t, "POST", "/v1/projects", key, []byte(`name=x`), "Content-Type", "text/plain"), 415, "unsupported_media_type")
	})
	t.Run("oversized body", func(t *testing.T) {
		big := `{"name": "x", "description": "` + strings.Repeat("a", 2<<20) + `"}`
		checkEnvelope(t, call(t, "POST", "/v1/projects", key, big), 413, "payload_too_large")
	})
	t.Run("deep json", func(t *testing.T) {
		deep := `{"name": "x", "settings": ` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
		r := call(t, "POST", "/v1/projects", key, deep)
		if r.Status != 400 {
			t.Fatalf("status %d: %.200s", r.Status, r.Raw)
		}
	})
	t.Run("path traversal", func(t *testing.T) {
		checkEnvelope(t, call(t, "GET", "/v1/projects/../api-keys", key, nil), 404, "not_found")
	})
	t.Run("documentation page", func(t *testing.T) {
		r := call(t, "GET", "/v1/docs/errors/not_found", "", nil).expect(t, 200)
		if !strings.Contains(string(r.Raw), "not_found") {
			t.Fatal("page does not describe the code")
		}
		checkEnvelope(t, call(t, "GET", "/v1/docs/errors/nope", "", nil), 404, "not_found")
	})
}

func (r *response) Raw2() string { return string(r.Raw) }

func TestPanicIsEnvelope(t *testing.T) {
	transport.Register(env.server.api, huma.Operation{OperationID: "testPanic", Method: http.MethodGet, Path: "/test/panic", Hidden: true}, "",
		func(ctx context.Context, _ *struct{}) (*struct{}, error) { panic("boom") })
	r := call(t, "GET", "/v1/test/panic", "", nil)
	checkEnvelope(t, r, 500, "internal_error")
	if strings.Contains(string(r.Raw), "boom") || strings.Contains(string(r.Raw), "goroutine") {
		t.Fatalf("panic leaked: %s", r.Raw)
	}
}

func TestDeprecationHeaders(t *testing.T) {
	sunset := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	transport.Register(env.server.api, huma.Operation{
		OperationID: "testDeprecated", Method: http.MethodGet, Path: "/test/deprecated", Hidden: true,
		Metadata: map[string]any{transport.MetaDeprecation: transport.Deprecation{Since: time.Unix(1700000000, 0), Sunset: sunset, Guide: "https://disco.dev/migrate"}},
	}, "", func(ctx context.Context, _ *struct{}) (*struct{ Body map[string]string }, error) {
		return &struct{ Body map[string]string }{Body: map[string]string{"ok": "yes"}}, nil
	})
	r := call(t, "GET", "/v1/test/deprecated", "", nil).expect(t, 200)
	if r.Header.Get("Deprecation") != "@1700000000" || r.Header.Get("Sunset") != "Fri, 01 Jan 2027 00:00:00 GMT" ||
		!strings.Contains(r.Header.Get("Link"), "https://disco.dev/migrate") {
		t.Fatalf("headers: %v", r.Header)
	}
	r = call(t, "GET", "/v1/projects", env.adminA, nil).expect(t, 200)
	if r.Header.Get("Deprecation") != "" {
		t.Fatal("a current operation is marked deprecated")
	}
}

func TestOpenAPI(t *testing.T) {
	r := call(t, "GET", "/v1/openapi.json", "", nil).expect(t, 200)
	if r.JSON["openapi"] != "3.1.0" {
		t.Fatalf("openapi %v", r.JSON["openapi"])
	}
	paths := r.JSON["paths"].(map[string]any)
	for p, item := range paths {
		for m, op := range item.(map[string]any) {
			o := op.(map[string]any)
			if o["operationId"] == nil {
				continue
			}
			sec, _ := o["security"].([]any)
			public := map[any]bool{"exchangeToken": true, "revokeToken": true, "authorizePage": true, "authorizeDecision": true, "getLedgerVerifierKey": true}
			if !public[o["operationId"]] && len(sec) == 0 {
				t.Errorf("%s %s has no security requirement", m, p)
			}
			for code, resp := range o["responses"].(map[string]any) {
				h, _ := resp.(map[string]any)["headers"].(map[string]any)
				if h["X-RateLimit-Limit"] == nil {
					t.Errorf("%s %s %s lacks rate-limit headers", m, p, code)
				}
			}
		}
	}
}
