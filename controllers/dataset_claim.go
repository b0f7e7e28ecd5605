package controllers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/runexec"
)

// ClaimFetcher copies the file of a dataset whose spec.source is on a
// PersistentVolumeClaim into the blob store b, with a Job in the dataset's namespace
// (runexec.JobExecutor; issue 14, item 7).
type ClaimFetcher interface {
	FetchFromClaim(ctx context.Context, b *blob.Bucket, ds *discov1.Dataset, f runexec.ClaimFetch) (runexec.FetchStatus, error)
}

// claimRetry is how long a dataset whose claim or file is not there yet waits before its
// next fetch Job: each try starts a pod, so it polls less often than a ConfigMap source.
const claimRetry = time.Minute

func fromClaim(ds *discov1.Dataset) bool {
	return ds.Spec.Source != nil && ds.Spec.Source.PersistentVolumeClaim != nil
}

// fetchFromClaim advances the fetch Job of a dataset whose file is on a claim; done is set
// once the file is in the blob store and the dataset may be profiled.
func (r *DatasetReconciler) fetchFromClaim(ctx context.Context, ds *discov1.Dataset, tenantID string) (done bool, res ctrl.Result, err error) {
	if r.Fetcher == nil || r.Blob == nil {
		failDataset(ds, discov1.ReasonSourceRefused, "this disco installation runs discovery in its own process (disco dev), "+
			"where no pod can mount a PersistentVolumeClaim; use an installation on a cluster, or put the file in an object store (url) or a ConfigMap (configMapRef)")
		return false, ctrl.Result{}, nil
	}
	maxBytes, timeout := sourceLimits(r.Profiler)
	st, err := r.Fetcher.FetchFromClaim(ctx, r.Blob, ds, runexec.ClaimFetch{
		DataKey:  blob.DatasetSourceKey(tenantID, ds.Namespace, ds.Name, string(ds.UID)),
		ErrorKey: blob.DatasetSourceErrorKey(tenantID, ds.Namespace, ds.Name, string(ds.UID)),
		MaxBytes: maxBytes, Timeout: timeout, Retry: claimRetry,
	})
	if err != nil {
		return false, ctrl.Result{}, err
	}
	switch st.Phase {
	case runexec.FetchDone:
		return true, ctrl.Result{}, nil
	case runexec.FetchRefused:
		failDataset(ds, discov1.ReasonSourceRefused, st.Message)
		return false, ctrl.Result{}, nil
	case runexec.FetchWaiting:
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonSourceUnavailable,
			statusText("the source cannot be read yet: "+st.Message+"; it is tried again"))
		return false, ctrl.Result{RequeueAfter: st.RetryAfter}, nil
	}
	// Running: the Job's end triggers the next reconcile (the controller owns its Jobs).
	setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonFetching, statusText(st.Message))
	return false, ctrl.Result{}, nil
}

// sourceLimits are the size and time bounds of a fetch: the profiler's when it sets them.
func sourceLimits(p Profiler) (int64, time.Duration) {
	maxBytes, timeout := int64(DefaultMaxSourceBytes), DefaultFetchTimeout
	if bp, ok := p.(*BlobProfiler); ok {
		if bp.MaxSourceBytes > 0 {
			maxBytes = bp.MaxSourceBytes
		}
		if bp.FetchTimeout > 0 {
			timeout = bp.FetchTimeout
		}
	}
	return maxBytes, timeout
}

// storedClaimFile is status.source for a file the fetch Job stored at key. The size and
// hash are the controller's own reading of the store, checked against the manifest's pins
// like any source's: nothing the pod says is trusted.
func (p *BlobProfiler) storedClaimFile(ctx context.Context, ds *discov1.Dataset, key string) (*discov1.FetchedSource, error) {
	rc, err := p.Blob.Get(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, &SourceUnavailableError{Err: errors.New("the file copied from the claim is no longer in the blob store; it is fetched again")}
	}
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }() // read-only: nothing to lose
	limit, _ := sourceLimits(p)
	h := sha256.New()
	size, err := io.Copy(h, io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading the file copied from the claim: %w", err)
	}
	if size > limit {
		return nil, &ProfileError{Reason: discov1.ReasonSourceRefused,
			Message: fmt.Sprintf("the source file is larger than %d bytes, the largest dataset this installation fetches", limit)}
	}
	return p.checkPins(ds, key, size, hex.EncodeToString(h.Sum(nil)))
}
