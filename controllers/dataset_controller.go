package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/source"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/lookup"
	"github.com/discolab/disco/internal/scratch"
	"github.com/discolab/disco/internal/tenancy"
)

// ProfileResult is what profiling a dataset found.
type ProfileResult struct {
	Rows       int64
	Columns    int32
	Variables  []string
	ProfileKey string // blob key of the profile JSON
	// Source is the file fetched from spec.source, for status.source; nil for an upload.
	Source *discov1.FetchedSource
}

// DatasetKeys are where a profile writes: the profile JSON, and the file fetched from a
// spec.source.
type DatasetKeys struct{ Profile, Source string }

// Profiler reads a dataset's file and writes its profile JSON to keys.Profile, after
// fetching its spec.source to keys.Source. A failed profile returns a *ProfileError: the
// dataset moves to failed with its message; a *SourceUnavailableError waits for the
// source; other errors are retried.
type Profiler interface {
	Profile(ctx context.Context, ds *discov1.Dataset, keys DatasetKeys) (ProfileResult, error)
}

// ProfileError is a permanent profiling failure (the file is unusable). Reason is the
// Ready condition's reason; "" means ProfilingFailed.
type ProfileError struct {
	Reason  string
	Message string
}

func (e *ProfileError) Error() string { return e.Message }

// DatasetReconciler moves a dataset from profiling to ready (or failed) and owns it to its
// project. Profiling runs on a bounded pool of workers, not on the reconcile worker
// (issue 16): Reconcile hands the dataset over, and the worker's completion triggers the
// reconcile that writes the status.
type DatasetReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Profiler Profiler
	// OnProfiled is called after a dataset's ready or failed status was written (the
	// dataset.profiled webhook is wired here by the run and governance work).
	OnProfiled func(ctx context.Context, ds *discov1.Dataset)
	// Workers is how many datasets are profiled at once; 0 means 1. Each profile holds
	// bounded memory (engine/data.ProfileReader), so this bounds the manager's share.
	Workers int
	// MaxConcurrentReconciles is how many datasets are reconciled at once (Concurrency).
	MaxConcurrentReconciles int
	// Clock stamps status.profiledAt; nil means the real clock.
	Clock clock.PassiveClock
	// Blob is the store the profiler writes to; a deleted dataset's fetched source and
	// profile are deleted from it. nil leaves them.
	Blob *blob.Bucket
	// Fetcher copies files from PersistentVolumeClaims with a Job; nil refuses such
	// sources (disco dev runs no pods).
	Fetcher ClaimFetcher

	queue *profileQueue
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=datasets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=datasets/status;datasets/finalizers,verbs=get;update;patch

