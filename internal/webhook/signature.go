package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names of a signed delivery. SignatureHeader is disco's own; the other
// three follow Standard Webhooks (standardwebhooks.com) so generic receivers work.
const (
	SignatureHeader         = "X-Service-Signature"
	StandardIDHeader        = "webhook-id"
	StandardTimestampHeader = "webhook-timestamp"
	StandardSignatureHeader = "webhook-signature"
)

// DefaultTolerance is how far a delivery's timestamp may be from the receiver's
// clock before Verify refuses it as a possible replay.
const DefaultTolerance = 300 * time.Second

// Verification errors.
var (
	ErrNoSignature       = errors.New("webhook: no signature header")
	ErrMalformed         = errors.New("webhook: malformed signature header")
	ErrTimestamp         = errors.New("webhook: timestamp outside tolerance")
	ErrSignatureMismatch = errors.New("webhook: signature mismatch")
)

// Headers are the signature headers of one delivery attempt.
type Headers struct {
	Signature         string // X-Service-Signature: t=<unix>,v1=<hex>
	ID                string // webhook-id: the event id
	Timestamp         string // webhook-timestamp: unix seconds
	StandardSignature string // webhook-signature: v1,<base64>
}

// Apply sets the headers on h.
func (s Headers) Apply(h http.Header) {
	h.Set(SignatureHeader, s.Signature)
	h.Set(StandardIDHeader, s.ID)
	h.Set(StandardTimestampHeader, s.Timestamp)
	h.Set(StandardSignatureHeader, s.StandardSignature)
}

// Sign computes the headers for sending body as event eventID at time t. The MAC
// covers "<event id>.<t>.<body>": binding the id and time to the bytes stops a
// captured delivery from being replayed later or under another id.
func Sign(secret string, eventID string, t time.Time, body []byte) Headers {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := computeMAC(secret, eventID, ts, body)
	return Headers{
		Signature:         "t=" + ts + ",v1=" + hex.EncodeToString(mac),
		ID:                eventID,
		Timestamp:         ts,
		StandardSignature: "v1," + base64.StdEncoding.EncodeToString(mac),
	}
}

func computeMAC(secret, eventID, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(eventID))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// Verify checks a received delivery: X-Service-Signature when present, otherwise
// the Standard Webhooks headers. The event id comes from webhook-id, or from the
// body's "id" when a proxy dropped that header. A timestamp more than tolerance
// (DefaultTolerance when <= 0) away from now is refused. Several v1 values may be
// present (secret rotation); any one matching is enough.
func Verify(secret string, headers http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	ts, sigs, err := parseSignatures(headers)
	if err != nil {
		return err
	}
	unix, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q", ErrMalformed, ts)
	}
	if skew := now.Sub(time.Unix(unix, 0)); skew > tolerance || skew < -tolerance {
		return ErrTimestamp
	}
	eventID := headers.Get(StandardIDHeader)
	if eventID == "" {
		var env struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(body, &env) != nil || env.ID == "" {
			return fmt.Errorf("%w: no event id", ErrMalformed)
		}
		eventID = env.ID
	}
	want := computeMAC(secret, eventID, ts, body)
	ok := false
	for _, s := range sigs {
		// Keep comparing after a match so timing does not reveal which one matched.
		ok = hmac.Equal(s, want) || ok
	}
	if !ok {
		return ErrSignatureMismatch
	}
	return nil
}

// parseSignatures returns the signed timestamp and the decoded v1 MACs.
func parseSignatures(h http.Header) (string, [][]byte, error) {
	if v := h.Get(SignatureHeader); v != "" {
		var ts string
		var sigs [][]byte
		for part := range strings.SplitSeq(v, ",") {
			k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				return "", nil, fmt.Errorf("%w: %q", ErrMalformed, part)
			}
			switch k {
			case "t":
				ts = val
			case "v1":
				b, err := hex.DecodeString(val)
				if err != nil {
					return "", nil, fmt.Errorf("%w: v1 is not hex", ErrMalformed)
				}
				sigs = append(sigs, b)
			}
		}
		if ts == "" || len(sigs) == 0 {
			return "", nil, fmt.Errorf("%w: needs t and v1", ErrMalformed)
		}
		return ts, sigs, nil
	}
	v := h.Get(StandardSignatureHeader)
	if v == "" {
		return "", nil, ErrNoSignature
	}
	ts := h.Get(StandardTimestampHeader)
	if ts == "" {
		return "", nil, fmt.Errorf("%w: no %s", ErrMalformed, StandardTimestampHeader)
	}
	var sigs [][]byte
	for _, part := range strings.Fields(v) {
		ver, val, ok := strings.Cut(part, ",")
		if !ok || ver != "v1" {
			continue // other versions (e.g. v1a asymmetric) are not ours to check
		}
		b, err := base64.StdEncoding.DecodeString(val)
		if err != nil {
			return "", nil, fmt.Errorf("%w: v1 is not base64", ErrMalformed)
		}
		sigs = append(sigs, b)
	}
	if len(sigs) == 0 {
		return "", nil, fmt.Errorf("%w: no v1 signature", ErrMalformed)
	}
	return ts, sigs, nil
}
