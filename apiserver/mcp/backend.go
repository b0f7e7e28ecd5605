// Package mcp is disco's tool-calling (agent) interface: a Model Context Protocol server
// whose every tool issues the corresponding REST request to the facade and returns its JSON,
// forwarding the caller's Bearer credential unchanged. Authentication, scopes, tenant
// isolation, rate limits and governance are therefore exactly the REST API's; over HTTP
// every MCP request itself is also authenticated and counted like a REST request.
//
// It is served stateless over streamable HTTP at /v1/mcp (Facade: NewHTTPHandler with
// HandlerBackend behind the facade's Guard) and over stdio by `disco mcp` (ServeStdio,
// HTTPBackend).
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// Backend performs a REST request (path relative to /v1, e.g. "/projects", with its query
// string) with the caller's Authorization header value. body, when not nil, is sent as JSON.
type Backend interface {
	Do(ctx context.Context, authorization, method, path string, body any) (status int, respBody []byte, err error)
}

// maxResponse bounds what a tool reads from the facade.
const maxResponse = 8 << 20

type handlerBackend struct {
	rest    http.Handler
	baseURL string
}

// HandlerBackend serves each request in-process with rest (the facade's http.Handler, which
// serves /v1/...), addressed as baseURL+path (baseURL includes /v1, e.g.
// http://127.0.0.1:8080/v1). This is the backend of /v1/mcp inside the facade process.
func HandlerBackend(rest http.Handler, baseURL string) Backend {
	return &handlerBackend{rest: rest, baseURL: strings.TrimSuffix(baseURL, "/")}
}

func (b *handlerBackend) BaseURL() string { return b.baseURL }

func (b *handlerBackend) Do(ctx context.Context, authorization, method, path string, body any) (int, []byte, error) {
	req, err := newRequest(ctx, authorization, method, b.baseURL+path, body)
	if err != nil {
		return 0, nil, err
	}
	if addr := remoteAddrFrom(ctx); addr != "" {
		req.RemoteAddr = addr
	} else {
		req.RemoteAddr = "127.0.0.1:0"
	}
	if req.Host == "" {
		req.Host = "localhost"
	}
	if req.Body == nil {
		req.Body = http.NoBody
	}
	req.RequestURI = req.URL.RequestURI() // as a server-side request has it
	rec := httptest.NewRecorder()
	b.rest.ServeHTTP(rec, req)
	out := rec.Body.Bytes()
	if len(out) > maxResponse {
		out = out[:maxResponse]
	}
	return rec.Code, out, nil
}

type httpBackend struct {
	baseURL string
	client  *http.Client
}

// HTTPBackend sends each request to baseURL+path over HTTP (baseURL includes /v1). A nil
// client means one with a 60 s timeout. This is the backend of `disco mcp`.
func HTTPBackend(baseURL string, client *http.Client) Backend {
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	return &httpBackend{baseURL: strings.TrimSuffix(baseURL, "/"), client: client}
}

func (b *httpBackend) BaseURL() string { return b.baseURL }

func (b *httpBackend) Do(ctx context.Context, authorization, method, path string, body any) (int, []byte, error) {
	req, err := newRequest(ctx, authorization, method, b.baseURL+path, body)
	if err != nil {
		return 0, nil, err
	}
	resp, err := b.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return 0, nil, fmt.Errorf("read the response of %s %s: %w", method, path, err)
	}
	return resp.StatusCode, out, nil
}

// rawBody is a request body sent as it is, with its media type: a multipart upload.
type rawBody struct {
	contentType string
	data        []byte
}

func newRequest(ctx context.Context, authorization, method, url string, body any) (*http.Request, error) {
	var rd io.Reader
	contentType := "application/json"
	switch b := body.(type) {
	case nil:
	case rawBody:
		rd, contentType = bytes.NewReader(b.data), b.contentType
	default:
		data, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode the request body: %w", err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "disco-mcp")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	return req, nil
}

type ctxKey int

const (
	authKey ctxKey = iota
	remoteAddrKey
)

// WithAuthorization returns ctx carrying an Authorization header value for the tools.
func WithAuthorization(ctx context.Context, authorization string) context.Context {
	return context.WithValue(ctx, authKey, authorization)
}

// AuthorizationFromContext returns the value WithAuthorization stored, or "".
func AuthorizationFromContext(ctx context.Context) string {
	v, _ := ctx.Value(authKey).(string)
	return v
}

func withRemoteAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, remoteAddrKey, addr)
}

func remoteAddrFrom(ctx context.Context) string {
	v, _ := ctx.Value(remoteAddrKey).(string)
	return v
}
