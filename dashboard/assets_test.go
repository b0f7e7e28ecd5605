package dashboard

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestVendoredHTMXMatchesLockfile checks the embedded htmx against the npm lockfile: the
// package tarball make build fetched has the lockfile's sha512 integrity (as npm writes it,
// "sha512-" and base64), and the embedded file is that tarball's dist/htmx.min.js.
func TestVendoredHTMXMatchesLockfile(t *testing.T) {
	raw, err := os.ReadFile("web/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(raw, &lock); err != nil {
		t.Fatal(err)
	}
	pkg, ok := lock.Packages["node_modules/htmx.org"]
	if !ok || pkg.Integrity == "" {
		t.Fatal("package-lock.json pins no htmx.org with an integrity hash")
	}
	embedded, err := files.ReadFile("static/vendor/htmx.min.js")
	if err != nil {
		t.Fatalf("htmx is not vendored (run make build): %v", err)
	}
	tgz, err := os.ReadFile(filepath.Join("web", "pack", "htmx.org-"+pkg.Version+".tgz"))
	if err != nil {
		t.Fatalf("the htmx.org %s tarball is missing (run make build): %v", pkg.Version, err)
	}
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != pkg.Integrity {
		t.Fatalf("tarball integrity %s, lockfile %s", got, pkg.Integrity)
	}
	dist := fileInTarball(t, tgz, "package/dist/htmx.min.js")
	if !bytes.Equal(dist, embedded) {
		t.Fatal("the embedded htmx.min.js is not the one in the locked package")
	}
}

func fileInTarball(t *testing.T, tgz []byte, name string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("%s is not in the package", name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name {
			b, err := io.ReadAll(io.LimitReader(tr, 10<<20))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}
