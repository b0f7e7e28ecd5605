package apiserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// Bootstrap reuses the admin key of the previous start while it is active and holds
// every scope, reading its plaintext from the credentials file beside the store, and
// otherwise mints a new one and revokes the earlier ones: restarts do not pile up
// full-scope keys (issue 17).
func TestBootstrapReusesOrRevokes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	opts := Options{Store: st, Logger: logr.Discard()}
	tenant := ids.New(ids.Tenant)
	credentials := filepath.Join(dir, credentialsFile)
	writeCreds := func(key, tenantID string) {
		t.Helper()
		b, _ := json.Marshal(map[string]string{"base_url": "http://127.0.0.1:1/v1", "api_key": key, "tenant_id": tenantID})
		if err := os.WriteFile(credentials, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	bootstrap := func() string {
		t.Helper()
		key, err := Bootstrap(ctx, opts, tenant)
		if err != nil {
			t.Fatal(err)
		}
		return key
	}
	key := func(plain string) store.APIKey {
		t.Helper()
		k, err := st.APIKeyByHash(ctx, store.HashAPIKey(plain))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	revoked := func(plain string) bool { return key(plain).RevokedAt != nil }

	// Earlier versions minted a key on every start; the first start revokes that pile.
	pile := make([]string, 3)
	for i := range pile {
		_, pile[i], err = st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: tenant, Name: bootstrapKeyName, Scopes: []string{"projects:read"}, CreatedBy: bootstrapActor})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A key someone made through the API is not Bootstrap's to revoke.
	_, other, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: tenant, Name: bootstrapKeyName, Scopes: []string{"projects:read"}, CreatedBy: "key_someone"})
	if err != nil {
		t.Fatal(err)
	}

	first := bootstrap() // no credentials file yet
	for _, k := range pile {
		if !revoked(k) {
			t.Fatal("an earlier bootstrap key is still valid")
		}
	}
	if revoked(other) || revoked(first) {
		t.Fatal("Bootstrap revoked a key it should keep")
	}

	writeCreds(first, tenant)
	if again := bootstrap(); again != first || revoked(first) {
		t.Fatalf("the stored key was not reused: %s, revoked %v", again, revoked(first))
	}

	// Another tenant's key in the file is not reused.
	writeCreds(first, ids.New(ids.Tenant))
	second := bootstrap()
	if second == first || !revoked(first) || revoked(second) {
		t.Fatalf("with another tenant's credentials: reused %v, first revoked %v", second == first, revoked(first))
	}

	// A key that lacks a scope of auth.All (minted before the scope existed) is replaced.
	writeCreds(second, tenant)
	if _, err := st.DB().ExecContext(ctx, `UPDATE api_keys SET scopes = '["projects:read"]' WHERE id = ?`, key(second).ID); err != nil {
		t.Fatal(err)
	}
	third := bootstrap()
	if third == second || !revoked(second) {
		t.Fatal("a key without every scope was reused")
	}

	// A revoked key is replaced too, and a malformed file is ignored.
	writeCreds(third, tenant)
	if err := st.RevokeAPIKey(ctx, tenant, key(third).ID); err != nil {
		t.Fatal(err)
	}
	fourth := bootstrap()
	if fourth == third || revoked(fourth) {
		t.Fatal("a revoked key was reused")
	}
	if err := os.WriteFile(credentials, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if fifth := bootstrap(); fifth == fourth || !revoked(fourth) {
		t.Fatal("a malformed credentials file did not lead to a new key")
	}
}
