package app

import (
	"net/http"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/apiserver/mcp"
)

// facadeHandler serves the REST facade and, at /v1/mcp, the MCP agent server, behind the
// facade's authentication and rate limits; its tools call the same REST handler with the
// caller's credential (one authorization path).
func facadeHandler(srv *apiserver.Server, baseURL string) http.Handler {
	return mcp.Facade(srv, baseURL)
}
