package transport

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// MetaRaw marks operations whose handler works on the raw request (streamed uploads,
// binary downloads); the RawAccess middleware hands it the request and response writer.
const MetaRaw = "raw"

type rawKey struct{}

type rawPair struct {
	w http.ResponseWriter
	r *http.Request
}

// RawAccess is the huma middleware that serves MetaRaw operations.
func RawAccess(ctx huma.Context, next func(huma.Context)) {
	if raw, _ := ctx.Operation().Metadata[MetaRaw].(bool); raw {
		r, w := humago.Unwrap(ctx)
		ctx = huma.WithValue(ctx, rawKey{}, rawPair{w: w, r: r})
	}
	next(ctx)
}

// RawRequest returns the request and response writer of a raw operation.
func RawRequest(ctx context.Context) (http.ResponseWriter, *http.Request) {
	p := ctx.Value(rawKey{}).(rawPair)
	return p.w, p.r
}
