package apiserver

import "net/http"

// aggregated serves the same API under /apis/api.disco.dev/v1 for kube-apiserver
// aggregation.
func (s *Server) aggregated(next http.Handler) http.Handler {
	return next
}
