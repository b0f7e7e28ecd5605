package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/ledger/ledgertest"
	"github.com/discolab/disco/internal/store"
)

// TestLedgerVerifySinceCatchesRewrite is issue 17 end to end: against a running `disco
// dev`, someone with access to its database rewrites (then truncates) a project's ledger
// consistently. The facade's /verify still says valid; `disco ledger verify --since`
// with a checkpoint kept from before fails and says why. A legitimate append passes.
func TestLedgerVerifySinceCatchesRewrite(t *testing.T) {
	dir := t.TempDir()
	p := startDev(t, dir, freeAddr(t))
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}
	ctx := context.Background()
	pid := a.must(201, "POST", "/projects", map[string]any{"name": "ledger since"})["id"].(string)

	// Entries are appended through the ledger library on the stack's own database, as
	// the controllers append them; the signing key is not needed to append.
	st, err := store.Open(ctx, "sqlite://"+filepath.Join(dir, "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := ledgertest.Appender(st)
	if err != nil {
		t.Fatal(err)
	}
	appendN := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := l.Append(ctx, ledger.Entry{TenantID: p.creds.TenantID, ProjectID: pid, EventType: ledger.ClaimCreated,
				ClaimID: fmt.Sprintf("clm_%d", i), Details: map[string]any{"claim_type": "law", "truth_dial_score": 0.5}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	disco := func(args ...string) (string, string, error) {
		cmd := exec.Command(binary, append([]string{"ledger", "--credentials", filepath.Join(dir, "credentials.json")}, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	appendN(6)

	// The published key is the stack's signing key.
	vkey, _, err := disco("verifier-key")
	if err != nil {
		t.Fatal(err)
	}
	signing, err := ledger.LoadOrCreateKey(filepath.Join(dir, "ledger.key"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(vkey) != signing.VerifierKey {
		t.Fatalf("disco ledger verifier-key = %q, the stack signs with %q", vkey, signing.VerifierKey)
	}
	pinned := filepath.Join(dir, "ledger.vkey")
	if err := os.WriteFile(pinned, []byte(vkey), 0o600); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "kept.checkpoint")
	if out, errOut, err := disco("checkpoint", pid, "-o", kept, "--key", "@"+pinned); err != nil {
		t.Fatalf("disco ledger checkpoint: %v\n%s%s", err, out, errOut)
	}

	appendN(2)
	if out, errOut, err := disco("verify", "--since", kept, "--key", "@"+pinned); err != nil || !strings.Contains(out, "OK: the ledger of "+pid) {
		t.Fatalf("after a legitimate append: %v\n%s%s", err, out, errOut)
	}

	for _, attack := range []struct {
		name string
		do   func() error
		want string
	}{
		{"consistent rewrite of entry 3", func() error {
			return ledgertest.Rewrite(ctx, st, pid, 3, func(e *ledger.Entry) {
				if e.TreeIndex == 3 {
					e.Details["truth_dial_score"] = 0.99
				}
			})
		}, "the ledger was rewritten since the kept checkpoint"},
		{"truncation to 4 entries", func() error { return ledgertest.Truncate(ctx, st, pid, 4) }, "the ledger lost entries since the kept checkpoint"},
	} {
		if err := attack.do(); err != nil {
			t.Fatalf("%s: %v", attack.name, err)
		}
		if v := a.must(200, "GET", "/projects/"+pid+"/ledger/verify", nil); v["valid"] != true {
			t.Fatalf("%s: /verify = %v; it cannot tell, and should still say valid", attack.name, v)
		}
		out, errOut, err := disco("verify", "--since", kept, "--key", "@"+pinned)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(errOut, attack.want) ||
			!strings.Contains(errOut, "does not extend the checkpoint in "+kept) || !strings.Contains(out, "service      verify: valid") {
			t.Fatalf("%s: disco ledger verify --since = %v\nstdout:\n%s\nstderr:\n%s", attack.name, err, out, errOut)
		}
		t.Logf("%s:\n%s%s", attack.name, out, errOut)
	}
}
