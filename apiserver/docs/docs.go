package docs

import (
	"html/template"
	"net/http"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/transport"
)

// Every error body links to /v1/docs/errors/<code>; these pages say what the code means
// and what to do about it.
var errorPage = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Code}} — disco API errors</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}code{background:#f3f3f3;padding:0 .2rem}</style>
</head><body>
<p><a href="{{.Base}}/docs/errors">All error codes</a></p>
<h1><code>{{.Code}}</code></h1>
<p><strong>HTTP {{.Status}} — {{.Title}}</strong></p>
<p>{{.Text}}</p>
<p>Errors are returned as <code>{"error": {"code", "message", "status", "details", "request_id", "documentation_url"}}</code>.
Quote the <code>request_id</code> (also in the <code>X-Request-Id</code> header) when reporting a problem.</p>
</body></html>
`))

var errorIndex = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>disco API errors</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}td{padding:.2rem .6rem;vertical-align:top}</style>
</head><body><h1>Error codes</h1><table>
{{range .Codes}}<tr><td><a href="{{$.Base}}/docs/errors/{{.Code}}"><code>{{.Code}}</code></a></td><td>{{.Status}}</td><td>{{.Title}}</td></tr>
{{end}}</table></body></html>
`))

// Register serves the error code pages on mux, with links under base (…/v1): every
// error body's documentation_url points at one of them.
func Register(mux *http.ServeMux, base string) {
	mux.HandleFunc("GET /v1/docs/errors", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = errorIndex.Execute(w, map[string]any{"Base": base, "Codes": apierror.Catalog})
	})
	mux.HandleFunc("GET /v1/docs/errors/{code}", func(w http.ResponseWriter, r *http.Request) {
		d, ok := apierror.Lookup(r.PathValue("code"))
		if !ok {
			transport.Fail(w, r, apierror.NotFound("error code", r.PathValue("code")))
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = errorPage.Execute(w, struct {
			apierror.Doc
			Base string
		}{d, base})
	})
}
