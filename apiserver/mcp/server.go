package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/internal/ids"
)

type tools struct {
	server        *mcpsdk.Server
	backend       Backend
	authorization func(ctx context.Context) string
}

// NewServer returns an MCP server with disco's tools registered. Each tool issues one REST
// request through b with an Authorization header value: authorization(ctx) when that is
// not empty, otherwise the Authorization header of the HTTP request that carried the tool
// call (streamable HTTP). authorization may be nil.
func NewServer(b Backend, authorization func(ctx context.Context) string) *mcpsdk.Server {
	s := mcpsdk.NewServer(&mcpsdk.Implementation{Name: "disco", Title: "disco scientific discovery service", Version: serverVersion()},
		&mcpsdk.ServerOptions{
			Instructions: "Tools of the disco scientific discovery service; each maps to one REST operation of /v1 and " +
				"returns its JSON. Hierarchy: project > campaigns and datasets; campaign > runs; run > claims. " +
				"Errors come back as tool errors carrying the API error code, message and details; governance " +
				"refusals name the constraint that blocked the operation.",
		})
	t := &tools{server: s, backend: b, authorization: authorization}
	t.register()
	return s
}

func serverVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func (t *tools) authFor(ctx context.Context, req *mcpsdk.CallToolRequest) string {
	if t.authorization != nil {
		if a := t.authorization(ctx); a != "" {
			return a
		}
	}
	if req != nil && req.Extra != nil && req.Extra.Header != nil {
		return req.Extra.Header.Get("Authorization")
	}
	return ""
}

// call performs r and turns the response into a tool result.
func (t *tools) call(ctx context.Context, req *mcpsdk.CallToolRequest, r request) *mcpsdk.CallToolResult {
	status, body, err := t.backend.Do(ctx, t.authFor(ctx, req), r.method, r.path, r.body)
	if err != nil {
		return errorResult(fmt.Sprintf("request_failed: %s %s could not be performed: %v", r.method, r.path, err), nil)
	}
	if status >= 200 && status < 300 {
		return successResult(body)
	}
	return restErrorResult(status, body)
}

func successResult(body []byte) *mcpsdk.CallToolResult {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		body = []byte("{}")
	}
	res := &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: string(body)}}}
	if isJSONObject(body) {
		res.StructuredContent = json.RawMessage(body)
	}
	return res
}

func isJSONObject(b []byte) bool {
	var m map[string]json.RawMessage
	return len(b) > 0 && b[0] == '{' && json.Unmarshal(b, &m) == nil
}

func errorResult(text string, structured any) *mcpsdk.CallToolResult {
	return &mcpsdk.CallToolResult{
		IsError:           true,
		Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: text}},
		StructuredContent: structured,
	}
}

// restErrorResult maps the contract's error envelope to a tool error whose first line is
// "<code>: <message> (constraint: <constraint>)" and whose next lines give the HTTP status,
// the details and the request id.
func restErrorResult(status int, body []byte) *mcpsdk.CallToolResult {
	var env struct {
		Error *apierror.ErrorBody `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Error == nil || env.Error.Code == "" {
		text := strings.TrimSpace(string(body))
		if len(text) > 2000 {
			text = text[:2000] + "..."
		}
		if text == "" {
			text = http.StatusText(status)
		}
		return errorResult(fmt.Sprintf("http_%d: %s", status, text), nil)
	}
	return errorResult(ErrorText(status, env.Error), json.RawMessage(bytes.TrimSpace(body)))
}

// ErrorText renders an API error for a tool result: the code, the message and the
// constraint that blocked the operation on the first line, then the status, the details
// (as JSON), the request id and the documentation URL.
func ErrorText(status int, e *apierror.ErrorBody) string {
	var b strings.Builder
	b.WriteString(e.Code)
	b.WriteString(": ")
	b.WriteString(e.Message)
	if c, ok := e.Details["constraint"]; ok && c != nil && c != "" {
		fmt.Fprintf(&b, " (constraint: %v)", c)
	}
	if e.Status != 0 {
		status = e.Status
	}
	fmt.Fprintf(&b, "\nstatus: %d", status)
	if len(e.Details) > 0 {
		d, err := json.Marshal(e.Details) // encoding/json sorts map keys
		if err == nil {
			fmt.Fprintf(&b, "\ndetails: %s", d)
		}
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, "\nrequest_id: %s", e.RequestID)
	}
	if e.DocumentationURL != "" {
		fmt.Fprintf(&b, "\ndocumentation_url: %s", e.DocumentationURL)
	}
	return b.String()
}

// Path is where the facade serves the MCP server.
const Path = "/v1/mcp"

// Facade serves srv's REST API with the MCP server at Path, as `disco dev` and
// `disco apiserver` do. The MCP server sits behind srv.Guard: every MCP request,
// initialize and tools/list included, is authenticated and rate-limited as a REST
// request is (issue 17), and each tool call then makes its REST request in-process
// with the caller's credential. baseURL is the public base URL including /v1.
func Facade(srv *apiserver.Server, baseURL string) http.Handler {
	rest := srv.Handler()
	mux := http.NewServeMux()
	mux.Handle("/", rest)
	mux.Handle(Path, srv.Guard(NewHTTPHandler(HandlerBackend(rest, baseURL))))
	return mux
}

// NewHTTPHandler serves the tools over streamable HTTP, stateless, with JSON responses.
// Every HTTP request must carry an Authorization header with a Bearer credential, which
// the tools forward unchanged; a request without one is answered 401 with the contract's
// error envelope and a WWW-Authenticate: Bearer challenge. It does not check the
// credential itself: Facade puts it behind the facade's authentication and rate limits,
// and what a credential may do is decided by the REST operation each tool call makes.
func NewHTTPHandler(b Backend) http.Handler {
	server := NewServer(b, AuthorizationFromContext)
	h := mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server { return server },
		&mcpsdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	docsBase := "/v1"
	if bu, ok := b.(interface{ BaseURL() string }); ok && bu.BaseURL() != "" {
		docsBase = bu.BaseURL()
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		authz := r.Header.Get("Authorization")
		scheme, cred, _ := strings.Cut(strings.TrimSpace(authz), " ")
		var e *apierror.Error
		switch {
		case authz == "":
			e = apierror.Unauthenticated("missing", "this operation needs a credential: send Authorization: Bearer <API key or session token>")
		case !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(cred) == "":
			e = apierror.Unauthenticated("malformed", "the Authorization header must be \"Bearer <credential>\"")
		}
		if e != nil {
			reqID := r.Header.Get("X-Request-Id")
			if !strings.HasPrefix(reqID, ids.Request+"_") {
				reqID = ids.New(ids.Request)
			}
			w.Header().Set("X-Request-Id", reqID)
			apierror.Write(w, e, reqID, docsBase)
			return
		}
		ctx := withRemoteAddr(WithAuthorization(r.Context(), authz), r.RemoteAddr)
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// ServeStdio serves the tools over stdio (newline-delimited JSON-RPC on in and out) until
// ctx ends or in is closed, calling the REST API at baseURL (including /v1) with apiKey as
// the Bearer credential.
func ServeStdio(ctx context.Context, baseURL, apiKey string, in io.Reader, out io.Writer) error {
	if strings.TrimSpace(apiKey) == "" {
		return errors.New("mcp: no credential: set DISCO_API_KEY to an API key or session token")
	}
	if baseURL == "" {
		return errors.New("mcp: no base URL")
	}
	authz := "Bearer " + strings.TrimSpace(apiKey)
	server := NewServer(HTTPBackend(baseURL, nil), func(context.Context) string { return authz })
	err := server.Run(ctx, &mcpsdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)) {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
