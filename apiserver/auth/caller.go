package auth

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
)

// Operation metadata keys: the scope an operation requires, or that it is public.
// transport.Register sets them; Authorize enforces them.
const (
	MetaScope  = "scope"
	MetaPublic = "public"
)

// Tenant is what the facade needs of a Tenant object.
type Tenant struct {
	ID        string
	Namespace string
	Tier      discov1.TenantTier
	Groups    []string
}

// TenantOf reads a Tenant object: its namespace (status, then spec, then the default
// disco-<name>) and tier (free when unset).
func TenantOf(t *discov1.Tenant) *Tenant {
	ns := t.Status.Namespace
	if ns == "" {
		ns = t.Spec.Namespace
	}
	if ns == "" {
		ns = "disco-" + t.Name
	}
	tier := t.Spec.Tier
	if tier == "" {
		tier = discov1.TenantTierFree
	}
	return &Tenant{ID: t.ID(), Namespace: ns, Tier: tier, Groups: t.Spec.Groups}
}

type callerKey struct{}

// Caller is the authenticated principal with its tenant, or the reason authentication
// failed (a request with a bad credential continues anonymously, so unknown routes still
// answer 404 and public routes still work; operations that need a credential answer the
// recorded failure).
type Caller struct {
	Principal *Principal
	Tenant    *Tenant
	Failure   *apierror.Error
}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the request's caller; an empty one when authentication has not run.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	if c == nil {
		return &Caller{}
	}
	return c
}

// Who returns the authenticated caller of an operation; Authorize has already refused
// requests without one.
func Who(ctx context.Context) (*Principal, *Tenant) {
	c := CallerFrom(ctx)
	return c.Principal, c.Tenant
}

// Refusal is the answer to a request that needs a credential and has no valid one, for
// REST operations (Authorize) and guarded handlers alike.
func (c *Caller) Refusal() *apierror.Error {
	if c.Failure != nil {
		return c.Failure
	}
	return apierror.Unauthenticated("missing", "this operation needs a credential: send Authorization: Bearer <API key or session token>")
}

// Authorize returns the huma middleware of api that enforces each operation's credential
// and scope (Metadata[MetaScope]; MetaPublic operations need none).
func Authorize(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(ctx huma.Context, next func(huma.Context)) {
		op := ctx.Operation()
		if public, _ := op.Metadata[MetaPublic].(bool); public {
			next(ctx)
			return
		}
		c := CallerFrom(ctx.Context())
		if c.Principal == nil {
			writeErr(api, ctx, c.Refusal())
			return
		}
		if scope, _ := op.Metadata[MetaScope].(string); scope != "" && !c.Principal.Has(scope) {
			writeErr(api, ctx, apierror.InsufficientScope(scope))
			return
		}
		next(ctx)
	}
}

// writeErr writes e through huma, so content negotiation and transformers apply.
func writeErr(api huma.API, ctx huma.Context, e *apierror.Error) {
	for k, v := range e.GetHeaders() {
		for _, x := range v {
			ctx.SetHeader(k, x)
		}
	}
	_ = huma.WriteErr(api, ctx, e.GetStatus(), e.Body.Message, e)
}

// ScopeDescriptions describes every scope, for the OpenAPI document's OAuth flow.
func ScopeDescriptions() map[string]string {
	return map[string]string{
		ProjectsRead:  "Read projects and campaigns",
		ProjectsWrite: "Create and change projects and campaigns",
		DatasetsRead:  "Read datasets and their profiles",
		DatasetsWrite: "Upload datasets",
		RunsRead:      "Read runs, their status, results and artifacts",
		RunsWrite:     "Submit and cancel runs",
		ClaimsRead:    "Read claims",
		ClaimsWrite:   "Promote and demote claims",
		LedgerRead:    "Read and verify the Evidence Ledger",
		WebhooksWrite: "Manage webhook registrations and deliveries",
		APIKeysWrite:  "Manage API keys",

		GovernanceWrite: "Change the governance of projects and campaigns: promotion ceiling, Truth Dial threshold, negative controls, auto-promotion",
	}
}
