package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/discolab/disco/internal/ids"
)

// ErrForeignKey: the key is not one of the run's own blobs (issue 17 item 2: a Run's
// status names keys, and whoever can write that status must not reach other blobs).
var ErrForeignKey = errors.New("blob: key outside the run's own prefix")

// RunRef names one run for its blob keys (see RunPrefix).
type RunRef struct {
	TenantID, Namespace, Name, UID string
	// Created and StatusResultsKey (the run's status.resultsKey) decide whether a key of
	// the earlier layout is the run's own (OwnsLegacy).
	Created          time.Time
	StatusResultsKey string
}

// Prefix is RunPrefix of the run.
func (r RunRef) Prefix() string { return RunPrefix(r.TenantID, r.Namespace, r.Name, r.UID) }

// Results is RunResultsKey of the run.
func (r RunRef) Results() string { return RunResultsKey(r.TenantID, r.Namespace, r.Name, r.UID) }

// Artifact is RunArtifactKey of the run.
func (r RunRef) Artifact(artifactID, name string) string {
	return RunArtifactKey(r.TenantID, r.Namespace, r.Name, r.UID, artifactID, name)
}

// Owns reports whether key is a valid key under the run's prefix; a run with a part that
// is not one key segment owns nothing.
func (r RunRef) Owns(key string) bool {
	return segments(r.TenantID, r.Namespace, r.Name, r.UID) && under(r.Prefix(), key)
}

// OwnsLegacy reports whether key may be a blob the run stored under the earlier layout,
// runs/<name>/, which did not name the tenant: the run's status points its results there
// (nothing writes that layout any more), and the run's name is a random run id
// (randomName). Human-chosen names could collide across tenants, so their legacy keys are
// refused. GetRun also checks that the blob was written after the run was created.
func (r RunRef) OwnsLegacy(key string) bool {
	return randomName(ids.Run, r.Name) && r.StatusResultsKey == LegacyRunResultsKey(r.Name) &&
		under(LegacyRunPrefix(r.Name), key)
}

// GetRun opens key as one of run r's blobs and returns its stored size. A key that is
// not the run's own gives ErrForeignKey, whatever is stored there: one outside the run's
// prefix, and one of the earlier layout (OwnsLegacy) whose blob is older than the run,
// which therefore cannot have written it. The size comes from the store, never from the
// Run's status.
func (b *Bucket) GetRun(ctx context.Context, r RunRef, key string) (io.ReadCloser, int64, error) {
	legacy := !r.Owns(key)
	if legacy && !r.OwnsLegacy(key) {
		return nil, 0, fmt.Errorf("%w: %q is not under %s", ErrForeignKey, key, r.Prefix())
	}
	rd, err := b.b.NewReader(ctx, key, nil)
	if err != nil {
		return nil, 0, wrapErr("read", key, err)
	}
	if legacy && rd.ModTime().Before(r.Created.Truncate(time.Second)) {
		rd.Close()
		return nil, 0, fmt.Errorf("%w: %q was written before run %s/%s was created", ErrForeignKey, key, r.Namespace, r.Name)
	}
	return rd, rd.Size(), nil
}
