package transport

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/apiserver/auth"
)

// Operation metadata keys read by the huma middlewares (the scope keys are auth's).
const (
	MetaDeprecation = "deprecation"
	// metaErrors holds the error statuses an operation documents (FinishOpenAPI).
	metaErrors = "errors"
)

// Deprecation marks an operation as deprecated (Metadata[MetaDeprecation]): the
// AnnounceDeprecation middleware sends Deprecation (RFC 9745), Sunset (RFC 8594) and a
// Link to the migration guide.
type Deprecation struct {
	Since  time.Time
	Sunset time.Time
	Guide  string
}

// Register adds an operation to api (the facade's huma API or a group of it) requiring
// scope ("" for public operations), with the error responses every operation can give
// documented in OpenAPI.
func Register[I, O any](api huma.API, op huma.Operation, scope string, h func(context.Context, *I) (*O, error)) {
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	errs := []int{http.StatusBadRequest, http.StatusTooManyRequests, http.StatusInternalServerError}
	if op.Method == http.MethodPost || op.Method == http.MethodPatch {
		// Idempotency conflicts, body limits and timeouts, and content types apply to
		// every write.
		errs = append(errs, http.StatusRequestTimeout, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	if scope == "" {
		op.Metadata[auth.MetaPublic] = true
		op.Security = []map[string][]string{}
	} else {
		op.Metadata[auth.MetaScope] = scope
		op.Security = []map[string][]string{{"bearer": {scope}}, {"oauth2": {scope}}}
		op.Description += "\n\nRequires the scope `" + scope + "`."
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden)
	}
	if _, ok := op.Metadata[MetaDeprecation].(Deprecation); ok {
		op.Deprecated = true
	}
	for _, e := range errs {
		if !slices.Contains(op.Errors, e) {
			op.Errors = append(op.Errors, e)
		}
	}
	slices.Sort(op.Errors)
	op.Metadata[metaErrors] = slices.Clone(op.Errors)
	if op.MaxBodyBytes == 0 {
		op.MaxBodyBytes = MaxJSONBody
	}
	huma.Register(api, op, h)
}

// AnnounceDeprecation is the huma middleware that announces deprecated operations.
func AnnounceDeprecation(ctx huma.Context, next func(huma.Context)) {
	if d, ok := ctx.Operation().Metadata[MetaDeprecation].(Deprecation); ok {
		ctx.SetHeader("Deprecation", "@"+strconv.FormatInt(d.Since.Unix(), 10))
		ctx.SetHeader("Sunset", d.Sunset.UTC().Format(http.TimeFormat))
		if d.Guide != "" {
			ctx.SetHeader("Link", "<"+d.Guide+`>; rel="deprecation"; type="text/html"`)
		}
	}
	next(ctx)
}

// FinishOpenAPI documents what the outer middleware adds to every response: the
// rate-limit headers, the request id, and Retry-After on 429. Call it once every
// operation is registered.
func FinishOpenAPI(api huma.API) {
	oapi := api.OpenAPI()
	intSchema := &huma.Schema{Type: "integer"}
	common := map[string]*huma.Param{
		"X-RateLimit-Limit":     {Description: "Requests allowed per minute in the caller's bucket.", Schema: intSchema},
		"X-RateLimit-Remaining": {Description: "Requests left in the current window.", Schema: intSchema},
		"X-RateLimit-Reset":     {Description: "Unix time (seconds) at which the bucket is full again.", Schema: intSchema},
		"X-Request-Id":          {Description: "Id of the request (req_ prefix), also in error bodies.", Schema: &huma.Schema{Type: "string"}},
	}
	for _, item := range oapi.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			// huma documents 422 for its validation failures; the facade answers those with
			// 400, so 422 stays only where an operation really gives it.
			declared, _ := op.Metadata[metaErrors].([]int)
			if !slices.Contains(declared, http.StatusUnprocessableEntity) {
				delete(op.Responses, "422")
			}
			for code, resp := range op.Responses {
				if resp.Headers == nil {
					resp.Headers = map[string]*huma.Param{}
				}
				for k, v := range common {
					resp.Headers[k] = v
				}
				if code == "429" {
					resp.Headers["Retry-After"] = &huma.Param{Description: "Seconds to wait before retrying.", Schema: intSchema}
				}
				if code == "401" {
					resp.Headers["WWW-Authenticate"] = &huma.Param{Description: "Bearer challenge.", Schema: &huma.Schema{Type: "string"}}
				}
			}
		}
	}
}
