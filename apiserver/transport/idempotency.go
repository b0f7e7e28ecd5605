package transport

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/internal/store"
)

// maxReplayBody bounds the response we keep for replay; every POST of the API answers
// with a small JSON object, far below it.
const maxReplayBody = 1 << 20

// replayHeaders are the response headers stored with a response and sent again on replay.
var replayHeaders = []string{"Content-Type", "Location", "Deprecation", "Sunset", "Link"}

// Idempotency implements the Idempotency-Key header on POST: the first response to a key
// is stored with the SHA-256 of the request body; a repeat with the same body gets that
// response again (Idempotent-Replayed: true), with a different body 409
// idempotency_key_reused. Keys are per tenant and principal (see idempotencyPrincipal).
// While the first request is still running a repeat gets 409 idempotency_key_in_flight
// rather than a second execution.
func (f *Front) Idempotency(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		c := auth.CallerFrom(r.Context())
		if r.Method != http.MethodPost || key == "" || c.Tenant == nil || c.Principal == nil {
			next.ServeHTTP(w, r)
			return
		}
		if len(key) > 255 || strings.ContainsFunc(key, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
			Fail(w, r, apierror.Invalid("header.Idempotency-Key", "must be 1 to 255 visible ASCII characters"))
			return
		}
		tenantID, principal := c.Tenant.ID, idempotencyPrincipal(c.Principal)
		lockKey := tenantID + "\x00" + principal + "\x00" + key
		if !f.idem.tryLock(lockKey) {
			Fail(w, r, apierror.New(http.StatusConflict, apierror.CodeIdempotencyInFlight,
				"a request with this Idempotency-Key is still being processed"))
			return
		}
		defer f.idem.unlock(lockKey)

		rec, err := f.cfg.Store.GetIdempotent(r.Context(), tenantID, principal, key)
		switch {
		case err == nil:
			sum, err := bodyDigest(r)
			if err != nil {
				Fail(w, r, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "could not read the request body"))
				return
			}
			if sum != rec.BodySHA256 || rec.Method != r.Method || rec.Path != r.URL.Path {
				Fail(w, r, apierror.New(http.StatusConflict, apierror.CodeIdempotencyReused,
					"this Idempotency-Key was already used with a different request").With("idempotency_key", key))
				return
			}
			h := w.Header()
			for k, v := range rec.Header {
				h[k] = v
			}
			h.Set("Idempotent-Replayed", "true")
			w.WriteHeader(rec.Status)
			_, _ = w.Write(rec.Body)
			return
		case !errors.Is(err, store.ErrNotFound):
			Fail(w, r, apierror.Internal(err))
			return
		}

		hr := &hashingReader{r: r.Body, h: newDigest(r)}
		r.Body = hr
		rw := &recordingWriter{ResponseWriter: w}
		next.ServeHTTP(rw, r)

		// Only complete answers are stored: a 5xx or 429 may succeed when retried, and a
		// body the handler did not read to the end has no trustworthy digest.
		if rw.status >= 500 || rw.status == http.StatusTooManyRequests || rw.status == 0 || rw.overflow {
			return
		}
		if n, _ := io.Copy(io.Discard, io.LimitReader(hr, MaxJSONBody)); n == MaxJSONBody || !hr.eof {
			return
		}
		header := http.Header{}
		for _, k := range replayHeaders {
			if v := rw.Header().Get(k); v != "" {
				header.Set(k, v)
			}
		}
		err = f.cfg.Store.PutIdempotent(r.Context(), store.IdempotencyRecord{
			TenantID: tenantID, Principal: principal, Key: key, Method: r.Method, Path: r.URL.Path,
			BodySHA256: hr.h.sum(),
			Status:     rw.status, Header: header, Body: rw.body.Bytes(),
		})
		if err != nil && !errors.Is(err, store.ErrConflict) {
			f.cfg.Log.Error(err, "storing idempotency record", "request_id", RequestID(r.Context()))
		}
	})
}

// idempotencyPrincipal names the namespace of a caller's idempotency keys: the kind of
// credential, who acts (API key id or user id) and the exact grant, scopes and projects.
// A stored response is the result of an authorised operation; replaying it to any other
// principal, or to the same one after its grant changed, would hand out what the
// replaying caller may not be allowed to see or do (issue 17). Such a request runs as a
// new one and meets its own authorisation.
func idempotencyPrincipal(p *auth.Principal) string {
	h := sha256.New()
	for _, list := range [][]string{p.Scopes, p.ProjectIDs} {
		for _, v := range slices.Compact(slices.Sorted(slices.Values(list))) {
			h.Write([]byte(v))
			h.Write([]byte{0})
		}
		h.Write([]byte{1})
	}
	return p.Kind + ":" + p.Actor + ":" + hex.EncodeToString(h.Sum(nil)[:16])
}

func bodyDigest(r *http.Request) (string, error) {
	d := newDigest(r)
	if _, err := io.Copy(d, r.Body); err != nil {
		return "", err
	}
	return d.sum(), nil
}

// digest hashes a request body for idempotency. Multipart bodies are hashed with their
// boundary removed: clients pick a fresh random boundary for every attempt, so the raw
// bytes of a retried upload differ while the request is the same.
type digest struct {
	h   hash.Hash
	pat []byte
	buf []byte
}

func newDigest(r *http.Request) *digest {
	d := &digest{h: sha256.New()}
	if mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && strings.HasPrefix(mt, "multipart/") && params["boundary"] != "" {
		d.pat = []byte(params["boundary"])
	}
	return d
}

// Write adds p to the digest; it never fails, as a hash.Hash's Write never does.
func (d *digest) Write(p []byte) (int, error) {
	d.add(p)
	return len(p), nil
}

func (d *digest) add(p []byte) {
	if d.pat == nil {
		d.h.Write(p)
		return
	}
	d.buf = append(d.buf, p...)
	for {
		i := bytes.Index(d.buf, d.pat)
		if i < 0 {
			break
		}
		d.h.Write(d.buf[:i])
		d.buf = d.buf[i+len(d.pat):]
	}
	// Keep what could be the start of a boundary split across writes.
	if keep := len(d.pat) - 1; len(d.buf) > keep {
		d.h.Write(d.buf[:len(d.buf)-keep])
		d.buf = append([]byte(nil), d.buf[len(d.buf)-keep:]...)
	}
}

func (d *digest) sum() string {
	d.h.Write(d.buf)
	d.buf = nil
	return hex.EncodeToString(d.h.Sum(nil))
}

type hashingReader struct {
	r   io.ReadCloser
	h   *digest
	eof bool
}

func (h *hashingReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.add(p[:n])
	if err == io.EOF {
		h.eof = true
	}
	return n, err
}

func (h *hashingReader) Close() error { return h.r.Close() }

// recordingWriter passes the response through and keeps a copy for replay.
type recordingWriter struct {
	http.ResponseWriter
	status   int
	body     bytes.Buffer
	overflow bool
}

func (w *recordingWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *recordingWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.body.Len()+len(b) > maxReplayBody {
		w.overflow = true
	} else {
		w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *recordingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// keyLocks is a set of in-flight idempotency keys.
type keyLocks struct {
	mu sync.Mutex
	m  map[string]struct{}
}

func newKeyLocks() *keyLocks { return &keyLocks{m: map[string]struct{}{}} }

func (l *keyLocks) tryLock(k string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, busy := l.m[k]; busy {
		return false
	}
	l.m[k] = struct{}{}
	return true
}

func (l *keyLocks) unlock(k string) {
	l.mu.Lock()
	delete(l.m, k)
	l.mu.Unlock()
}