func (r *DatasetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	ds := &discov1.Dataset{}
	if err := r.Get(ctx, req.NamespacedName, ds); err != nil {
		if apierrors.IsNotFound(err) {
			r.profiles().forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ds.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, req, ds)
	}
	// What is stored for a dataset alone (its profile, the file fetched from its source, the
	// file uploaded for it) is deleted with it (issue 14, item 7), so every dataset holds
	// the finalizer.
	if added, err := addFinalizer(ctx, r.Client, ds); added || err != nil {
		return ctrl.Result{}, err
	}
	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, ds)
	previous := ds.Status.Phase
	var consumed *profileJob
	defer func() {
		if err == nil { // observedGeneration moves only when the reconcile succeeded
			ds.Status.ObservedGeneration = ds.Generation
		}
		patchErr := patcher.patch(ctx)
		if apierrors.IsInvalid(patchErr) {
			// The API server refused the status (a CRD limit): end failed instead of
			// profiling again and again.
			patchErr = r.refusedStatus(ctx, ds, patchErr)
		}
		joinPatchErr(&err, patchErr)
		if err != nil {
			return
		}
		if consumed != nil {
			r.profiles().done(req.NamespacedName, consumed)
		}
		if previous == ds.Status.Phase || ds.Status.Phase == discov1.DatasetProfiling {
			return
		}
		kind, reason := corev1.EventTypeNormal, discov1.ReasonProfiled
		if ds.Status.Phase == discov1.DatasetFailed {
			kind, reason = corev1.EventTypeWarning, discov1.ReasonProfilingFailed
			if c := meta.FindStatusCondition(ds.Status.Conditions, discov1.ConditionReady); c != nil {
				reason = c.Reason
			}
		}
		r.Recorder.Eventf(ds, nil, kind, reason, "Profile", "dataset is %s: %s", ds.Status.Phase, ds.Status.Message)
		if r.OnProfiled != nil {
			r.OnProfiled(ctx, ds)
		}
	}()

	// The project by name (spec.projectRef) or by id; both forms and the ids end in status
	// and labels (issue 14, item 6). A missing project is waited for, not an error.
	ds.Status.ID, ds.Status.ProjectID = ds.ID(), ds.ProjectID()
	ds.Status.ProjectRef = &discov1.ObjectRef{Name: ds.ProjectName()}
	tenantLabel, _ := tenancy.OfNamespace(ctx, r.Client, ds.Namespace) // "": no tenant yet
	if labelled, err := setLabels(ctx, r.Client, ds, map[string]string{discov1.LabelID: ds.ID(),
		discov1.LabelDataset: ds.ID(), discov1.LabelProject: ds.ProjectID(), discov1.LabelTenant: tenantLabel}); labelled || err != nil {
		return ctrl.Result{}, err
	}
	project := &discov1.Project{}
	if err := lookup.Ref(ctx, r.Client, ds.Namespace, ds.Spec.ProjectRef, ds.Spec.ProjectID, project); apierrors.IsNotFound(err) {
		waitFor(r.Recorder, ds, &ds.Status.Conditions, discov1.ConditionReady, discov1.ReasonProjectNotFound,
			fmt.Sprintf("the project %s does not exist in namespace %s; the dataset waits for it", ds.ProjectName(), ds.Namespace))
		return ctrl.Result{}, nil
	} else if err != nil {
		return ctrl.Result{}, err
	}
	ds.Status.ProjectRef = &discov1.ObjectRef{Name: project.Name} // the name found, whichever form the spec used
	if adopted, err := adopt(ctx, r.Client, ds, client.ObjectKeyFromObject(project), &discov1.Project{}); adopted || err != nil {
		return ctrl.Result{}, err
	}
	if ds.Status.Phase == discov1.DatasetFailed {
		return ctrl.Result{}, nil
	}
	// The key is checked on every pass, ready datasets included: no dataset may keep
	// pointing at a file outside its tenant (issue 14 item 3).
	if ds.Spec.Source == nil && !isBlobKey(ds.Spec.BlobKey) {
		failDataset(ds, discov1.ReasonBlobKeyNotAKey, "spec.blobKey is not a blob key (it looks like a URL or a file path); "+
			"a dataset's blobKey names a file uploaded to this tenant, as POST /v1/projects/{project_id}/datasets sets it")
		return ctrl.Result{}, nil
	}
	tenant := tenancy.TenantOf(ctx, r.Client, ds.Namespace)
	if tenant == nil {
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonTenantUnknown,
			"the namespace belongs to no tenant yet; profiling waits for it")
		return ctrl.Result{RequeueAfter: 10 * time.Second}, nil
	}
	tenantID := tenant.ID()
	if key, _, _ := ds.File(); key != "" && !blob.UnderDatasetPrefix(tenantID, ds.Namespace, key) && !r.ownsLegacyKey(ctx, ds, tenantID) {
		failDataset(ds, discov1.ReasonBlobKeyOutsideTenant, fmt.Sprintf("spec.blobKey is outside this tenant's datasets (%s); "+
			"a dataset may only name files uploaded to its own tenant", blob.DatasetPrefix(tenantID, ds.Namespace)))
		return ctrl.Result{}, nil
	}
	if ds.Status.Phase == discov1.DatasetReady {
		if blob.DatasetOwnsProfileKey(tenantID, ds.Namespace, ds.Name, ds.Status.ProfileKey) {
			return ctrl.Result{}, nil
		}
		// A profile stored where another tenant's dataset could have written it (the
		// earlier layout, for a human-chosen name) is made again under the tenant's prefix.
		ds.Status.ProfileKey = ""
	}
	ds.Status.Phase = discov1.DatasetProfiling
	if r.Profiler == nil {
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonNoProfiler, "no profiler is configured in this manager")
		return ctrl.Result{}, nil
	}

	job := r.profiles().lookup(req.NamespacedName, ds.UID)
	switch {
	case job == nil:
		if fromClaim(ds) && ds.Status.Source == nil {
			if done, res, err := r.fetchFromClaim(ctx, ds, tenantID); !done || err != nil {
				return res, err
			}
		}
		keys := DatasetKeys{
			Profile: blob.DatasetProfileKey(tenantID, ds.Namespace, ds.Name, string(ds.UID)),
			Source:  blob.DatasetSourceKey(tenantID, ds.Namespace, ds.Name, string(ds.UID)),
		}
		if !r.profiles().submit(req.NamespacedName, ds, keys) {
			setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonProfilingQueued, "waiting for a profiling worker")
			return ctrl.Result{RequeueAfter: 5 * time.Second}, nil
		}
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonProfiling, "the file is being profiled")
		return ctrl.Result{}, nil
	case !job.finished:
		return ctrl.Result{}, nil // the worker's completion triggers the next reconcile
	}
	consumed = job
	res, perr := job.result, job.err
	if pe, ok := perr.(*ProfileError); ok {
		reason := pe.Reason
		if reason == "" {
			reason = discov1.ReasonProfilingFailed
		}
		failDataset(ds, reason, pe.Message)
		return ctrl.Result{}, nil
	}
	if su := (*SourceUnavailableError)(nil); errors.As(perr, &su) {
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonSourceUnavailable,
			statusText("the source cannot be read yet: "+su.Error()+"; it is tried again"))
		return ctrl.Result{RequeueAfter: sourceRetry}, nil
	}
	if perr != nil {
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, discov1.ReasonProfilingError,
			statusText("profiling failed and will be retried: "+perr.Error()))
		return ctrl.Result{}, perr
	}
	profiledAt := metav1.NewTime(now(r.Clock))
	ds.Status.Phase = discov1.DatasetReady
	ds.Status.Rows = res.Rows
	ds.Status.Columns = res.Columns
	ds.Status.Variables = res.Variables
	ds.Status.ProfileKey = res.ProfileKey
	if res.Source != nil {
		ds.Status.Source = res.Source
	}
	ds.Status.ProfiledAt = &profiledAt
	ds.Status.Message = "profiled"
	setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionTrue, discov1.ReasonProfiled, "dataset is ready")
	return ctrl.Result{}, nil
}

