package datasource

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// ErrOutside is a file name that resolves, through ".." or a symbolic link, outside the
// directory it is opened in.
var ErrOutside = errors.New("outside the directory")

// ErrNotRegular is a name that is not a regular file (a directory, a FIFO, a device).
var ErrNotRegular = errors.New("not a regular file")

// OpenRegularFile opens name, relative to dir, for reading through os.Root, which refuses
// any name, symbolic links included, that resolves outside dir (ErrOutside). Only a
// regular file opens (ErrNotRegular otherwise); a name that does not exist gives an error
// matching fs.ErrNotExist. It is the one way disco opens a file a tenant names: a file://
// source under the dataset source root, and a file on a tenant's PersistentVolumeClaim in
// the fetch Job (`disco engine fetch-source`).
func OpenRegularFile(dir, name string) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// O_NONBLOCK: opening a FIFO (or a device) for reading would otherwise wait for a
	// writer, holding the reader for ever; it is refused below as not regular. On a regular
	// file the flag changes nothing (open(2)).
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, err
	case err != nil && strings.Contains(err.Error(), "escapes from parent"):
		return nil, fmt.Errorf("%s: %w", name, ErrOutside)
	case err != nil:
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		_ = f.Close() // read-only: nothing to lose
		return nil, fmt.Errorf("%s: %w", name, ErrNotRegular)
	}
	return f, nil
}
