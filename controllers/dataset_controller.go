package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// ProfileResult is what profiling a dataset found.
type ProfileResult struct {
	Rows       int64
	Columns    int32
	Variables  []string
	ProfileKey string // blob key of the profile JSON
}

// Profiler reads a dataset's file and writes its profile. A failed profile returns a
// *ProfileError: the dataset moves to failed with its message; other errors are retried.
type Profiler interface {
	Profile(ctx context.Context, ds *discov1.Dataset) (ProfileResult, error)
}

// ProfileError is a permanent profiling failure (the file is unusable).
type ProfileError struct{ Message string }

func (e *ProfileError) Error() string { return e.Message }

// DatasetReconciler moves a dataset from profiling to ready (or failed) by running the
// profiler once, and owns it to its project.
type DatasetReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Profiler Profiler
	// OnProfiled is called after a dataset's ready or failed status was written (the
	// dataset.profiled webhook is wired here by the run and governance work).
	OnProfiled func(ctx context.Context, ds *discov1.Dataset)
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=datasets,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=datasets/status;datasets/finalizers,verbs=get;update;patch

func (r *DatasetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	ds := &discov1.Dataset{}
	if err := r.Get(ctx, req.NamespacedName, ds); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !ds.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if adopted, err := adopt(ctx, r.Client, ds, objectKey(ds.Namespace, ds.Spec.ProjectID), &discov1.Project{}); adopted || err != nil {
		return ctrl.Result{}, err
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, ds)
	previous := ds.Status.Phase
	defer func() {
		joinPatchErr(&err, patcher.patch(ctx))
		if err != nil || previous == ds.Status.Phase || ds.Status.Phase == discov1.DatasetProfiling {
			return
		}
		kind := corev1.EventTypeNormal
		if ds.Status.Phase == discov1.DatasetFailed {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(ds, nil, kind, "Profiled", "Profile", "dataset is %s: %s", ds.Status.Phase, ds.Status.Message)
		if r.OnProfiled != nil {
			r.OnProfiled(ctx, ds)
		}
	}()
	ds.Status.ObservedGeneration = ds.Generation

	if ds.Status.Phase == discov1.DatasetReady || ds.Status.Phase == discov1.DatasetFailed {
		return ctrl.Result{}, nil
	}
	ds.Status.Phase = discov1.DatasetProfiling
	if r.Profiler == nil {
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, "NoProfiler", "no profiler is configured in this manager")
		return ctrl.Result{}, nil
	}
	res, perr := r.Profiler.Profile(ctx, ds)
	if pe, ok := perr.(*ProfileError); ok {
		ds.Status.Phase = discov1.DatasetFailed
		ds.Status.Message = pe.Message
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, "ProfilingFailed", pe.Message)
		return ctrl.Result{}, nil
	}
	if perr != nil {
		setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionFalse, "ProfilingError", perr.Error())
		return ctrl.Result{}, perr
	}
	now := metav1.Now()
	ds.Status.Phase = discov1.DatasetReady
	ds.Status.Rows = res.Rows
	ds.Status.Columns = res.Columns
	ds.Status.Variables = res.Variables
	ds.Status.ProfileKey = res.ProfileKey
	ds.Status.ProfiledAt = &now
	ds.Status.Message = "profiled"
	setCondition(&ds.Status.Conditions, ds, discov1.ConditionReady, metav1.ConditionTrue, "Profiled", "dataset is ready")
	return ctrl.Result{}, nil
}

func (r *DatasetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&discov1.Dataset{}).Named("dataset").Complete(r)
}
