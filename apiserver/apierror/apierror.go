// Package apierror is the facade's single error type and its wire envelope:
//
//	{"error": {"code", "message", "status", "details", "request_id", "documentation_url"}}
//
// Every error the facade answers, from a huma validation failure to an unknown route or a
// recovered panic, is an *Error written through Write or through huma's error hooks, so a
// client only ever has to parse one shape.
package apierror

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
)

// ErrorBody is the content of the "error" key.
type ErrorBody struct {
	Code             string         `json:"code" required:"true" doc:"Machine-readable error code." example:"not_found"`
	Message          string         `json:"message" required:"true" doc:"Human-readable explanation."`
	Status           int            `json:"status" required:"true" doc:"HTTP status code of the response." example:"404"`
	Details          map[string]any `json:"details" required:"true" doc:"Per-code details, e.g. fields (validation), constraint (governance), required_scope."`
	RequestID        string         `json:"request_id" required:"true" doc:"Id of the request (req_ prefix), also in the X-Request-Id header." example:"req_abcdefghijklmnopqrstuvwxyz"`
	DocumentationURL string         `json:"documentation_url" required:"true" doc:"Page describing this error code."`
}

// Error is an error the facade answers with. Its JSON form is the envelope itself, so
// huma can marshal it and derive the OpenAPI schema from it.
type Error struct {
	Body ErrorBody `json:"error" required:"true"`

	header http.Header
	cause  error
}

// New returns an error with the status, code and message.
func New(status int, code, format string, args ...any) *Error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return &Error{Body: ErrorBody{Code: code, Message: msg, Status: status, Details: map[string]any{}}}
}

// Error implements error.
func (e *Error) Error() string {
	if e.cause != nil {
		return e.Body.Code + ": " + e.Body.Message + ": " + e.cause.Error()
	}
	return e.Body.Code + ": " + e.Body.Message
}

// Of returns the *Error in err's chain, or nil when there is none.
func Of(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Unwrap returns the internal cause, which is logged and never sent.
func (e *Error) Unwrap() error { return e.cause }

// GetStatus implements huma.StatusError.
func (e *Error) GetStatus() int { return e.Body.Status }

// GetHeaders implements huma.HeadersError: headers such as Retry-After or
// WWW-Authenticate that belong to this error.
func (e *Error) GetHeaders() http.Header { return e.header }

// With adds a details field and returns e.
func (e *Error) With(key string, value any) *Error {
	if e.Body.Details == nil {
		e.Body.Details = map[string]any{}
	}
	e.Body.Details[key] = value
	return e
}

// WithHeader sets a response header that goes with the error.
func (e *Error) WithHeader(key, value string) *Error {
	if e.header == nil {
		e.header = http.Header{}
	}
	e.header.Set(key, value)
	return e
}

// WithCause records the internal error behind e, for the log only.
func (e *Error) WithCause(err error) *Error {
	e.cause = err
	return e
}

// Field is one entry of details.fields in a validation error.
type Field struct {
	Field   string `json:"field"`
	Message string `json:"message" required:"true"`
}

// Write writes e as the envelope, completing request_id and documentation_url.
func Write(w http.ResponseWriter, e *Error, requestID, docsBase string) {
	Complete(e, requestID, docsBase)
	h := w.Header()
	for k, v := range e.header {
		h[k] = v
	}
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	body, err := json.Marshal(e)
	if err != nil { // details held something unmarshalable: drop them rather than fail
		e.Body.Details = map[string]any{}
		body, _ = json.Marshal(e)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(e.Body.Status)
	_, _ = w.Write(append(body, '\n'))
}

// Complete fills the fields that depend on the request rather than the failure.
func Complete(e *Error, requestID, docsBase string) {
	e.Body.RequestID = requestID
	e.Body.DocumentationURL = docsBase + "/docs/errors/" + e.Body.Code
	if e.Body.Details == nil {
		e.Body.Details = map[string]any{}
	}
}
