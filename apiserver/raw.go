package apiserver

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// metaRaw marks operations whose handler works on the raw request (streamed uploads,
// binary downloads); the rawAccess middleware hands it the request and response writer.
const metaRaw = "raw"

type rawKey struct{}

type rawPair struct {
	w http.ResponseWriter
	r *http.Request
}

func (s *Server) rawAccess(ctx huma.Context, next func(huma.Context)) {
	if raw, _ := ctx.Operation().Metadata[metaRaw].(bool); raw {
		r, w := humago.Unwrap(ctx)
		ctx = huma.WithValue(ctx, rawKey{}, rawPair{w: w, r: r})
	}
	next(ctx)
}

// rawRequest returns the request and response writer of a raw operation.
func rawRequest(ctx context.Context) (http.ResponseWriter, *http.Request) {
	p := ctx.Value(rawKey{}).(rawPair)
	return p.w, p.r
}
