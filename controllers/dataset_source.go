package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/datasource"
)

// DefaultMaxSourceBytes bounds a file fetched from a dataset's spec.source when the
// profiler sets no limit: the REST API's default upload limit.
const DefaultMaxSourceBytes = 512 << 20

// +kubebuilder:rbac:groups="",resources=configmaps;secrets,verbs=get

// DefaultFetchTimeout bounds a source's fetch when the profiler sets no limit: a store that
// answers slowly, or never, holds a profiling worker for at most this long, and the dataset
// tries again later.
const DefaultFetchTimeout = 10 * time.Minute

// SourceUnavailableError is a source that cannot be read yet (a ConfigMap, Secret or object
// not there yet, a store that does not answer): the dataset waits and tries again, since a
// GitOps tool may apply the Dataset before what it names.
type SourceUnavailableError struct{ Err error }

func (e *SourceUnavailableError) Error() string { return e.Err.Error() }
func (e *SourceUnavailableError) Unwrap() error { return e.Err }

// importSource copies the dataset's spec.source into the blob store at key, counting and
// hashing it as it streams, and checks it against spec.sizeBytes and spec.sha256 when the
// manifest pins them (issue 14, item 7).
func (p *BlobProfiler) importSource(ctx context.Context, ds *discov1.Dataset, key string) (*discov1.FetchedSource, error) {
	timeout := p.FetchTimeout
	if timeout <= 0 {
		timeout = DefaultFetchTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("the source did not arrive within %s", timeout))
	defer cancel()
	var fetched *discov1.FetchedSource
	var err error
	if fromClaim(ds) {
		fetched, err = p.storedClaimFile(ctx, ds, key) // the fetch Job copied it (dataset_claim.go)
	} else {
		fetched, err = p.copySource(ctx, ds, key)
	}
	if cause := context.Cause(ctx); err != nil && cause != nil && !errors.Is(cause, context.Canceled) {
		return nil, &SourceUnavailableError{Err: cause}
	}
	return fetched, err
}

func (p *BlobProfiler) copySource(ctx context.Context, ds *discov1.Dataset, key string) (*discov1.FetchedSource, error) {
	rc, err := p.Sources.Open(ctx, ds.Namespace, ds.Spec.Source)
	if refusal := (*datasource.Error)(nil); errors.As(err, &refusal) {
		return nil, &ProfileError{Reason: discov1.ReasonSourceRefused, Message: refusal.Message}
	}
	if err != nil {
		return nil, &SourceUnavailableError{Err: err}
	}
	defer func() { _ = rc.Close() }() // read-only: nothing to lose
	// A reader blocked in Read that ignores ctx (a store sending nothing) is unblocked by
	// closing it when the fetch's deadline passes.
	stop := context.AfterFunc(ctx, func() { _ = rc.Close() })
	defer stop()
	limit := p.MaxSourceBytes
	if limit <= 0 {
		limit = DefaultMaxSourceBytes
	}
	size, sum, err := p.Blob.PutStream(ctx, key, rc, limit)
	switch {
	case errors.Is(err, blob.ErrTooLarge):
		return nil, &ProfileError{Reason: discov1.ReasonSourceRefused,
			Message: fmt.Sprintf("the source file is larger than %d bytes, the largest dataset this installation fetches", limit)}
	case err != nil:
		return nil, &SourceUnavailableError{Err: fmt.Errorf("copying the source: %w", err)}
	}
	return p.checkPins(ds, key, size, sum)
}

// checkPins is status.source for a file of size bytes and SHA-256 sum stored at key, or a
// failure when the manifest pins another size or hash.
func (p *BlobProfiler) checkPins(ds *discov1.Dataset, key string, size int64, sum string) (*discov1.FetchedSource, error) {
	switch {
	case ds.Spec.SizeBytes > 0 && size != ds.Spec.SizeBytes:
		return nil, &ProfileError{Reason: discov1.ReasonSizeMismatch,
			Message: fmt.Sprintf("the source file has %d bytes, not spec.sizeBytes (%d)", size, ds.Spec.SizeBytes)}
	case ds.Spec.SHA256 != "" && sum != ds.Spec.SHA256:
		return nil, &ProfileError{Reason: discov1.ReasonChecksumMismatch,
			Message: fmt.Sprintf("the source file's SHA-256 is %s, not spec.sha256 %s", sum, ds.Spec.SHA256)}
	}
	return &discov1.FetchedSource{BlobKey: key, SizeBytes: size, SHA256: sum, FetchedAt: metav1.NewTime(p.now())}, nil
}
