package apiserver

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"runtime/debug"
	"strings"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/internal/ids"
)

// middleware assembles the outer chain, outermost first: request body deadlines,
// request id, panic recovery, health probes, the aggregated-API path, authentication,
// rate limits, idempotency and finally routing. Everything that can fail here answers
// with the error envelope.
func (s *Server) middleware() http.Handler {
	var h http.Handler = http.HandlerFunc(s.route)
	h = s.idempotency(h)
	h = s.rateLimit(h)
	h = s.authenticate(h)
	h = s.aggregated(h)
	h = s.health(h)
	h = s.recoverer(h)
	h = s.requestIDs(h)
	return s.bodyDeadlines(h)
}

// maxGuardedBody bounds one request body of a guarded handler; MCP messages are small
// JSON objects.
const maxGuardedBody = maxJSONBody

// Guard serves h behind the REST API's own front door (issue 17): body deadlines,
// request ids, panic recovery, authentication and rate limits. Every request needs a
// valid credential and is refused with the same 401 envelope as a REST operation; it
// takes one request from the caller's bucket, or from the client address's when it
// has no valid credential, and is refused 429 beyond it. The body, at most 1 MiB, is
// read before h runs. The MCP agent server at /v1/mcp is served this way
// (apiserver/mcp.Facade); its tools
// call the REST handler in-process with the caller's credential and the guarded
// request's context, and those inner requests are not counted a second time (see
// rateLimit).
func (s *Server) Guard(h http.Handler) http.Handler {
	var g http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := callerFrom(r.Context()); c.principal == nil {
			s.fail(w, r, c.refusal())
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			// Read here, so a body that is too large, cut short or stalled is answered
			// with the envelope like a REST body, whatever h makes of read errors.
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxGuardedBody))
			if err != nil {
				e := requestBodyError(err)
				if e == nil {
					e = internalError(err)
				}
				s.fail(w, r, e)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
	g = s.rateLimit(g)
	g = s.authenticate(g)
	g = s.recoverer(g)
	g = s.requestIDs(g)
	return s.bodyDeadlines(g)
}

// refusal is the answer to a request that needs a credential and has no valid one, for
// REST operations (authorize) and guarded handlers alike.
func (c *caller) refusal() *apiError {
	if c.failure != nil {
		return c.failure
	}
	return apierror.Unauthenticated("missing", "this operation needs a credential: send Authorization: Bearer <API key or session token>")
}

// statusWriter remembers whether and what status was written, so the recoverer knows
// whether an envelope can still be sent.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if h, ok := w.ResponseWriter.(http.Hijacker); ok {
		return h.Hijack()
	}
	return nil, nil, errors.New("hijack not supported")
}

// requestIDs gives every request a fresh req_ id, in the X-Request-Id response header
// and in every error body. Client-sent ids are not trusted: they would let one client
// make its failures look like another's in the logs.
func (s *Server) requestIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.New(ids.Request)
		w.Header().Set("X-Request-Id", id)
		r = r.WithContext(withEnv(r.Context(), &reqEnv{server: s, requestID: id}))
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a logged 500 with the request id; the stack goes to the
// log, never to the client.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error(fmt.Errorf("panic: %v", v), "handler panicked",
				"request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path,
				"stack", string(debug.Stack()))
			if sw.status == 0 {
				s.fail(sw, r, apierror.New(http.StatusInternalServerError, apierror.CodeInternal, "internal error"))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// health serves the probes outside /v1. They are not part of the API: no credential and
// no rate limit, so a busy tenant cannot make the kubelet restart the pod.
func (s *Server) health(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz", "/livez":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("ok\n"))
			return
		case "/readyz":
			if s.opts.Ready != nil {
				if err := s.opts.Ready(r); err != nil {
					s.fail(w, r, apierror.New(http.StatusServiceUnavailable, apierror.CodeUnavailable, "not ready: %v", err))
					return
				}
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte("ok\n"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// captureWriter records what ServeMux's own 404 and 405 handlers would answer, so we can
// answer the same status with our envelope instead of their plain text.
type captureWriter struct {
	header http.Header
	status int
}

func (c *captureWriter) Header() http.Header { return c.header }
func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}
func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return len(b), nil
}

// route dispatches to the mux, answering unmatched paths and methods with the envelope.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if p != "/v1" && !strings.HasPrefix(p, "/v1/") {
		s.fail(w, r, apierror.New(http.StatusNotFound, apierror.CodeNotFound,
			"no such path; every API path starts with the version prefix /v1 (for example /v1/projects)").
			With("path", p).With("version_prefix", "/v1"))
		return
	}
	// ServeMux would answer a non-canonical path (dot segments, double or trailing
	// slashes) with a redirect; an API answers it as what it is: no such resource.
	if path.Clean(p) != p {
		s.fail(w, r, apierror.New(http.StatusNotFound, apierror.CodeNotFound, "no such path: %s", p).With("path", p))
		return
	}
	h, pattern := s.mux.Handler(r)
	if pattern == "" {
		cw := &captureWriter{header: http.Header{}}
		h.ServeHTTP(cw, r)
		if cw.status == http.StatusMethodNotAllowed {
			allow := cw.header.Get("Allow")
			w.Header().Set("Allow", allow)
			s.fail(w, r, apierror.New(http.StatusMethodNotAllowed, apierror.CodeMethodNotAllowed,
				"%s is not allowed on %s", r.Method, p).With("allowed", splitList(allow)))
			return
		}
		s.fail(w, r, apierror.New(http.StatusNotFound, apierror.CodeNotFound, "no such path: %s", p).With("path", p))
		return
	}
	s.mux.ServeHTTP(w, r)
}

func splitList(s string) []string {
	out := []string{}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// clientAddr is the peer address without the port: the rate-limit key of anonymous
// traffic. Forwarding headers are not trusted; a deployment behind a proxy limits there.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
