package apiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
)

// Claim pages are written from each claim's encoded form instead of through huma's
// reflection encoder: at 100 claims a page, encoding was half of a list request's CPU and
// most of its garbage, and the garbage (GC assists at a 100,000-claim heap) set the tail
// latency. With the claim index, each cached claim is encoded once (listindex.Wire), for
// pages and for single gets.

// claimWire is a claim's response object exactly as huma's JSON format writes a Claim
// (encoding/json, HTML characters not escaped), without the trailing newline.
func claimWire(c *discov1.Claim) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(claimOf(c)); err != nil {
		// A Claim holds strings, numbers and stored JSON: this cannot fail unless stored
		// evidence is not JSON, which the CRD schema rules out.
		panic("apiserver: encoding a claim: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// rawJSON is an operation output written as given. The operation's 200 schema is declared
// by hand (see rawJSONResponse), since huma cannot infer it from a function body.
type rawJSON struct {
	Body func(huma.Context)
}

// jsonOutput writes one encoded object and a newline, as huma's JSON format does.
func jsonOutput(object []byte) *rawJSON {
	return &rawJSON{Body: func(ctx huma.Context) { writeRawJSON(ctx, object, []byte("\n")) }}
}

// writeRawJSON answers 200 with a JSON body made of parts.
func writeRawJSON(ctx huma.Context, parts ...[]byte) {
	ctx.SetHeader("Content-Type", "application/json")
	ctx.SetStatus(http.StatusOK)
	w := ctx.BodyWriter()
	for _, p := range parts {
		_, _ = w.Write(p)
	}
}

var pageBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// claimPageOutput writes a page of claims as the contract's list object, the same bytes
// huma would write for pageOutput(page, claimOf).
func claimPageOutput(page pagination.Page[*discov1.Claim], wire func(*discov1.Claim) []byte) *rawJSON {
	return &rawJSON{Body: func(ctx huma.Context) {
		buf := pageBuffers.Get().(*bytes.Buffer)
		buf.Reset()
		buf.WriteString(`{"object":"list","data":[`)
		for i, c := range page.Items {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.Write(wire(c))
		}
		buf.WriteString(`],"has_more":`)
		buf.WriteString(strconv.FormatBool(page.HasMore))
		if page.NextCursor != "" {
			buf.WriteString(`,"next_cursor":`)
			cursor, _ := json.Marshal(page.NextCursor)
			buf.Write(cursor)
		}
		buf.WriteString(`,"total_count":`)
		buf.WriteString(strconv.Itoa(page.Total))
		buf.WriteString("}\n")
		writeRawJSON(ctx, buf.Bytes())
		if buf.Cap() <= 1<<20 {
			pageBuffers.Put(buf)
		}
	}}
}

// rawJSONResponse declares an operation's 200 response as the schema of body's type, as
// huma would have for a typed output.
func rawJSONResponse(api huma.API, body any) map[string]*huma.Response {
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(body), true, "")
	return map[string]*huma.Response{strconv.Itoa(http.StatusOK): {
		Description: http.StatusText(http.StatusOK),
		Content:     map[string]*huma.MediaType{"application/json": {Schema: schema}},
	}}
}
