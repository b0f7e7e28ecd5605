package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"
)

func signedHeader(secret, id string, t time.Time, body []byte) http.Header {
	h := http.Header{}
	Sign(secret, id, t, body).Apply(h)
	return h
}

func TestSignFormat(t *testing.T) {
	at := time.Unix(1700000000, 0)
	body := []byte(`{"id":"evt_1"}`)
	h := Sign("k", "evt_1", at, body)
	m := hmac.New(sha256.New, []byte("k"))
	m.Write([]byte("evt_1.1700000000." + string(body)))
	want := hex.EncodeToString(m.Sum(nil))
	if h.Signature != "t=1700000000,v1="+want {
		t.Errorf("X-Service-Signature = %q", h.Signature)
	}
	if h.ID != "evt_1" || h.Timestamp != "1700000000" || h.StandardSignature[:3] != "v1," {
		t.Errorf("standard headers = %+v", h)
	}
}

func TestVerify(t *testing.T) {
	now := time.Unix(1700000000, 0)
	body := []byte(`{"id":"evt_1","type":"run.completed"}`)
	tests := []struct {
		name    string
		header  func() http.Header
		body    []byte
		wantErr error
	}{
		{"valid", func() http.Header { return signedHeader("k", "evt_1", now, body) }, body, nil},
		{"299s old", func() http.Header { return signedHeader("k", "evt_1", now.Add(-299*time.Second), body) }, body, nil},
		{"301s old", func() http.Header { return signedHeader("k", "evt_1", now.Add(-301*time.Second), body) }, body, ErrTimestamp},
		{"301s ahead", func() http.Header { return signedHeader("k", "evt_1", now.Add(301*time.Second), body) }, body, ErrTimestamp},
		{"tampered body", func() http.Header { return signedHeader("k", "evt_1", now, body) }, []byte(`{"id":"evt_1","type":"run.failed"}`), ErrSignatureMismatch},
		{"wrong secret", func() http.Header { return signedHeader("other", "evt_1", now, body) }, body, ErrSignatureMismatch},
		{"other event id", func() http.Header {
			h := signedHeader("k", "evt_1", now, body)
			h.Set(StandardIDHeader, "evt_2")
			return h
		}, body, ErrSignatureMismatch},
		{"event id from body", func() http.Header {
			h := signedHeader("k", "evt_1", now, body)
			h.Del(StandardIDHeader)
			return h
		}, body, nil},
		{"standard headers only", func() http.Header {
			h := signedHeader("k", "evt_1", now, body)
			h.Del(SignatureHeader)
			return h
		}, body, nil},
		{"standard headers, rotated secret first", func() http.Header {
			h := signedHeader("k", "evt_1", now, body)
			old := Sign("old", "evt_1", now, body)
			h.Del(SignatureHeader)
			h.Set(StandardSignatureHeader, old.StandardSignature+" "+h.Get(StandardSignatureHeader))
			return h
		}, body, nil},
		{"timestamp swapped", func() http.Header {
			h := signedHeader("k", "evt_1", now, body)
			h.Set(SignatureHeader, "t="+strconv.FormatInt(now.Unix()+1, 10)+","+h.Get(SignatureHeader)[len("t=1700000000,"):])
			return h
		}, body, ErrSignatureMismatch},
		{"no headers", func() http.Header { return http.Header{} }, body, ErrNoSignature},
		{"garbage", func() http.Header { return http.Header{SignatureHeader: {"nonsense"}} }, body, ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify("k", tt.header(), tt.body, now, 0)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Verify = %v, want %v", err, tt.wantErr)
			}
		})
	}
}
