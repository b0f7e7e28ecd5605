// Package transport is the facade's front door: the middleware every request passes
// (request ids, panic recovery, body deadlines, rate limits, idempotency, routing), the
// one error envelope huma and the middleware answer with, operation registration with
// the documented error statuses, and the HTTP server's timeouts. It knows the caller
// only through package auth and no resource at all.
package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-logr/logr"

	"github.com/discolab/disco/apiserver/apierror"
)

type apiError = apierror.Error

// reqEnv is what the outer middleware knows about a request, for code that only sees a
// context (huma's error hooks are package-level functions).
type reqEnv struct {
	log       logr.Logger
	docsBase  string
	requestID string
}

type envKey struct{}

func withEnv(ctx context.Context, e *reqEnv) context.Context {
	return context.WithValue(ctx, envKey{}, e)
}

func envFrom(ctx context.Context) *reqEnv {
	e, _ := ctx.Value(envKey{}).(*reqEnv)
	return e
}

// RequestID returns the request's id, "" outside a request.
func RequestID(ctx context.Context) string {
	if e := envFrom(ctx); e != nil {
		return e.requestID
	}
	return ""
}

var hooksOnce sync.Once

// InstallErrorHooks makes huma build our envelope for every error it raises itself
// (validation, body parsing, size limits, content types, handler errors). The hooks are
// process-wide variables of huma, so they are set once; they find the request's server
// through the context.
func InstallErrorHooks() {
	hooksOnce.Do(func() {
		huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
			return fromHuma(nil, status, msg, errs)
		}
		huma.NewErrorWithContext = func(ctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
			return fromHuma(ctx, status, msg, errs)
		}
	})
}

// fromHuma converts one of huma's errors to ours.
func fromHuma(ctx huma.Context, status int, msg string, errs []error) huma.StatusError {
	for _, e := range errs {
		var ae *apiError
		if errors.As(e, &ae) {
			return ae
		}
	}
	// huma answers a failed read of the body 500 "cannot read request body"; a body the
	// client cut short or stopped sending is the client's doing (issue 17).
	for _, e := range errs {
		if be := RequestBodyError(e); be != nil {
			return be
		}
	}
	var fields []apierror.Field
	for _, e := range errs {
		if e == nil {
			continue
		}
		var d huma.ErrorDetailer
		if errors.As(e, &d) {
			det := d.ErrorDetail()
			fields = append(fields, apierror.Field{Field: det.Location, Message: det.Message})
		} else {
			fields = append(fields, apierror.Field{Message: e.Error()})
		}
	}
	switch status {
	case 0: // schema generation: huma builds an example error to describe it
		return apierror.New(500, apierror.CodeInternal, "")
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		if status == http.StatusBadRequest && isParseFailure(fields) {
			e := apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the request body is not valid JSON")
			if len(fields) > 0 {
				e = e.With("reason", fields[0].Message)
			}
			return e
		}
		// The contract answers every validation failure with 400; huma's 422 means the
		// same thing.
		e := apierror.New(http.StatusBadRequest, apierror.CodeValidation, "%s", validationMessage(msg, fields))
		if fields == nil {
			fields = []apierror.Field{}
		}
		return e.With("fields", fields)
	case http.StatusRequestEntityTooLarge:
		return apierror.New(status, apierror.CodePayloadTooLarge, "the request body is too large").With("limit_bytes", MaxJSONBody)
	case http.StatusRequestTimeout:
		return bodyTimeoutError()
	case http.StatusUnsupportedMediaType:
		return apierror.New(status, apierror.CodeUnsupportedMedia, "unsupported Content-Type; send application/json")
	case http.StatusInternalServerError:
		cause := errors.New(msg)
		if len(errs) > 0 && errs[0] != nil {
			cause = errs[0]
		}
		return apierror.Internal(cause) // logged by CompleteErrors with the request id
	}
	return apierror.New(status, codeForStatus(status), "%s", msg)
}

// isParseFailure tells a body that did not parse from one that parsed but failed the
// schema: huma reports both as errors located at "body", but only parse failures carry
// the decoder's wording.
func isParseFailure(fields []apierror.Field) bool {
	for _, f := range fields {
		if f.Field == "body" && (strings.Contains(f.Message, "invalid character") ||
			strings.Contains(f.Message, "unexpected end of JSON") ||
			strings.Contains(f.Message, "exceeded max depth") ||
			strings.Contains(f.Message, "cannot unmarshal")) {
			return true
		}
	}
	return false
}

func validationMessage(msg string, fields []apierror.Field) string {
	if len(fields) == 1 && fields[0].Field != "" {
		return fields[0].Field + ": " + fields[0].Message
	}
	if len(fields) > 1 {
		return "the request has invalid fields; see details.fields"
	}
	if msg != "" {
		return msg
	}
	return "the request is invalid"
}

