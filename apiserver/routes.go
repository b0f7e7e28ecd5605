package apiserver

import (
	"github.com/discolab/disco/apiserver/apikeys"
	"github.com/discolab/disco/apiserver/campaigns"
	"github.com/discolab/disco/apiserver/claims"
	"github.com/discolab/disco/apiserver/datasets"
	"github.com/discolab/disco/apiserver/docs"
	"github.com/discolab/disco/apiserver/ledgers"
	"github.com/discolab/disco/apiserver/oauthclients"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/runs"
	"github.com/discolab/disco/apiserver/signin"
	"github.com/discolab/disco/apiserver/users"
	"github.com/discolab/disco/apiserver/webhooks"
)

// registerRoutes mounts every room under /v1. Each room is a package with a Register
// that takes only the dependencies it names (its Deps) and adds its operations as one
// huma group under the room's path prefix:
//
//	docs          GET /v1/docs/errors pages, plain handlers on s.mux
//	projects      /projects, with governance settings recorded in the ledger
//	campaigns     /projects/{project_id}/campaigns
//	datasets      /projects/{project_id}/datasets, the streamed upload and profiles
//	runs          /projects/{project_id}/campaigns/{campaign_id}/runs, with artifacts
//	claims        /projects/{project_id}/claims, with promote and demote
//	ledgers       /projects/{project_id}/ledger, and /ledger/verifier-key
//	webhooks      /webhooks, with deliveries
//	apikeys       /api-keys
//	signin        /auth: OAuth 2 token exchange, revocation and the sign-in page
//	oauthclients  /oauth-clients
//
// Every room but docs registers huma operations on s.api, which also serves the OpenAPI
// document at /v1/openapi.json (newAPI). What every room shares is in resource (tenant
// reads, cache, pages), transport (registration, errors, the front door's middleware)
// and auth (credentials, scopes, tenancy). Not mounted here: the probes /healthz,
// /livez and /readyz (health, middleware.go), the aggregated API path
// /apis/api.disco.dev/v1, mapped onto /v1 (aggregated, aggregated.go), and the MCP
// server at /v1/mcp, which the composition root mounts behind Guard.
func (s *Server) registerRoutes() {
	kit, o := s.kit, s.opts
	docs.Register(s.mux, s.docsBase)
	projects.Register(s.api, projects.Deps{Kit: kit, Ledger: o.Ledger})
	campaigns.Register(s.api, campaigns.Deps{Kit: kit, Ledger: o.Ledger})
	datasets.Register(s.api, datasets.Deps{Kit: kit, Blob: o.Blob, MaxUploadBytes: o.MaxUploadBytes, ScratchDir: o.ScratchDir})
	runs.Register(s.api, runs.Deps{Kit: kit, Blob: o.Blob})
	claims.Register(s.api, claims.Deps{Kit: kit, Store: o.Store, Ledger: o.Ledger})
	ledgers.Register(s.api, ledgers.Deps{Kit: kit, Ledger: o.Ledger})
	webhooks.Register(s.api, webhooks.Deps{Kit: kit, Store: o.Store, AllowLoopbackWebhooks: o.AllowLoopbackWebhooks})
	apikeys.Register(s.api, apikeys.Deps{Kit: kit, Store: o.Store, Forget: s.authn.Forget})
	signin.Register(s.api, signin.Deps{Kit: kit, Store: o.Store, Sessions: s.oauth, Secret: s.oauthSecret})
	oauthclients.Register(s.api, oauthclients.Deps{Kit: kit, Clients: s.oauth.Storage})
	users.Register(s.api, users.Deps{Kit: kit, Store: o.Store})
}
