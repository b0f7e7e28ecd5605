package apiserver

import (
	"net/http"
	"regexp"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/transport"
)

// middleware assembles the outer chain, outermost first: request body deadlines,
// request id, panic recovery, health probes, the aggregated-API path, authentication,
// rate limits, idempotency and finally routing. Everything that can fail here answers
// with the error envelope.
func (s *Server) middleware() http.Handler {
	h := transport.Route(s.mux)
	h = s.front.Idempotency(h)
	h = s.front.RateLimit(h)
	h = s.authn.Middleware(h)
	h = s.aggregated(h)
	h = s.health(h)
	h = s.front.Recoverer(h)
	h = s.front.RequestIDs(h)
	return s.front.BodyDeadlines(h)
}

// Guard serves h behind the REST API's own front door (transport.Front.Guard): body
// deadlines, request ids, panic recovery, authentication and rate limits; every request
// needs a valid credential. The MCP agent server at /v1/mcp is served this way.
func (s *Server) Guard(h http.Handler) http.Handler { return s.front.Guard(h) }

// HTTPServer returns the server every listener of the facade uses, serving h (nil: the
// facade's Handler), with Options.Timeouts' header and idle limits
// (transport.Front.HTTPServer).
func (s *Server) HTTPServer(addr string, h http.Handler) *http.Server {
	if h == nil {
		h = s.handler
	}
	return s.front.HTTPServer(addr, h)
}

// uploadPath matches the dataset upload, whose body may be hundreds of megabytes, under
// /v1 and under the aggregated API's prefix.
var uploadPath = regexp.MustCompile(`^(/v1|` + regexp.QuoteMeta(aggregatedVersion) + `)/projects/[^/]+/datasets/?$`)

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
					transport.Fail(w, r, apierror.New(http.StatusServiceUnavailable, apierror.CodeUnavailable, "not ready: %v", err))
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
