// Package scratch holds the service's temporary files (issue 17): they live in a directory
// private to the service's user (0700, never the shared temporary directory itself), are
// created 0600, are locked while in use, and those a killed process left behind are swept
// at the next start. Redact keeps their paths out of messages that leave the process.
package scratch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// Dir prepares the scratch directory and returns its absolute path. "" means a directory
// named disco-<uid> under os.TempDir. A missing directory is created 0700; an existing one
// must be a real directory (not a symlink) owned by this user, and is narrowed to 0700, so
// another user of a shared /tmp cannot plant or read files in it.
func Dir(dir string) (string, error) {
	if dir == "" {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("disco-%d", os.Getuid()))
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("scratch directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("scratch directory: %w", err)
	}
	info, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("scratch directory: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("scratch directory %s is not a directory", dir)
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("scratch directory %s belongs to uid %d, not to this process's uid %d", dir, st.Uid, os.Getuid())
	}
	if info.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", fmt.Errorf("scratch directory: %w", err)
		}
	}
	return dir, nil
}

// Create makes a new file in dir named prefix followed by random characters, mode 0600
// (os.CreateTemp), and takes an exclusive flock(2) on it that lasts until the file is
// closed or the process dies, so Sweep leaves it alone while it is in use.
func Create(dir, prefix string) (*os.File, error) {
	f, err := os.CreateTemp(dir, prefix+"*")
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("lock scratch file: %w", err)
	}
	return f, nil
}

// Remove closes and deletes a file made by Create.
func Remove(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}

// Sweep deletes the regular files in dir whose names start with prefix and that no
// process holds locked (see Create): files a killed process left behind. It returns how
// many it deleted.
func Sweep(dir, prefix string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			if os.Remove(path) == nil {
				removed++
			}
		}
		f.Close()
	}
	return removed, nil
}

// absPath matches an absolute file path of two or more segments that starts a word.
var absPath = regexp.MustCompile(`(^|[\s"'(=:\[])(/[^\s"'():,\[\]]*/[^\s"'():,\[\]]*)`)

// Redact replaces absolute file paths in msg with "<path>", so messages that reach clients,
// resource status or events never reveal the server's directories (issue 17).
func Redact(msg string) string {
	return absPath.ReplaceAllString(msg, "$1<path>")
}
