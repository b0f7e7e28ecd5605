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

// Bootstrap reuses the admin key the caller kept from an earlier call while it is active
// and holds every scope, and otherwise mints a new one and revokes the earlier ones:
// restarts do not pile up full-scope keys (issue 17).
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
	bootstrap := func(previous string) string {
		t.Helper()
		key, err := Bootstrap(ctx, opts, tenant, previous)
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

	first := bootstrap("") // nothing kept yet
	for _, k := range pile {
		if !revoked(k) {
			t.Fatal("an earlier bootstrap key is still valid")
		}
	}
	if revoked(other) || revoked(first) {
		t.Fatal("Bootstrap revoked a key it should keep")
	}

	if again := bootstrap(first); again != first || revoked(first) {
		t.Fatalf("the stored key was not reused: %s, revoked %v", again, revoked(first))
	}

	// Without the kept key a new one is minted, whatever lies beside the store: `disco
	// bootstrap admin-key` rotates the key of a `disco dev` data dir.
	b, _ := json.Marshal(map[string]string{"api_key": first, "tenant_id": tenant})
	if err := os.WriteFile(filepath.Join(dir, "credentials.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	second := bootstrap("")
	if second == first || !revoked(first) || revoked(second) {
		t.Fatalf("without a kept key: reused %v, first revoked %v", second == first, revoked(first))
	}
	// Another tenant's key is not reused.
	other2, err := Bootstrap(ctx, opts, ids.New(ids.Tenant), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := bootstrap(other2); got == other2 || revoked(other2) {
		t.Fatalf("another tenant's key: reused %v, revoked %v", got == other2, revoked(other2))
	}
	second = bootstrap(second)

	// A key that lacks a scope of auth.All (minted before the scope existed) is replaced.
	if _, err := st.DB().ExecContext(ctx, `UPDATE api_keys SET scopes = '["projects:read"]' WHERE id = ?`, key(second).ID); err != nil {
		t.Fatal(err)
	}
	third := bootstrap(second)
	if third == second || !revoked(second) {
		t.Fatal("a key without every scope was reused")
	}

	// A revoked key is replaced too, and a malformed key is ignored.
	if err := st.RevokeAPIKey(ctx, tenant, key(third).ID); err != nil {
		t.Fatal(err)
	}
	fourth := bootstrap(third)
	if fourth == third || revoked(fourth) {
		t.Fatal("a revoked key was reused")
	}
	if fifth := bootstrap("{not a key"); fifth == fourth || !revoked(fourth) {
		t.Fatal("a malformed key did not lead to a new key")
	}
}
