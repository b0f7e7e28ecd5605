// Package auth holds what the facade knows about the caller once a credential has been
// checked: the Principal, the scope names of DESIGN.md, and the context plumbing. API keys,
// session tokens and front-proxy identities all produce the same Principal, so every
// operation enforces one set of rules whatever the credential.
package auth

import (
	"context"
	"slices"
	"strings"
)

// Scopes, as named in DESIGN.md. Every operation needs exactly one of them (or none for
// the public ones) and names it in the OpenAPI document.
const (
	ProjectsRead  = "projects:read"
	ProjectsWrite = "projects:write"
	DatasetsRead  = "datasets:read"
	DatasetsWrite = "datasets:write"
	RunsRead      = "runs:read"
	RunsWrite     = "runs:write"
	ClaimsRead    = "claims:read"
	ClaimsWrite   = "claims:write"
	LedgerRead    = "ledger:read"
	WebhooksWrite = "webhooks:write" // DESIGN.md has no webhooks:read: reading registrations needs it too
	// APIKeysWrite is the one scope beyond DESIGN.md's list: managing API keys mints
	// credentials, so it is kept apart from the resource scopes and held by admin keys.
	APIKeysWrite = "api_keys:write"
	// GovernanceWrite changes the governance of projects and campaigns: promotion ceiling,
	// Truth Dial threshold, negative-controls requirement and auto-promotion. Those
	// settings decide what the ledger may certify, so projects:write alone does not reach
	// them (issue 17).
	GovernanceWrite = "governance:write"
)

// All lists every scope, the grant of an admin key.
var All = []string{
	ProjectsRead, ProjectsWrite, DatasetsRead, DatasetsWrite, RunsRead, RunsWrite,
	ClaimsRead, ClaimsWrite, LedgerRead, WebhooksWrite, APIKeysWrite, GovernanceWrite,
}

// Valid reports whether s names a scope.
func Valid(s string) bool { return slices.Contains(All, s) }

// Kinds of credential.
const (
	KindAPIKey  = "api_key"
	KindSession = "session"
	KindProxy   = "proxy" // front-proxy identity on the aggregated API path
)

// Principal is an authenticated caller.
type Principal struct {
	Kind     string
	TenantID string
	// Actor is what the ledger and created_by record: a user id (usr_...) for sessions and
	// proxy users, the key id (key_...) for API keys.
	Actor string
	// CredentialID is the API key id or the session's grant id.
	CredentialID string
	Scopes       []string
	// ProjectIDs restricts the caller to these projects; empty means every project of the
	// tenant.
	ProjectIDs []string
}

// Has reports whether the principal holds scope.
func (p *Principal) Has(scope string) bool { return slices.Contains(p.Scopes, scope) }

// AllowsProject reports whether the principal may see projectID.
func (p *Principal) AllowsProject(projectID string) bool {
	return len(p.ProjectIDs) == 0 || slices.Contains(p.ProjectIDs, projectID)
}

// Restricted reports whether the principal is limited to a list of projects.
func (p *Principal) Restricted() bool { return len(p.ProjectIDs) > 0 }

// ScopeString is the space-separated scope list of OAuth responses.
func (p *Principal) ScopeString() string { return strings.Join(p.Scopes, " ") }

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the principal of the request, or nil for anonymous requests.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// Covers reports whether the caller may manage a credential that grants scopes over
// projects (empty: every project of the tenant). Managing a credential (creating, reading,
// rolling, revoking it) can hand its power to the caller, so it is allowed only for
// credentials no stronger than the caller (issue 17): each scope is one the caller holds,
// and the projects are within the caller's, an unrestricted caller covering every project
// set and a restricted one only non-empty subsets of its own. Credentials outside are
// answered as not found, and left out of lists.
func (p *Principal) Covers(scopes, projects []string) bool {
	for _, sc := range scopes {
		if !p.Has(sc) {
			return false
		}
	}
	if !p.Restricted() {
		return true
	}
	if len(projects) == 0 {
		return false
	}
	for _, id := range projects {
		if !p.AllowsProject(id) {
			return false
		}
	}
	return true
}
