package api

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"
)

// HandlerTransport is an http.RoundTripper that serves each request with h in this
// process: the dashboard reaches the REST API through the facade's own handler (and so
// through all of its middleware) without a network hop. The response body streams: the
// round trip returns once the handler has written its headers, and the body is read
// while the handler writes it. A handler that sets read deadlines (the facade bounds slow
// request bodies) sets them on the browser's connection when the request's context
// carries it (WithDeadlines).
func HandlerTransport(h http.Handler) http.RoundTripper { return handlerTransport{h} }

type handlerTransport struct{ h http.Handler }

type deadlineKey struct{}

// WithDeadlines lets in-process requests made with ctx set read deadlines on the
// connection of the incoming request whose ResponseController rc is.
func WithDeadlines(ctx context.Context, rc *http.ResponseController) context.Context {
	return context.WithValue(ctx, deadlineKey{}, rc)
}

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if r.RemoteAddr == "" {
		r.RemoteAddr = "127.0.0.1:0"
	}
	r.RequestURI = r.URL.RequestURI() // as a server-side request has it
	r.Host = req.URL.Host
	if r.Body == nil {
		r.Body = http.NoBody
	}
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	if rc, ok := req.Context().Value(deadlineKey{}).(*http.ResponseController); ok {
		w.rc = rc
	}
	go func() {
		defer func() {
			if p := recover(); p != nil {
				w.fail(http.StatusInternalServerError)
			}
			w.WriteHeader(http.StatusOK)
			_ = pw.Close()
		}()
		t.h.ServeHTTP(w, r)
	}()
	select {
	case <-w.ready:
	case <-req.Context().Done():
		_ = pr.CloseWithError(req.Context().Err())
		return nil, req.Context().Err()
	}
	return &http.Response{
		Status: http.StatusText(w.status), StatusCode: w.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.sent, Body: pr, ContentLength: -1, Request: req,
	}, nil
}

// pipeWriter is the handler's ResponseWriter: headers are handed over on the first write,
// the body goes through a pipe.
type pipeWriter struct {
	header http.Header
	sent   http.Header
	status int
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	rc     *http.ResponseController
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) {
	if code >= 100 && code < 200 {
		return // informational answers are not the response
	}
	w.once.Do(func() {
		w.status = code
		w.sent = w.header.Clone()
		close(w.ready)
	})
}

func (w *pipeWriter) fail(code int) { w.WriteHeader(code) }

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(p)
}

// Flush lets streaming handlers flush; the pipe has no buffer to flush.
func (w *pipeWriter) Flush() {}

// SetReadDeadline moves the browser connection's read deadline (see WithDeadlines).
func (w *pipeWriter) SetReadDeadline(d time.Time) error {
	if w.rc == nil {
		return http.ErrNotSupported
	}
	return w.rc.SetReadDeadline(d)
}
