package blob_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/discolab/disco/internal/blob"
)

func openTemp(t *testing.T) (*blob.Bucket, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bucket") // does not exist yet: Open creates it
	b, err := blob.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, dir
}

// files lists every regular file under dir, whatever fileblob names them.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	b, dir := openTemp(t)
	if err := b.Put(ctx, "datasets/ds_1/data.csv", []byte("a,b\n1,2\n")); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Exists(ctx, "datasets/ds_1/data.csv"); err != nil || !ok {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	r, err := b.Get(ctx, "datasets/ds_1/data.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != "a,b\n1,2\n" {
		t.Fatalf("Get = %q", got)
	}
	if n, err := b.Size(ctx, "datasets/ds_1/data.csv"); err != nil || n != 8 {
		t.Fatalf("Size = %d, %v", n, err)
	}
	local := filepath.Join(t.TempDir(), "work", "data.csv")
	if err := b.Download(ctx, "datasets/ds_1/data.csv", local); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(local); string(b) != "a,b\n1,2\n" {
		t.Fatalf("downloaded %q", b)
	}
	if err := b.Delete(ctx, "datasets/ds_1/data.csv"); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, "datasets/ds_1/data.csv"); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if ok, _ := b.Exists(ctx, "datasets/ds_1/data.csv"); ok {
		t.Fatal("object still exists after Delete")
	}
	if _, err := b.Get(ctx, "datasets/ds_1/data.csv"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get after delete: %v, want ErrNotFound", err)
	}
	if err := b.Download(ctx, "missing", filepath.Join(t.TempDir(), "x")); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Download of a missing key: %v, want ErrNotFound", err)
	}
	if left := files(t, dir); len(left) != 0 {
		t.Fatalf("files left in the bucket: %v", left)
	}
}

// pattern is an io.Reader of n deterministic bytes that never holds them all.
type pattern struct{ n, off int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.off >= p.n {
		return 0, io.EOF
	}
	k := min(int64(len(b)), p.n-p.off)
	for i := range k {
		b[i] = byte((p.off + i) * 7 % 251)
	}
	p.off += k
	return int(k), nil
}

func patternSHA(n int64) string {
	h := sha256.New()
	_, _ = io.Copy(h, &pattern{n: n}) // neither side fails
	return hex.EncodeToString(h.Sum(nil))
}

func TestPutStreamStreamsWithSizeAndHash(t *testing.T) {
	ctx := context.Background()
	b, _ := openTemp(t)
	const size = 16 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, sum, err := b.PutStream(ctx, "big.bin", &pattern{n: size}, size) // exactly at the limit is allowed
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n != size || sum != patternSHA(size) {
		t.Fatalf("PutStream = %d bytes, sha %s; want %d, %s", n, sum, size, patternSHA(size))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("PutStream allocated %d bytes for a %d byte stream: it buffers", alloc, size)
	}
	r, err := b.Get(ctx, "big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h := sha256.New()
	if m, _ := io.Copy(h, r); m != size || hex.EncodeToString(h.Sum(nil)) != sum {
		t.Fatal("stored object differs from the stream")
	}
	if n, sum, err := b.PutStream(ctx, "empty", strings.NewReader(""), 10); err != nil || n != 0 ||
		sum != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Fatalf("empty stream: %d, %s, %v", n, sum, err)
	}
}

func TestPutStreamTooLargeLeavesNothing(t *testing.T) {
	ctx := context.Background()
	b, dir := openTemp(t)
	_, _, err := b.PutStream(ctx, "datasets/ds_1/data.parquet", &pattern{n: 1 << 20}, 1<<20-1)
	if !errors.Is(err, blob.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if ok, _ := b.Exists(ctx, "datasets/ds_1/data.parquet"); ok {
		t.Fatal("an oversized upload was stored")
	}
	if left := files(t, dir); len(left) != 0 {
		t.Fatalf("partial files left behind: %v", left)
	}
}

type failingReader struct{ after int }

func (f *failingReader) Read(b []byte) (int, error) {
	if f.after <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(b), f.after)
	f.after -= n
	return n, nil
}

func TestPutStreamReaderFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	b, dir := openTemp(t)
	if err := b.Put(ctx, "keep", []byte("old")); err != nil {
		t.Fatal(err)
	}
	_, _, err := b.PutStream(ctx, "keep", &failingReader{after: 100_000}, 0)
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("err = %v, want the reader's error", err)
	}
	// The aborted write neither stored half an object nor clobbered the old one.
	r, err := b.Get(ctx, "keep")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != "old" {
		t.Fatalf("object after a failed overwrite has %d bytes, want the old 3", len(got))
	}
	if _, _, err := b.PutStream(ctx, "fresh", &failingReader{after: 10}, 0); err == nil {
		t.Fatal("failing reader accepted")
	}
	if ok, _ := b.Exists(ctx, "fresh"); ok {
		t.Fatal("half an object stored")
	}
	for _, f := range files(t, dir) {
		if !strings.Contains(f, "keep") {
			t.Errorf("stray file %s", f)
		}
	}
}

func TestKeysThatEscapeAreRefused(t *testing.T) {
	ctx := context.Background()
	b, dir := openTemp(t)
	for _, key := range []string{
		"", "../outside", "a/../../outside", "a/..", "..", "/etc/passwd", `a\..\b`, `a\b`,
		"a//b", "a/", "./a", "a/./b", "C:/x", "a\x00b", "a\nb", strings.Repeat("k", 1025),
	} {
		if err := blob.ValidateKey(key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", key, err)
		}
		if _, _, err := b.PutStream(ctx, key, strings.NewReader("x"), 0); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("PutStream(%q) = %v", key, err)
		}
		if err := b.Put(ctx, key, []byte("x")); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Put(%q) = %v", key, err)
		}
		if _, err := b.Get(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Get(%q) = %v", key, err)
		}
		if err := b.Delete(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v", key, err)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside")); !os.IsNotExist(err) {
		t.Fatal("a file was written outside the bucket")
	}
	for _, key := range []string{"a", "datasets/ds_1/data.csv", "runs/run_1/results.json", "a..b/c", "...x", "ünï/cödé"} {
		if err := blob.ValidateKey(key); err != nil {
			t.Errorf("ValidateKey(%q) = %v, want ok", key, err)
		}
	}
}
