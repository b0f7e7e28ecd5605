// Package api is the dashboard's client of the REST API (/v1): every call carries the
// signed-in user's session token, so the facade's authentication, scopes, tenancy,
// governance and ledger apply to the dashboard exactly as to any other client.
package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// maxBody bounds a JSON response the dashboard reads; a page of 100 claims is far below.
const maxBody = 16 << 20

// Client calls the REST API at Base (including /v1) through Transport.
type Client struct {
	Base      string
	Transport http.RoundTripper
}

// Error is the contract's error envelope (discovery-api.md, "Errors").
type Error struct {
	Status    int            `json:"status"`
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Details   map[string]any `json:"details"`
	RequestID string         `json:"request_id"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// Field returns the message the API gave for one input field (details.fields or
// details.errors, as huma and the facade report validation failures), or "".
func (e *Error) Field(name string) string {
	if e == nil {
		return ""
	}
	for _, key := range []string{"errors", "fields"} {
		list, _ := e.Details[key].([]any)
		for _, item := range list {
			m, _ := item.(map[string]any)
			loc, _ := m["location"].(string)
			if loc == "" {
				loc, _ = m["field"].(string)
			}
			loc = strings.TrimPrefix(loc, "body.")
			if loc == name || strings.HasPrefix(loc, name+".") || strings.HasPrefix(loc, name+"[") {
				msg, _ := m["message"].(string)
				return msg
			}
		}
	}
	if f, _ := e.Details["field"].(string); strings.TrimPrefix(f, "body.") == name {
		return e.Message
	}
	return ""
}

// Constraint is details.constraint of a governance refusal, or "".
func (e *Error) Constraint() string {
	if e == nil {
		return ""
	}
	s, _ := e.Details["constraint"].(string)
	return s
}

// AsError returns err as an *Error when it is one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// StatusOf is the HTTP status of an API error, or 0.
func StatusOf(err error) int {
	if e, ok := AsError(err); ok {
		return e.Status
	}
	return 0
}

// Request is one call to the API.
type Request struct {
	Method string
	Path   string // below Base, starting with "/"
	Query  url.Values
	JSON   any       // encoded as the body when not nil
	Body   io.Reader // a raw body when JSON is nil
	// ContentType of Body.
	ContentType string
	// Token is the Bearer credential; empty for unauthenticated operations.
	Token string
	// RemoteAddr is the browser's address, so the facade's per-address limits see the
	// person and not the dashboard.
	RemoteAddr string
}

// Do sends r and decodes a 2xx JSON answer into out (when not nil). A non-2xx answer is
// an *Error.
func (c *Client) Do(ctx context.Context, r Request, out any) error {
	resp, err := c.Send(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return fmt.Errorf("read %s %s: %w", r.Method, r.Path, err)
	}
	if resp.StatusCode/100 != 2 {
		return errorOf(resp.StatusCode, body)
	}
	if out == nil || len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("decode %s %s: %w", r.Method, r.Path, err)
	}
	return nil
}

// Send sends r and returns the response as it is, for streamed bodies (artifacts); the
// caller closes it.
func (c *Client) Send(ctx context.Context, r Request) (*http.Response, error) {
	u := strings.TrimSuffix(c.Base, "/") + r.Path
	if len(r.Query) > 0 {
		u += "?" + r.Query.Encode()
	}
	body := r.Body
	ct := r.ContentType
	if r.JSON != nil {
		b, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, err
		}
		body, ct = bytes.NewReader(b), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, u, body)
	if err != nil {
		return nil, err
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Accept", "application/json")
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	if r.RemoteAddr != "" {
		req.RemoteAddr = r.RemoteAddr
	}
	t := c.Transport
	if t == nil {
		t = http.DefaultTransport
	}
	return t.RoundTrip(req)
}

// ErrorOf reads an error envelope; a body that is not one still gives an *Error.
func ErrorOf(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return errorOf(resp.StatusCode, body)
}

func errorOf(status int, body []byte) error {
	var env struct {
		Error *Error `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil {
		if env.Error.Status == 0 {
			env.Error.Status = status
		}
		return env.Error
	}
	return &Error{Status: status, Code: "http_" + fmt.Sprint(status), Message: http.StatusText(status)}
}
