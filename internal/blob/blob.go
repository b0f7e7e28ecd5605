// Package blob stores dataset files, run results and artifacts in a bucket: a local
// directory by default (file:///dir) or S3-compatible storage for clusters (s3://...).
// It wraps gocloud.dev/blob with key validation, size limits and streaming checksums,
// so callers never buffer a whole upload and never leave half an object behind.
package blob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// buckets
	_ "gocloud.dev/blob/s3blob"   // s3:// buckets
	"gocloud.dev/gcerrors"
)

var (
	// ErrNotFound: no object with that key.
	ErrNotFound = errors.New("blob: not found")
	// ErrTooLarge: the stream was longer than the allowed maximum; nothing was stored.
	ErrTooLarge = errors.New("blob: object too large")
	// ErrInvalidKey: the key could escape the bucket or is malformed.
	ErrInvalidKey = errors.New("blob: invalid key")
)

// Bucket is an open bucket.
type Bucket struct {
	b *blob.Bucket
}

// Open opens the bucket at rawURL. For file:///dir the directory is created if needed.
// Any URL gocloud.dev/blob understands for fileblob or s3blob works, e.g.
// "s3://bucket?region=us-east-1&endpoint=http://minio:9000&use_path_style=true".
func Open(ctx context.Context, rawURL string) (*Bucket, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob: parse bucket url: %w", err)
	}
	if u.Scheme == "file" {
		if u.Path == "" {
			return nil, fmt.Errorf("blob: file bucket url %q has no directory", rawURL)
		}
		if err := os.MkdirAll(filepath.FromSlash(u.Path), 0o755); err != nil {
			return nil, fmt.Errorf("blob: create bucket directory: %w", err)
		}
	}
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob: open %s: %w", rawURL, err)
	}
	return &Bucket{b: b}, nil
}

// Close releases the bucket.
func (b *Bucket) Close() error { return b.b.Close() }

// PutStream copies r to key while counting and hashing it, without buffering it. If r
// holds more than maxBytes (maxBytes > 0), the write is aborted and ErrTooLarge returned.
// On any failure nothing is stored under key: the write is aborted, and if the failure
// came at the final commit, where the outcome is unknown, the key is deleted.
func (b *Bucket) PutStream(ctx context.Context, key string, r io.Reader, maxBytes int64) (size int64, sha256hex string, err error) {
	if err := ValidateKey(key); err != nil {
		return 0, "", err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.b.NewWriter(wctx, key, nil)
	if err != nil {
		return 0, "", fmt.Errorf("blob: write %s: %w", key, err)
	}
	h := sha256.New()
	src := r
	if maxBytes > 0 {
		src = io.LimitReader(r, maxBytes+1) // one byte more tells "exactly max" from "over"
	}
	n, err := io.Copy(io.MultiWriter(w, h), src)
	if err == nil && maxBytes > 0 && n > maxBytes {
		err = fmt.Errorf("%w: more than %d bytes", ErrTooLarge, maxBytes)
	}
	if err != nil {
		cancel() // aborts the write: gocloud discards an object whose context ends before Close
		w.Close()
		return 0, "", fmt.Errorf("blob: write %s: %w", key, err)
	}
	if err := w.Close(); err != nil {
		_ = b.b.Delete(context.WithoutCancel(ctx), key) // best effort; the commit error is the one to report
		return 0, "", fmt.Errorf("blob: commit %s: %w", key, err)
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}

// Put stores data under key.
func (b *Bucket) Put(ctx context.Context, key string, data []byte) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := b.b.WriteAll(ctx, key, data, nil); err != nil {
		return fmt.Errorf("blob: write %s: %w", key, err)
	}
	return nil
}

// Get opens the object for reading; the caller closes it. A missing key gives
// ErrNotFound.
func (b *Bucket) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	r, err := b.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, wrapErr("read", key, err)
	}
	return r, nil
}

// Download copies the object to localPath, creating its directory. The file appears
// complete or not at all: it is written beside localPath and renamed into place.
func (b *Bucket) Download(ctx context.Context, key, localPath string) error {
	r, err := b.Get(ctx, key)
	if err != nil {
		return err
	}
	defer r.Close()
	dir := filepath.Dir(localPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("blob: download %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(localPath)+".*")
	if err != nil {
		return fmt.Errorf("blob: download %s: %w", key, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := io.Copy(tmp, r); err != nil {
		tmp.Close()
		return fmt.Errorf("blob: download %s: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("blob: download %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), localPath); err != nil {
		return fmt.Errorf("blob: download %s: %w", key, err)
	}
	return nil
}

// Delete removes the object. Deleting a missing key is not an error, so cleanup can
// be retried.
func (b *Bucket) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := b.b.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("blob: delete %s: %w", key, err)
	}
	return nil
}

// Exists reports whether an object is stored under key.
func (b *Bucket) Exists(ctx context.Context, key string) (bool, error) {
	if err := ValidateKey(key); err != nil {
		return false, err
	}
	ok, err := b.b.Exists(ctx, key)
	if err != nil {
		return false, fmt.Errorf("blob: exists %s: %w", key, err)
	}
	return ok, nil
}

// Size returns the stored object's size in bytes.
func (b *Bucket) Size(ctx context.Context, key string) (int64, error) {
	if err := ValidateKey(key); err != nil {
		return 0, err
	}
	attrs, err := b.b.Attributes(ctx, key)
	if err != nil {
		return 0, wrapErr("stat", key, err)
	}
	return attrs.Size, nil
}

func wrapErr(op, key string, err error) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return fmt.Errorf("blob: %s %s: %w", op, key, err)
}
