package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/datasetunits"
	"github.com/discolab/disco/internal/datasource"
	"github.com/discolab/disco/internal/scratch"
)

// BlobProfiler profiles a dataset's file from the blob store and writes the profile JSON.
// It copies the file to a private scratch file, checking spec.sizeBytes and spec.sha256 as
// it streams (issue 14 item 3), then profiles it with data.ProfileReader in bounded memory
// (issue 17 item 6).
type BlobProfiler struct {
	Blob *blob.Bucket
	// Sources opens the files of datasets declared with spec.source; they are copied into
	// Blob before profiling (importSource).
	Sources datasource.Opener
	// MaxSourceBytes bounds a fetched source; 0 means DefaultMaxSourceBytes.
	MaxSourceBytes int64
	// FetchTimeout bounds the whole fetch of a source; 0 means DefaultFetchTimeout.
	FetchTimeout time.Duration
	// Clock stamps status.source.fetchedAt; nil means the real clock.
	Clock clock.PassiveClock
	// ScratchDir holds the copied file while it is read; "" means a private directory
	// under the OS temp dir (see scratch.Dir).
	ScratchDir string

	once sync.Once
	dir  string
	err  error
}

// scratchPrefix names the profiler's scratch files; files of that name that no process
// holds are left over from a killed manager and are swept once at the first profile.
const scratchPrefix = "profile-"

func (p *BlobProfiler) scratchDir(ctx context.Context) (string, error) {
	p.once.Do(func() {
		p.dir, p.err = scratch.Dir(p.ScratchDir)
		if p.err != nil {
			return
		}
		if n, err := scratch.Sweep(p.dir, scratchPrefix); err != nil || n > 0 {
			log.FromContext(ctx).Info("swept scratch files left by an earlier process", "removed", n, "error", err)
		}
	})
	return p.dir, p.err
}

// Profile implements Profiler.
func (p *BlobProfiler) Profile(ctx context.Context, ds *discov1.Dataset, keys DatasetKeys) (ProfileResult, error) {
	var fetched *discov1.FetchedSource
	if ds.Spec.Source != nil && ds.Status.Source == nil {
		var err error
		if fetched, err = p.importSource(ctx, ds, keys.Source); err != nil {
			return ProfileResult{}, err
		}
		ds = ds.DeepCopy()
		ds.Status.Source = fetched
	}
	dir, err := p.scratchDir(ctx)
	if err != nil {
		return ProfileResult{}, err
	}
	f, err := scratch.Create(dir, scratchPrefix)
	if err != nil {
		return ProfileResult{}, err
	}
	defer scratch.Remove(f)
	size, err := p.fetch(ctx, ds, f)
	if err != nil {
		return ProfileResult{}, err
	}
	profile, err := data.ProfileReader(f, size, ds.Spec.Format)
	var verr *data.ValidationError
	if errors.As(err, &verr) {
		reason := discov1.ReasonProfilingFailed
		if verr.Code == data.CodeDatasetTooWide {
			reason = discov1.ReasonDatasetTooWide
		}
		return ProfileResult{}, &ProfileError{Reason: reason, Message: scratch.Redact(verr.Message)}
	}
	if err != nil {
		return ProfileResult{}, err
	}
	// Declared units must name columns of the file (issue 18 item 2).
	if msg := datasetunits.MissingMessage(ds.Spec.Units, profile.Names()); msg != "" {
		return ProfileResult{}, &ProfileError{Message: "spec.units: " + msg}
	}
	body, err := json.Marshal(profile)
	if err != nil {
		return ProfileResult{}, err
	}
	if err := p.Blob.Put(ctx, keys.Profile, body); err != nil {
		return ProfileResult{}, err
	}
	names := make([]string, len(profile.Columns))
	for i, c := range profile.Columns {
		names[i] = c.Name
	}
	return ProfileResult{Rows: int64(profile.RowCount), Columns: int32(profile.ColumnCount), Variables: names, ProfileKey: keys.Profile, Source: fetched}, nil
}

// fetch copies the dataset's blob into f and returns its size. When its size is known no
// more than one byte beyond it is read; a size or SHA-256 other than the recorded one (the
// spec's for an upload, status.source's for a fetched file) fails the dataset.
func (p *BlobProfiler) fetch(ctx context.Context, ds *discov1.Dataset, f *os.File) (int64, error) {
	key, want, wantSum := ds.File()
	rc, err := p.Blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return 0, &ProfileError{Reason: discov1.ReasonBlobMissing, Message: "the uploaded file is missing from the blob store"}
	}
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	var src io.Reader = rc
	if want > 0 {
		src = io.LimitReader(rc, want+1)
	}
	h := sha256.New()
	size, err := io.Copy(io.MultiWriter(f, h), src)
	if err != nil {
		return 0, fmt.Errorf("copy the dataset file: %w", err)
	}
	switch {
	case want > 0 && size > want:
		return 0, &ProfileError{Reason: discov1.ReasonSizeMismatch,
			Message: fmt.Sprintf("the stored file is larger than spec.sizeBytes (%d)", want)}
	case want > 0 && size < want:
		return 0, &ProfileError{Reason: discov1.ReasonSizeMismatch,
			Message: fmt.Sprintf("the stored file has %d bytes, not spec.sizeBytes (%d)", size, want)}
	}
	if sum := hex.EncodeToString(h.Sum(nil)); wantSum != "" && sum != wantSum {
		return 0, &ProfileError{Reason: discov1.ReasonChecksumMismatch,
			Message: fmt.Sprintf("the stored file's SHA-256 is %s, not spec.sha256 %s", sum, wantSum)}
	}
	return size, nil
}

func (p *BlobProfiler) now() time.Time { return now(p.Clock) }
