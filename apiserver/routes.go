package apiserver

import (
	"github.com/discolab/disco/apiserver/campaigns"
	"github.com/discolab/disco/apiserver/claims"
	"github.com/discolab/disco/apiserver/datasets"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/runs"
)

// registerRoutes adds every operation under /v1. Each register function lives in the file
// of the resource it names, and three of them also register a neighbouring resource:
//
//	registerDocs       docs.go            GET /v1/docs/errors pages, plain handlers on s.mux
//	registerProjects   projects.go
//	registerCampaigns  campaigns.go
//	registerDatasets   datasets.go
//	registerRuns       runs.go            and a run's artifacts (registerArtifacts, artifacts.go)
//	registerClaims     claims.go          and promote/demote (registerGovernance, governance.go)
//	registerLedger     ledger.go
//	registerWebhooks   webhooks.go
//	registerAPIKeys    apikeys.go
//	registerOAuth      oauth_handlers.go  and the OAuth clients (registerOAuthClients, oauth_clients.go)
//
// All but registerDocs register huma operations on s.api, which also serves the OpenAPI
// document at /v1/openapi.json (newAPI). Not registered here: the probes /healthz, /livez
// and /readyz (health, middleware.go), the aggregated API path /apis/api.disco.dev/v1,
// mapped onto /v1 (aggregated, aggregated.go), and the MCP server at /v1/mcp, which the
// composition root mounts behind Guard.
func (s *Server) registerRoutes() {
	s.registerDocs()
	projects.Register(s.api, projects.Deps{Kit: s.kit, Ledger: s.opts.Ledger})
	campaigns.Register(s.api, campaigns.Deps{Kit: s.kit, Ledger: s.opts.Ledger})
	datasets.Register(s.api, datasets.Deps{Kit: s.kit, Blob: s.opts.Blob, MaxUploadBytes: s.opts.MaxUploadBytes, ScratchDir: s.opts.ScratchDir})
	runs.Register(s.api, runs.Deps{Kit: s.kit, Blob: s.opts.Blob})
	claims.Register(s.api, claims.Deps{Kit: s.kit, Store: s.opts.Store, Ledger: s.opts.Ledger})
	s.registerLedger()
	s.registerWebhooks()
	s.registerAPIKeys()
	s.registerOAuth()
}
