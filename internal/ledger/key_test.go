package ledger_test

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/discolab/disco/internal/ledger"
)

func TestLoadOrCreateKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "ledger.key")
	var (
		wg   sync.WaitGroup
		keys [8]*ledger.Key
		errs [8]error
	)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i], errs[i] = ledger.LoadOrCreateKey(path)
		}()
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if keys[i].VerifierKey != keys[0].VerifierKey {
			t.Fatalf("concurrent first uses produced different keys")
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", info.Mode().Perm())
	}
	again, err := ledger.LoadOrCreateKey(path)
	if err != nil || again.VerifierKey != keys[0].VerifierKey {
		t.Fatalf("reload gave a different key: %v", err)
	}
	if keys[0].Signer.Name() != ledger.KeyName {
		t.Errorf("key name %q, want %q", keys[0].Signer.Name(), ledger.KeyName)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestParseKeyDerivesTheVerifier(t *testing.T) {
	// Many keys, so that base64 key material containing "+" is covered.
	for range 64 {
		skey, vkey, err := note.GenerateKey(rand.Reader, ledger.KeyName)
		if err != nil {
			t.Fatal(err)
		}
		k, err := ledger.ParseKey(skey)
		if err != nil {
			t.Fatalf("ParseKey(%s): %v", skey, err)
		}
		if k.VerifierKey != vkey {
			t.Fatalf("derived verifier %s, want %s", k.VerifierKey, vkey)
		}
		msg, err := note.Sign(&note.Note{Text: "hello\n"}, k.Signer)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := note.Open(msg, note.VerifierList(k.Verifier)); err != nil {
			t.Fatalf("signature does not verify: %v", err)
		}
	}
	if _, err := ledger.ParseKey("PRIVATE+KEY+x+00000000+AAAA"); err == nil {
		t.Error("malformed key accepted")
	}
}

func TestOpenCheckpointRejectsForeignSignature(t *testing.T) {
	a, _ := ledger.ParseKey(mustSkey(t))
	b, _ := ledger.ParseKey(mustSkey(t))
	msg, _ := note.Sign(&note.Note{Text: "disco ledger proj_1\n3\n" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" + "\n"}, a.Signer)
	if _, err := ledger.OpenCheckpoint(string(msg), a.Verifier); err != nil {
		t.Fatalf("own checkpoint: %v", err)
	}
	if _, err := ledger.OpenCheckpoint(string(msg), b.Verifier); err == nil {
		t.Fatal("checkpoint accepted with another key")
	}
}

func mustSkey(t *testing.T) string {
	skey, _, err := note.GenerateKey(rand.Reader, ledger.KeyName)
	if err != nil {
		t.Fatal(err)
	}
	return skey
}
