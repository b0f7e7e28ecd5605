package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/discolab/disco/internal/ledger"
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