// finalize deletes the files stored for a deleted dataset alone (datasetOwnKeys), then
// lets the dataset go. Both keys name the dataset's uid, so they belong to this
// dataset alone. A profile still running is waited for: its completion triggers the next
// reconcile, which deletes what it stored.
func (r *DatasetReconciler) finalize(ctx context.Context, req ctrl.Request, ds *discov1.Dataset) error {
	if !controllerutil.ContainsFinalizer(ds, discov1.Finalizer) {
		return nil
	}
	if job := r.profiles().lookup(req.NamespacedName, ds.UID); job != nil && !job.finished {
		return nil
	}
	if r.Blob != nil {
		for _, key := range datasetOwnKeys(ctx, r.Client, ds) {
			if err := r.Blob.Delete(ctx, key); err != nil {
				return fmt.Errorf("deleting the dataset's stored file %s: %w", key, err)
			}
		}
	}
	if err := removeFinalizer(ctx, r.Client, ds); err != nil {
		return err
	}
	r.profiles().forget(req.NamespacedName)
	return nil
}

// datasetOwnKeys are the blob keys only this dataset has: its fetched source and its
// profile, under its tenant's prefix and its uid, and the file the REST API uploaded for
// it, at the key the facade gives this dataset's id (blob.DatasetKey). A blobKey naming
// another dataset's upload (a manifest may) is not this dataset's to delete. When the
// namespace has lost its tenant, the keys status recorded are used if they end in this
// dataset's name and uid.
func datasetOwnKeys(ctx context.Context, c client.Client, ds *discov1.Dataset) []string {
	uid := string(ds.UID)
	if tenant := tenancy.TenantOf(ctx, c, ds.Namespace); tenant != nil {
		keys := []string{blob.DatasetSourceKey(tenant.ID(), ds.Namespace, ds.Name, uid),
			blob.DatasetSourceErrorKey(tenant.ID(), ds.Namespace, ds.Name, uid),
			blob.DatasetProfileKey(tenant.ID(), ds.Namespace, ds.Name, uid)}
		if upload := blob.DatasetKey(tenant.ID(), ds.Namespace, ds.ProjectID(), ds.ID()); ds.Spec.BlobKey == upload {
			keys = append(keys, upload)
		}
		return keys
	}
	var keys []string
	if s := ds.Status.Source; s != nil && strings.HasSuffix(s.BlobKey, "/sources/"+ds.Name+"/"+uid+"/data") {
		keys = append(keys, s.BlobKey)
	}
	if strings.HasSuffix(ds.Status.ProfileKey, "/profiles/"+ds.Name+"/"+uid+".json") {
		keys = append(keys, ds.Status.ProfileKey)
	}
	return keys
}

