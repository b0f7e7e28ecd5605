package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/blob"
)

// BlobProfiler profiles a dataset's file from the blob store with the engine's loader and
// writes the profile JSON next to it.
type BlobProfiler struct {
	Blob *blob.Bucket
	// ScratchDir holds the downloaded file while it is read; "" means the OS temp dir.
	ScratchDir string
}

// ProfileKey is where a dataset's profile JSON is stored.
func ProfileKey(datasetName string) string { return "datasets/" + datasetName + "/profile.json" }

// Profile implements Profiler.
func (p *BlobProfiler) Profile(ctx context.Context, ds *discov1.Dataset) (ProfileResult, error) {
	dir, err := os.MkdirTemp(p.ScratchDir, "profile-")
	if err != nil {
		return ProfileResult{}, err
	}
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "data."+ds.Spec.Format)
	if err := p.Blob.Download(ctx, ds.Spec.BlobKey, local); err != nil {
		if errors.Is(err, blob.ErrNotFound) {
			return ProfileResult{}, &ProfileError{Message: "the uploaded file is missing from the blob store"}
		}
		return ProfileResult{}, err
	}
	frame, err := data.Load(local, ds.Spec.Format)
	var verr *data.ValidationError
	if errors.As(err, &verr) {
		return ProfileResult{}, &ProfileError{Message: verr.Message}
	}
	if err != nil {
		return ProfileResult{}, err
	}
	profile := data.ProfileOf(frame)
	body, err := json.Marshal(profile)
	if err != nil {
		return ProfileResult{}, err
	}
	key := ProfileKey(ds.Name)
	if err := p.Blob.Put(ctx, key, body); err != nil {
		return ProfileResult{}, err
	}
	return ProfileResult{Rows: int64(frame.Rows), Columns: int32(len(frame.Columns)), Variables: frame.Names(), ProfileKey: key}, nil
}
