package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// `disco bootstrap ledger-key` makes the key once and keeps it: a second call prints the
// same verifier key and leaves the file as it was.
func TestBootstrapLedgerKeyKeepsTheKey(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys", "ledger.key")
	run := func() string {
		t.Helper()
		cmd := newBootstrapLedgerKeyCommand()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetArgs([]string{file})
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out.String())
	}
	first := run()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ledger.ParseKey(strings.TrimSpace(string(raw)))
	if err != nil || key.VerifierKey != first {
		t.Fatalf("printed %q, the file's key verifies as %v (%v)", first, key, err)
	}
	if again := run(); again != first {
		t.Errorf("second call printed %q, want the kept key %q", again, first)
	}
	if raw2, _ := os.ReadFile(file); !bytes.Equal(raw, raw2) {
		t.Errorf("second call rewrote the key")
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
}

// `disco bootstrap admin-key` mints a new admin key and revokes the one before it, also
// on a `disco dev` data dir, whose credentials.json beside the SQLite store holds the dev
// key: the command rotates the key, it does not hand the dev key out again. `disco dev`
// keeps its key across restarts (keptAdminKey).
func TestBootstrapAdminKeyRotatesTheDevKey(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scheme, err := newScheme()
	if err != nil {
		t.Fatal(err)
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithStatusSubresource(&discov1.Tenant{}).Build()
	// The manager gives the default tenant its namespace.
	go func() {
		for ctx.Err() == nil {
			var list discov1.TenantList
			if c.List(ctx, &list) == nil {
				for i := range list.Items {
					if tn := &list.Items[i]; tn.Status.Namespace == "" {
						tn.Status.Namespace = "tenant-default"
						_ = c.Status().Update(ctx, tn)
					}
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	mint := func() adminKey {
		t.Helper()
		out, err := bootstrapAdminKey(ctx, c, st, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	dev := mint() // as `disco dev` would have made it, then written to credentials.json
	raw, _ := json.Marshal(credentials{APIKey: dev.APIKey, TenantID: dev.TenantID, Namespace: dev.Namespace})
	if err := os.WriteFile(filepath.Join(dir, "credentials.json"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if kept := keptAdminKey(dir, dev.TenantID); kept != dev.APIKey {
		t.Fatalf("disco dev would not keep its key: %q", kept)
	}
	rotated := mint()
	if rotated.APIKey == dev.APIKey || rotated.TenantID != dev.TenantID {
		t.Fatalf("admin-key handed out the dev key again: %+v", rotated)
	}
	for plain, wantRevoked := range map[string]bool{dev.APIKey: true, rotated.APIKey: false} {
		k, err := st.APIKeyByHash(ctx, store.HashAPIKey(plain))
		if err != nil {
			t.Fatal(err)
		}
		if (k.RevokedAt != nil) != wantRevoked {
			t.Errorf("key %s revoked %v, want %v", k.ID, k.RevokedAt != nil, wantRevoked)
		}
	}
}
