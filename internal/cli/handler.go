package cli

import (
	"net/http"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/apiserver/mcp"
)

// facadeHandler serves the REST facade and, at /v1/mcp, the MCP agent server, whose tools
// call the same REST handler with the caller's credential (one authorization path).
func facadeHandler(srv *apiserver.Server, baseURL string) http.Handler {
	rest := srv.Handler()
	mux := http.NewServeMux()
	mux.Handle("/", rest)
	mux.Handle("/v1/mcp", mcp.NewHTTPHandler(mcp.HandlerBackend(rest, baseURL)))
	return mux
}
