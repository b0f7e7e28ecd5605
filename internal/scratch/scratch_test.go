package scratch

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCreateIsPrivateAndSweepKeepsFilesInUse(t *testing.T) {
	dir, err := Dir(filepath.Join(t.TempDir(), "scratch"))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", info.Mode().Perm())
	}
	inUse, err := Create(dir, "upload-")
	if err != nil {
		t.Fatal(err)
	}
	defer Remove(inUse)
	if info, _ := inUse.Stat(); info.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", info.Mode().Perm())
	}
	// A file a killed process left behind holds no lock.
	orphan := filepath.Join(dir, "upload-orphan")
	if err := os.WriteFile(orphan, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "keep-me")
	if err := os.WriteFile(other, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	n, err := Sweep(dir, "upload-")
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want 1", n, err)
	}
	for path, want := range map[string]bool{orphan: false, other: true, inUse.Name(): true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists = %v, want %v", path, err == nil, want)
		}
	}
}

func TestDirNarrowsAndRefuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "wide")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(dir); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(dir); info.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", info.Mode().Perm())
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(link); err == nil {
		t.Error("a symlink was accepted as the scratch directory")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Dir(file); err == nil {
		t.Error("a file was accepted as the scratch directory")
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"cannot open dataset file: open /tmp/profile-123/data.csv: no such file or directory": "cannot open dataset file: open <path>: no such file or directory",
		`read "/var/lib/disco/tmp/upload-9": input/output error`:                              `read "<path>": input/output error`,
		"blob: read file:///home/u/.disco/blobs/x: denied":                                    "blob: read file:<path>: denied",
		`column "N/A rate" holds km/h values, 3/4 of them`:                                    `column "N/A rate" holds km/h values, 3/4 of them`,
		"line 3 has 2 fields but the header has 3":                                            "line 3 has 2 fields but the header has 3",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
