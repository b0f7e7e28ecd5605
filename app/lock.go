package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// dataDirLock is an exclusive flock on <data-dir>/disco.lock: two `disco dev` processes on
// one data dir would run two etcds over the same files and corrupt them.
type dataDirLock struct{ f *os.File }

func lockDataDir(dir string) (*dataDirLock, error) {
	path := filepath.Join(dir, "disco.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		raw, _ := os.ReadFile(path)
		f.Close()
		holder := strings.TrimSpace(string(raw))
		if holder == "" {
			holder = "another process"
		} else {
			holder = "process " + holder
		}
		return nil, fmt.Errorf("data dir %s is in use by %s (another `disco dev`?); stop it first or pass a different --data-dir", dir, holder)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // only names the holder in the error above
	}
	return &dataDirLock{f: f}, nil
}

func (l *dataDirLock) release() {
	_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) // Close releases it too
	l.f.Close()
}