// sourceRetry is how long a dataset whose source cannot be read yet waits before it tries
// again. The manager does not watch ConfigMaps and Secrets (it may only get them), so it
// polls for what a GitOps tool applies after the Dataset.
const sourceRetry = 15 * time.Second

// failDataset ends a dataset failed with a reason and a message fit for its status.
func failDataset(ds *discov1.Dataset, reason, message string) {
	message = statusText(message)
	ds.Status.Phase = discov1.DatasetFailed
	ds.Status.Message = message
	setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, reason, message)
}

// statusText makes a message fit for a status or an event: no server paths (issue 17) and
// at most 1024 bytes, well within the CRD's 4096.
func statusText(msg string) string {
	msg = scratch.Redact(msg)
	if len(msg) <= 1024 {
		return msg
	}
	cut := 1021
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "..."
}

// refusedStatus writes a failed status after the API server refused the computed one.
func (r *DatasetReconciler) refusedStatus(ctx context.Context, ds *discov1.Dataset, refused error) error {
	fresh := &discov1.Dataset{}
	if err := r.Get(ctx, client.ObjectKeyFromObject(ds), fresh); err != nil {
		return client.IgnoreNotFound(err)
	}
	patcher := newStatusPatcher(r.Client, fresh)
	failDataset(fresh, discov1.ReasonStatusRejected, "the profile does not fit the Dataset status: "+refused.Error())
	if err := patcher.patch(ctx); err != nil {
		return err
	}
	fresh.DeepCopyInto(ds)
	return nil
}

// isBlobKey reports whether spec.blobKey can name a blob at all: not a URL, not a file
// path (issue 14 item 5: such keys used to leave the dataset profiling forever).
func isBlobKey(key string) bool {
	return !strings.Contains(key, "://") && blob.ValidateKey(key) == nil
}

// ownsLegacyKey accepts a key of the layout the facade used before keys named the tenant,
// datasets/<project id>/<dataset id>/data, only as the key of this dataset: its name is a
// random dataset id and its project belongs to the namespace's tenant. A key must
// otherwise lie under the dataset prefix of the namespace's tenant. Reading someone
// else's file that way would take knowing that file's project id, dataset id and SHA-256,
// which the profiler checks against spec.sha256.
func (r *DatasetReconciler) ownsLegacyKey(ctx context.Context, ds *discov1.Dataset, tenantID string) bool {
	id := ids.FromName(ds.Name)
	if !ids.Valid(ids.Dataset, id) || ids.ToName(id) != ds.Name || ds.Spec.BlobKey != blob.LegacyDatasetKey(ds.ProjectID(), id) {
		return false
	}
	p := &discov1.Project{}
	return r.Get(ctx, client.ObjectKey{Namespace: ds.Namespace, Name: ds.ProjectName()}, p) == nil && p.TenantID() == tenantID
}

func (r *DatasetReconciler) profiles() *profileQueue {
	if r.queue == nil {
		r.queue = newProfileQueue(r.Profiler, r.Workers)
	}
	return r.queue
}

func (r *DatasetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	q := r.profiles()
	if err := mgr.Add(q); err != nil {
		return err
	}
	return workers(ctrl.NewControllerManagedBy(mgr), r.MaxConcurrentReconciles).For(&discov1.Dataset{}).Named("dataset").
		Watches(&discov1.Project{}, handler.EnqueueRequestsFromMapFunc(referrers(r.Client,
			func() client.ObjectList { return &discov1.DatasetList{} },
			func(o client.Object) string { return o.(*discov1.Dataset).ProjectID() })), builder.WithPredicates(createdOrIdentified())).
		WatchesRawSource(source.Channel(q.finished, &handler.EnqueueRequestForObject{})).
		// A fetch Job's end moves its dataset on (dataset_claim.go).
		Owns(&batchv1.Job{}, builder.WithPredicates(jobEnded())).
		Complete(r)
}
