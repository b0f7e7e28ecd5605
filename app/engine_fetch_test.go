package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/runexec"
)

// TestFetchSourceCopiesOnlyRegularFilesOnTheClaim plays a fetch Job's pod on a directory
// standing for the mounted claim: the file is copied whole; a name that leaves the claim,
// a FIFO, a directory or a file too large store a refusal; a missing file stores a record
// to try again.
func TestFetchSourceCopiesOnlyRegularFilesOnTheClaim(t *testing.T) {
	ctx := context.Background()
	claim, outside := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	body := []byte("x,y\n1,2\n3,4\n")
	must(os.MkdirAll(filepath.Join(claim, "runs"), 0o755))
	must(os.WriteFile(filepath.Join(claim, "runs", "sachs.csv"), body, 0o644))
	must(os.WriteFile(filepath.Join(outside, "secret.csv"), []byte("a,b\n"), 0o644))
	must(os.Symlink(filepath.Join(outside, "secret.csv"), filepath.Join(claim, "link.csv")))
	must(syscall.Mkfifo(filepath.Join(claim, "pipe.csv"), 0o644))
	b, err := blob.Open(ctx, "file://"+t.TempDir())
	must(err)
	defer b.Close()

	for _, name := range []string{"runs/sachs.csv", "/runs/sachs.csv", "runs/../runs/sachs.csv"} {
		key := "datasets/t/ns/sources/d/" + strings.ReplaceAll(name, "/", "_") + "/data"
		rec, err := fetchFromDir(ctx, b, claim, name, "lab", key, 1<<20)
		if err != nil || rec != nil {
			t.Fatalf("%s: record %+v, error %v; want the file copied", name, rec, err)
		}
		rc, err := b.Get(ctx, key)
		must(err)
		got, _ := io.ReadAll(rc)
		_ = rc.Close()
		if !bytes.Equal(got, body) {
			t.Fatalf("%s: stored %q, want %q", name, got, body)
		}
	}
	for _, c := range []struct {
		name, want string
		refused    bool
		max        int64
	}{
		{"link.csv", "leads outside the PersistentVolumeClaim lab", true, 1 << 20},
		{"../" + filepath.Base(outside) + "/secret.csv", "", false, 1 << 20}, // cleaned to a name on the claim, which is missing
		{"pipe.csv", "is not a regular file", true, 1 << 20},
		{"runs", "is not a regular file", true, 1 << 20},
		{"/", "names no file", true, 1 << 20},
		{"runs/sachs.csv", "is larger than 4 bytes", true, 4},
		{"runs/missing.csv", "does not exist on the PersistentVolumeClaim lab (yet)", false, 1 << 20},
	} {
		key := "datasets/t/ns/sources/refused/data"
		rec, err := fetchFromDir(ctx, b, claim, c.name, "lab", key, c.max)
		if err != nil || rec == nil {
			t.Fatalf("%s: record %+v, error %v; want a record", c.name, rec, err)
		}
		if rec.Refused != c.refused || !strings.Contains(rec.Message, c.want) {
			t.Errorf("%s: record %+v; want refused=%v and %q", c.name, rec, c.refused, c.want)
		}
		if ok, _ := b.Exists(ctx, key); ok {
			t.Errorf("%s: a file was stored", c.name)
		}
	}
}

// TestFetchSourceCommandStoresItsRecord runs the command as the Job does: a refusal is
// stored at --error-key as JSON and the command exits 0; a copied file is hashed as stored.
func TestFetchSourceCommandStoresItsRecord(t *testing.T) {
	claim, store := t.TempDir(), t.TempDir()
	body := []byte("x,y\n1,2\n")
	if err := os.WriteFile(filepath.Join(claim, "ok.csv"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(path string) error {
		cmd := newEngineFetchCommand()
		cmd.SetArgs([]string{"--root", claim, "--path", path, "--claim", "lab", "--blob-url", "file://" + store,
			"--key", "k/" + path + "/data", "--error-key", "k/" + path + "/error.json", "--max-bytes", "100"})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		return cmd.ExecuteContext(context.Background())
	}
	if err := run("ok.csv"); err != nil {
		t.Fatal(err)
	}
	stored, err := os.ReadFile(filepath.Join(store, "k", "ok.csv", "data"))
	if err != nil || !bytes.Equal(stored, body) {
		t.Fatalf("stored %q (%v), want %q", stored, err, body)
	}
	if err := run("missing.csv"); err != nil {
		t.Fatalf("a missing file: %v; want a record and exit 0", err)
	}
	raw, err := os.ReadFile(filepath.Join(store, "k", "missing.csv", "error.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec runexec.FetchRecord
	if err := json.Unmarshal(raw, &rec); err != nil || rec.Refused || !strings.Contains(rec.Message, "missing.csv does not exist") {
		t.Fatalf("record %s (%v)", raw, err)
	}
}
