// Command openapi prints the facade's OpenAPI document, what GET /v1/openapi.json serves,
// without a cluster or a database server: the facade is built on controller-runtime's fake
// client and a throwaway SQLite store, and asked for the document through its handler.
// hack/gen-python-models.sh generates the Python client's models from it.
//
//	go run ./hack/openapi > openapi.json
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/internal/store"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "openapi:", err)
		os.Exit(1)
	}
}

func run() error {
	dir, err := os.MkdirTemp("", "disco-openapi-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "store.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	scheme := runtime.NewScheme()
	if err := discov1.AddToScheme(scheme); err != nil {
		return err
	}
	srv, err := apiserver.New(apiserver.Options{
		Client:     fake.NewClientBuilder().WithScheme(scheme).Build(),
		Store:      st,
		Logger:     logr.Discard(),
		BaseURL:    "/v1",
		ScratchDir: filepath.Join(dir, "scratch"),
	})
	if err != nil {
		return err
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/openapi.json", nil))
	if rec.Code != http.StatusOK {
		return fmt.Errorf("GET /v1/openapi.json: %d %s", rec.Code, rec.Body.Bytes())
	}
	var out bytes.Buffer
	if err := json.Indent(&out, rec.Body.Bytes(), "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = out.WriteTo(os.Stdout)
	return err
}