func codeForStatus(status int) string {
	switch status {
	case 400:
		return apierror.CodeValidation
	case 401:
		return apierror.CodeUnauthenticated
	case 403:
		return apierror.CodeForbidden
	case 404:
		return apierror.CodeNotFound
	case 405:
		return apierror.CodeMethodNotAllowed
	case 409:
		return apierror.CodeConflict
	case 413:
		return apierror.CodePayloadTooLarge
	case 408:
		return apierror.CodeRequestTimeout
	case 415:
		return apierror.CodeUnsupportedMedia
	case 429:
		return apierror.CodeRateLimited
	case 501:
		return apierror.CodeNotImplemented
	case 503:
		return apierror.CodeUnavailable
	}
	if status >= 500 {
		return apierror.CodeInternal
	}
	return apierror.CodeValidation
}

// RequestBodyError answers an error met while reading a request body, or returns nil
// when err is not the client's doing (then it is a server fault, answered 500 and
// logged). A body over its limit is 413 payload_too_large (http.MaxBytesError); a body
// whose next bytes did not come in time is 408 request_timeout, with Connection: close
// (RFC 9110 section 15.5.9); a body that ended before its Content-Length, broke its
// chunked framing or lost its connection is 400 malformed_request. None of these is
// logged as a failure of the service (issue 17). Handlers that read the body
// themselves (dataset upload, forms) call it on every read error.
func RequestBodyError(err error) *apiError {
	if err == nil {
		return nil
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return apierror.New(http.StatusRequestEntityTooLarge, apierror.CodePayloadTooLarge,
			"the request body exceeds the limit of %d bytes", mbe.Limit).With("limit_bytes", mbe.Limit)
	}
	var bre *bodyReadError
	fromBody := errors.As(err, &bre)
	var ne net.Error
	switch {
	case fromBody && (errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()):
		return bodyTimeoutError()
	case fromBody || errors.Is(err, io.ErrUnexpectedEOF):
		return apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest,
			"the request body could not be read to its end: it was shorter than its Content-Length, its chunked "+
				"encoding was malformed, or the connection closed; send the complete body").
			With("reason", "incomplete_body")
	}
	return nil
}

// bodyTimeoutError is the answer to a body whose bytes stopped coming.
func bodyTimeoutError() *apiError {
	return apierror.New(http.StatusRequestTimeout, apierror.CodeRequestTimeout,
		"the request body stopped arriving before it was complete; send the body without pauses").
		WithHeader("Connection", "close")
}

func logInternal(ctx context.Context, e *apiError) {
	env := envFrom(ctx)
	if env == nil {
		return
	}
	env.log.Error(e.Unwrap(), "internal error", "request_id", env.requestID)
}

// CompleteErrors is a huma transformer: it fills request_id and documentation_url
// (under docsBase) of every error body, sets the error's own headers (huma sets them only
// for errors a handler returns, not for those it raises itself, such as a body read
// timeout), and logs internal errors with the request id.
func CompleteErrors(docsBase string) huma.Transformer {
	return func(ctx huma.Context, status string, v any) (any, error) {
		return completeError(ctx, docsBase, v)
	}
}

func completeError(ctx huma.Context, docsBase string, v any) (any, error) {
	ae, ok := v.(*apiError)
	if !ok {
		return v, nil
	}
	for k, vs := range ae.GetHeaders() {
		if len(vs) > 0 {
			ctx.SetHeader(k, vs[0])
		}
		for _, x := range vs[min(1, len(vs)):] {
			ctx.AppendHeader(k, x)
		}
	}
	if ae.GetStatus() >= 500 && ae.Unwrap() != nil {
		logInternal(ctx.Context(), ae)
	}
	apierror.Complete(ae, RequestID(ctx.Context()), docsBase)
	return ae, nil
}

// Fail writes e as the envelope outside huma, for middleware and handlers that work on
// the raw request; the documentation links are under the base RequestIDs was given.
func Fail(w http.ResponseWriter, r *http.Request, e *apiError) {
	if e.GetStatus() >= 500 && e.Unwrap() != nil {
		logInternal(r.Context(), e)
	}
	docsBase := ""
	if env := envFrom(r.Context()); env != nil {
		docsBase = env.docsBase
	}
	apierror.Write(w, e, RequestID(r.Context()), docsBase)
}

// MaxJSONBody bounds every JSON request body; the largest legitimate one (a run
// submission with 64 constraints) is a few tens of kilobytes.
const MaxJSONBody = 1 << 20
