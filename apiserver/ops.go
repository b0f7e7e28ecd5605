package apiserver

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/discolab/disco/apiserver/auth"
)

// Operation metadata keys read by the huma middlewares.
const (
	metaScope       = "scope"
	metaPublic      = "public"
	metaDeprecation = "deprecation"
)

// deprecationInfo marks an operation as deprecated: the deprecation middleware sends
// Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the migration guide.
type deprecationInfo struct {
	Since  time.Time
	Sunset time.Time
	Guide  string
}

// register adds an operation requiring scope ("" for public operations), with the error
// responses every operation can give documented in OpenAPI.
func register[I, O any](s *Server, op huma.Operation, scope string, h func(context.Context, *I) (*O, error)) {
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
		op.Metadata[metaPublic] = true
		op.Security = []map[string][]string{}
	} else {
		op.Metadata[metaScope] = scope
		op.Security = []map[string][]string{{"bearer": {scope}}, {"oauth2": {scope}}}
		op.Description += "\n\nRequires the scope `" + scope + "`."
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden)
	}
	if _, ok := op.Metadata[metaDeprecation].(deprecationInfo); ok {
		op.Deprecated = true
	}
	for _, e := range errs {
		if !slices.Contains(op.Errors, e) {
			op.Errors = append(op.Errors, e)
		}
	}
	slices.Sort(op.Errors)
	s.declared[op.OperationID] = slices.Clone(op.Errors)
	if op.MaxBodyBytes == 0 {
		op.MaxBodyBytes = maxJSONBody
	}
	huma.Register(s.api, op, h)
}

// deprecation is the huma middleware that announces deprecated operations.
func (s *Server) deprecation(ctx huma.Context, next func(huma.Context)) {
	if d, ok := ctx.Operation().Metadata[metaDeprecation].(deprecationInfo); ok {
		ctx.SetHeader("Deprecation", "@"+strconv.FormatInt(d.Since.Unix(), 10))
		ctx.SetHeader("Sunset", d.Sunset.UTC().Format(http.TimeFormat))
		if d.Guide != "" {
			ctx.SetHeader("Link", "<"+d.Guide+`>; rel="deprecation"; type="text/html"`)
		}
	}
	next(ctx)
}

// finishOpenAPI documents what the outer middleware adds to every response: the
// rate-limit headers, the request id, and Retry-After on 429.
func (s *Server) finishOpenAPI() {
	oapi := s.api.OpenAPI()
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
			if !slices.Contains(s.declared[op.OperationID], http.StatusUnprocessableEntity) {
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

func scopeDescriptions() map[string]string {
	return map[string]string{
		auth.ProjectsRead:  "Read projects and campaigns",
		auth.ProjectsWrite: "Create and change projects and campaigns",
		auth.DatasetsRead:  "Read datasets and their profiles",
		auth.DatasetsWrite: "Upload datasets",
		auth.RunsRead:      "Read runs, their status, results and artifacts",
		auth.RunsWrite:     "Submit and cancel runs",
		auth.ClaimsRead:    "Read claims",
		auth.ClaimsWrite:   "Promote and demote claims",
		auth.LedgerRead:    "Read and verify the Evidence Ledger",
		auth.WebhooksWrite: "Manage webhook registrations and deliveries",
		auth.APIKeysWrite:  "Manage API keys",

		auth.GovernanceWrite: "Change the governance of projects and campaigns: promotion ceiling, Truth Dial threshold, negative controls, auto-promotion",
	}
}
