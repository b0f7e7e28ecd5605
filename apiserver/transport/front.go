package transport

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-logr/logr"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/ratelimit"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// Config is what the front door needs.
type Config struct {
	Log logr.Logger
	// DocsBase is the public base of the documentation links in error bodies (…/v1).
	DocsBase string
	// Now is the clock of the rate-limit headers; nil means time.Now.
	Now func() time.Time
	// Store keeps idempotency records.
	Store *store.Store
	// Limiter counts requests per bucket.
	Limiter ratelimit.Limiter
	// Limits overrides the per-tier rate limits; nil keeps DESIGN.md's.
	Limits *Limits
	// Timeouts bound slow clients; zero fields take the defaults.
	Timeouts Timeouts
	// UploadPath matches the request paths whose bodies may be as large as a dataset
	// upload (Timeouts.Upload instead of Timeouts.Body).
	UploadPath *regexp.Regexp
	// Authenticate resolves the request's credential into its auth.Caller.
	Authenticate func(http.Handler) http.Handler
}

// Front holds the middleware of the facade's front door. Limits is the rate-limit table
// in force, defaults applied.
type Front struct {
	cfg    Config
	now    func() time.Time
	Limits Limits
	idem   *keyLocks
}

// NewFront builds the front door.
func NewFront(cfg Config) *Front {
	f := &Front{cfg: cfg, now: cfg.Now, Limits: limitsFrom(cfg.Limits), idem: newKeyLocks()}
	if f.now == nil {
		f.now = time.Now
	}
	if f.cfg.UploadPath == nil {
		f.cfg.UploadPath = regexp.MustCompile(`^$`)
	}
	return f
}

// maxGuardedBody bounds one request body of a guarded handler; MCP messages are small
// JSON objects.
const maxGuardedBody = MaxJSONBody

// Guard serves h behind the REST API's own front door (issue 17): body deadlines,
// request ids, panic recovery, authentication and rate limits. Every request needs a
// valid credential and is refused with the same 401 envelope as a REST operation; it
// takes one request from the caller's bucket, or from the client address's when it
// has no valid credential, and is refused 429 beyond it. The body, at most 1 MiB, is
// read before h runs. The MCP agent server at /v1/mcp is served this way
// (apiserver/mcp.Facade); its tools
// call the REST handler in-process with the caller's credential and the guarded
// request's context, and those inner requests are not counted a second time (see
// RateLimit).
func (f *Front) Guard(h http.Handler) http.Handler {
	var g http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c := auth.CallerFrom(r.Context()); c.Principal == nil {
			Fail(w, r, c.Refusal())
			return
		}
		if r.Body != nil && r.Body != http.NoBody {
			// Read here, so a body that is too large, cut short or stalled is answered
			// with the envelope like a REST body, whatever h makes of read errors.
			body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxGuardedBody))
			if err != nil {
				e := RequestBodyError(err)
				if e == nil {
					e = apierror.Internal(err)
				}
				Fail(w, r, e)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
	g = f.RateLimit(g)
	g = f.cfg.Authenticate(g)
	g = f.Recoverer(g)
	g = f.RequestIDs(g)
	return f.BodyDeadlines(g)
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

// RequestIDs gives every request a fresh req_ id, in the X-Request-Id response header
// and in every error body. Client-sent ids are not trusted: they would let one client
// make its failures look like another's in the logs.
func (f *Front) RequestIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ids.New(ids.Request)
		w.Header().Set("X-Request-Id", id)
		r = r.WithContext(withEnv(r.Context(), &reqEnv{log: f.cfg.Log, docsBase: f.cfg.DocsBase, requestID: id}))
		next.ServeHTTP(w, r)
	})
}

// Recoverer turns a panic into a logged 500 with the request id; the stack goes to the
// log, never to the client.
func (f *Front) Recoverer(next http.Handler) http.Handler {
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
			f.cfg.Log.Error(fmt.Errorf("panic: %v", v), "handler panicked",
				"request_id", RequestID(r.Context()), "method", r.Method, "path", r.URL.Path,
				"stack", string(debug.Stack()))
			if sw.status == 0 {
				Fail(sw, r, apierror.New(http.StatusInternalServerError, apierror.CodeInternal, "internal error"))
			}
		}()
		next.ServeHTTP(sw, r)
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

// Route dispatches to mux, answering unmatched paths and methods with the envelope.
func Route(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if p != "/v1" && !strings.HasPrefix(p, "/v1/") {
			Fail(w, r, apierror.New(http.StatusNotFound, apierror.CodeNotFound,
				"no such path; every API path starts with the version prefix /v1 (for example /v1/projects)").
				With("path", p).With("version_prefix", "/v1"))
			return
		}
		// ServeMux would answer a non-canonical path (dot segments, double or trailing
		// slashes) with a redirect; an API answers it as what it is: no such resource.
		if path.Clean(p) != p {
			Fail(w, r, apierror.New(http.StatusNotFound, apierror.CodeNotFound, "no such path: %s", p).With("path", p))
			return
		}
		h, pattern := mux.Handler(r)
		if pattern == "" {
			cw := &captureWriter{header: http.Header{}}
			h.ServeHTTP(cw, r)
			if cw.status == http.StatusMethodNotAllowed {
				allow := cw.header.Get("Allow")
				w.Header().Set("Allow", allow)
				Fail(w, r, apierror.New(http.StatusMethodNotAllowed, apierror.CodeMethodNotAllowed,
					"%s is not allowed on %s", r.Method, p).With("allowed", splitList(allow)))
				return
			}
			Fail(w, r, apierror.New(http.StatusNotFound, apierror.CodeNotFound, "no such path: %s", p).With("path", p))
			return
		}
		mux.ServeHTTP(w, r)
	})
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

// ClientAddr is the peer address without the port: the rate-limit key of anonymous
// traffic. Forwarding headers are not trusted; a deployment behind a proxy limits there.
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
