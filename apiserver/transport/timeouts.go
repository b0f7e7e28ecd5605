package transport

import (
	"errors"
	"io"
	"net/http"
	"time"
)

// Timeouts bound how long a client may hold a connection of the facade without making
// progress (issue 17: a stalled body held a connection for minutes). Zero fields take
// the defaults.
type Timeouts struct {
	// ReadHeader bounds reading a request's line and headers (default 10 s).
	ReadHeader time.Duration
	// Idle bounds a keep-alive connection waiting for its next request (default 120 s).
	Idle time.Duration
	// BodyStall is the longest wait for the next bytes of a request body (default 30 s).
	BodyStall time.Duration
	// Body bounds reading the whole body of a request other than a dataset upload,
	// counted from the start of the request (default 30 s; those bodies are at most
	// 1 MiB).
	Body time.Duration
	// Upload bounds reading the whole body of a dataset upload (default 1 h: 512 MiB at
	// 150 KB/s). A stalled upload still ends after BodyStall.
	Upload time.Duration
}

// Default timeouts; see Timeouts.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultBodyStallTimeout  = 30 * time.Second
	DefaultBodyTimeout       = 30 * time.Second
	DefaultUploadTimeout     = time.Hour
)

// Timeouts returns Config.Timeouts with the defaults filled in.
func (f *Front) Timeouts() Timeouts { return f.cfg.Timeouts.withDefaults() }

func (t Timeouts) withDefaults() Timeouts {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.ReadHeader, DefaultReadHeaderTimeout)
	def(&t.Idle, DefaultIdleTimeout)
	def(&t.BodyStall, DefaultBodyStallTimeout)
	def(&t.Body, DefaultBodyTimeout)
	def(&t.Upload, DefaultUploadTimeout)
	return t
}

// HTTPServer returns the server every listener of the facade uses, serving h:
// Config.Timeouts' header and idle limits and at most 1 MiB of headers. Request bodies
// are bounded by BodyDeadlines (the facade's Handler and Guard use it), so h must be
// made of them. There is no write timeout: downloads of large artifacts and
// datasets may take long, and a client that stops reading is bounded by TCP.
func (f *Front) HTTPServer(addr string, h http.Handler) *http.Server {
	t := f.Timeouts()
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    1 << 20,
	}
}

// BodyDeadlines bounds the time a request body may take. Before every read of the body
// the connection's read deadline moves to BodyStall from now, but never past the
// request's whole-body limit (Timeouts.Body, or Timeouts.Upload for Config.UploadPath),
// so a client that stops sending, or sends a byte now and then, is cut off while a
// large upload that keeps moving is not. A read that times out fails with an error
// RequestBodyError answers 408. The deadline is lifted once the body has been read to
// its end: net/http then reads the connection in the background to notice a client
// going away, and a deadline there would cancel a handler still working. A body the
// handler leaves unread gets BodyStall for net/http to discard it after the handler.
func (f *Front) BodyDeadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
			next.ServeHTTP(w, r)
			return
		}
		t := f.Timeouts()
		limit := t.Body
		if r.Method == http.MethodPost && f.cfg.UploadPath.MatchString(r.URL.Path) {
			limit = t.Upload
		}
		b := &deadlineBody{
			ReadCloser: r.Body,
			rc:         http.NewResponseController(w),
			stall:      t.BodyStall,
			end:        time.Now().Add(limit),
		}
		b.arm()
		r.Body = b
		next.ServeHTTP(w, r)
		if !b.done && !b.unsupported {
			_ = b.rc.SetReadDeadline(time.Now().Add(b.stall))
		}
	})
}

// deadlineBody is a request body whose every read carries a deadline; see BodyDeadlines.
type deadlineBody struct {
	io.ReadCloser
	rc          *http.ResponseController
	stall       time.Duration
	end         time.Time
	done        bool // read to its end; the deadline is lifted
	unsupported bool // the connection has no deadlines (an in-process request)
}

// arm sets the read deadline for the next read.
func (b *deadlineBody) arm() {
	if b.unsupported || b.done {
		return
	}
	d := time.Now().Add(b.stall)
	if d.After(b.end) {
		d = b.end
	}
	if err := b.rc.SetReadDeadline(d); err != nil {
		b.unsupported = true
	}
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	b.arm()
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		if !b.done && !b.unsupported {
			b.done = true
			_ = b.rc.SetReadDeadline(time.Time{})
		}
	case errors.Is(err, http.ErrBodyReadAfterClose):
		// The handler's own mistake, not the client's.
	default:
		err = &bodyReadError{err: err}
	}
	return n, err
}

// bodyReadError marks an error that came from reading the client's request body (the
// connection broke, the body ended before its Content-Length, its chunked framing was
// malformed, or the read timed out), as opposed to a fault of the server.
type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "read the request body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }
