package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/dashboard/api"
	"github.com/discolab/disco/internal/store"
)

// The dashboard decodes the REST API's answers into its own types, which hold only the
// fields it shows: it is a client of the public contract and imports nothing of the facade
// (dashboard/doc.go). Issue 16 wants one source per public shape, so the facade's OpenAPI
// document is that source and this test checks the dashboard's types against it, as
// clients/python/tests/test_generated.py does for the Python models: every field the
// dashboard reads, at every depth, is a property of the schema the API declares for it.

// schemas names the component schema of /v1/openapi.json each type decodes.
var schemas = map[string]any{
	"Project":               api.Project{},
	"ListPageProject":       api.List[api.Project]{},
	"Campaign":              api.Campaign{},
	"Run":                   api.Run{},
	"RunStatus":             api.RunStatus{},
	"RunResults":            api.RunResults{},
	"Artifact":              api.Artifact{},
	"Claim":                 api.Claim{},
	"NegativeControlResult": api.Control{},
	"Dataset":               api.Dataset{},
	"DatasetProfile":        api.Profile{},
	"LedgerEntry":           api.LedgerEntry{},
	"InclusionProof":        api.InclusionProof{},
	"APIKey":                api.APIKey{},
	"TokenResponse":         api.Token{},
	"Webhook":               api.Webhook{},
	"Delivery":              api.Delivery{},
	"OAuthClient":           api.OAuthClient{},
	"ErrorBody":             api.Error{},
}

func TestTypesReadOnlyFieldsTheOpenAPIDocumentDeclares(t *testing.T) {
	doc := servedOpenAPI(t)
	for name, v := range schemas {
		s, ok := doc.Components.Schemas[name]
		if !ok {
			t.Errorf("/v1/openapi.json has no schema %s (for %T)", name, v)
			continue
		}
		doc.check(t, name, reflect.TypeOf(v), s)
	}
}

// The check reports a field the document lacks, also below the top level.
func TestTheShapeCheckFindsMissingFields(t *testing.T) {
	doc := servedOpenAPI(t)
	type renamed struct {
		ID       string `json:"id"`
		Evidence struct {
			Gone *float64 `json:"r_squared_gone"`
		} `json:"evidence"`
	}
	probe := &recorder{}
	doc.check(probe, "Claim", reflect.TypeFor[renamed](), doc.Components.Schemas["Claim"])
	if len(probe.errs) != 1 || !strings.Contains(probe.errs[0], "Claim.evidence.r_squared_gone") {
		t.Errorf("the check reported %q, want one error for Claim.evidence.r_squared_gone", probe.errs)
	}
}

// reporter is the part of testing.T the check reports to.
type reporter interface {
	Errorf(format string, args ...any)
}

// recorder keeps what the check reports.
type recorder struct{ errs []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// schema is the part of a JSON Schema the check walks.
type schema struct {
	Ref                  string             `json:"$ref"`
	Properties           map[string]*schema `json:"properties"`
	Items                *schema            `json:"items"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
	AllOf                []*schema          `json:"allOf"`
	AnyOf                []*schema          `json:"anyOf"`
	OneOf                []*schema          `json:"oneOf"`
}

type openAPI struct {
	Components struct {
		Schemas map[string]*schema `json:"schemas"`
	} `json:"components"`
}

// alternatives are the schemas a value of s may match: s itself with its $ref resolved,
// and the members of its allOf, anyOf and oneOf.
func (d *openAPI) alternatives(s *schema) []*schema {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		return d.alternatives(d.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")])
	}
	out := []*schema{s}
	for _, group := range [][]*schema{s.AllOf, s.AnyOf, s.OneOf} {
		for _, m := range group {
			out = append(out, d.alternatives(m)...)
		}
	}
	return out
}

// check reports every JSON field of t (a struct, at any depth) that s does not declare.
func (d *openAPI) check(r reporter, path string, t reflect.Type, s *schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	alts := d.alternatives(s)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t == reflect.TypeFor[json.RawMessage]() {
			return
		}
		for _, a := range alts {
			if a.Items != nil {
				d.check(r, path+"[]", t.Elem(), a.Items)
				return
			}
		}
		if isStruct(t.Elem()) {
			r.Errorf("%s: the document declares no items for this list", path)
		}
	case reflect.Map:
		for _, a := range alts {
			var v schema
			if len(a.AdditionalProperties) > 0 && json.Unmarshal(a.AdditionalProperties, &v) == nil {
				d.check(r, path+"{}", t.Elem(), &v)
				return
			}
		}
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || !f.IsExported() {
				continue
			}
			var prop *schema
			for _, a := range alts {
				if p, ok := a.Properties[name]; ok {
					prop = p
					break
				}
			}
			if prop == nil {
				r.Errorf("%s.%s: the dashboard reads a field that /v1/openapi.json does not declare", path, name)
				continue
			}
			d.check(r, path+"."+name, f.Type, prop)
		}
	}
}

func isStruct(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct && t != reflect.TypeFor[time.Time]()
}

// servedOpenAPI is the document GET /v1/openapi.json serves, from a facade built as
// hack/openapi builds it (a fake cluster client and a throwaway SQLite store).
func servedOpenAPI(t *testing.T) *openAPI {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "store.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	srv, err := apiserver.New(apiserver.Options{Client: fake.NewClientBuilder().WithScheme(scheme).Build(), Store: st,
		Logger: logr.Discard(), BaseURL: "/v1", ScratchDir: filepath.Join(dir, "scratch")})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /v1/openapi.json: %d %s", rec.Code, rec.Body.Bytes())
	}
	var doc openAPI
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return &doc
}
