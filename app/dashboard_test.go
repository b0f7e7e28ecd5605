package app

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/internal/store"
)

// disco dev prints the same dashboard password on every start: it is kept in
// credentials.json; a data dir whose credentials lack it gets the admin user anew.
func TestDevDashboardUserKeepsItsPassword(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := sqliteStore(t, dir)
	const tenant = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	user, password, err := devDashboardUser(ctx, st, tenant, dir)
	if err != nil || user == "" || password == "" {
		t.Fatalf("first start: %q %q %v", user, password, err)
	}
	if err := writeJSONFile(filepath.Join(dir, "credentials.json"), credentials{DashboardUser: user, DashboardPassword: password}); err != nil {
		t.Fatal(err)
	}
	u2, p2, err := devDashboardUser(ctx, st, tenant, dir)
	if err != nil || u2 != user || p2 != password {
		t.Fatalf("restart: %q %q %v, want %q %q", u2, p2, err, user, password)
	}
	if err := os.Remove(filepath.Join(dir, "credentials.json")); err != nil {
		t.Fatal(err)
	}
	u3, p3, err := devDashboardUser(ctx, st, tenant, dir)
	if err != nil || u3 != user || p3 == password {
		t.Fatalf("without credentials: %q %q %v", u3, p3, err)
	}
	if _, ok, err := st.VerifyPassword(ctx, u3, p3); !ok || err != nil {
		t.Errorf("the new password does not sign in: %v", err)
	}
}

// The dashboard takes its own paths; /v1, the probes and the rest stay the facade's.
func TestWithDashboardRoutes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := sqliteStore(t, dir)
	keyPath := filepath.Join(dir, "ledger.key")
	if err := os.WriteFile(keyPath, []byte("a-ledger-key-file-of-enough-length-for-hkdf"), 0o600); err != nil {
		t.Fatal(err)
	}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h, err := withDashboard(ctx, api, apiserver.Options{Store: st, BaseURL: "http://127.0.0.1:8080/v1", Logger: logr.Discard()},
		"", keyPath, func(context.Context, string) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{"/v1/projects": http.StatusTeapot, "/healthz": http.StatusTeapot,
		"/projects": http.StatusSeeOther, "/static/app.css": http.StatusOK, "/signin?tenant=ten_aaaaaaaaaaaaaaaaaaaaaaaaaa": http.StatusNotFound} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want {
			t.Errorf("GET %s = %d, want %d", path, rec.Code, want)
		}
	}
}

func sqliteStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
