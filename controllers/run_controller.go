package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// RunReconciler keeps a run's status: a new run is accepted as queued with its pipeline
// stages pending, owned by its campaign, and a cancel request on a run that has not started
// moves it to cancelled. Execution (Job or in-process executor) is added by the run and
// governance work; until then runs wait in queued with a condition that says so.
type RunReconciler struct {
	client.Client
	Recorder events.EventRecorder
	Now      func() time.Time
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=runs,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=runs/status;runs/finalizers,verbs=get;update;patch

func (r *RunReconciler) now() metav1.Time {
	if r.Now != nil {
		return metav1.NewTime(r.Now())
	}
	return metav1.Now()
}

func (r *RunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	run := &discov1.Run{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if len(run.OwnerReferences) == 0 {
		campaign := &discov1.Campaign{}
		if err := r.Get(ctx, objectKey(run.Namespace, run.Spec.CampaignID), campaign); err == nil {
			if err := controllerutil.SetControllerReference(campaign, run, r.Scheme()); err != nil {
				return ctrl.Result{}, err
			}
			return ctrl.Result{}, r.Update(ctx, run)
		}
	}

	patcher := newStatusPatcher(r.Client, run)
	previous := run.Status.Phase
	defer func() {
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil && previous != run.Status.Phase {
			r.Recorder.Eventf(run, nil, corev1.EventTypeNormal, "Run"+titleCase(string(run.Status.Phase)), "Reconcile", "run is %s", run.Status.Phase)
		}
	}()
	run.Status.ObservedGeneration = run.Generation

	if run.Status.Phase == "" {
		run.Status.Phase = discov1.RunQueued
		zero := 0.0
		run.Status.Progress = &zero
		run.Status.Pipeline = discov1.Pipeline{CurrentStage: discov1.PipelineStages[0]}
		for _, name := range discov1.PipelineStages {
			run.Status.Pipeline.Stages = append(run.Status.Pipeline.Stages, discov1.StageStatus{Name: name, Status: "pending"})
		}
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAccepted, metav1.ConditionTrue, "Submitted", "run accepted")
	}

	if _, cancel := run.Annotations[discov1.AnnotationCancelRequested]; cancel && !run.Status.Phase.Finished() && run.Status.Phase != discov1.RunRunning {
		now := r.now()
		run.Status.Phase = discov1.RunCancelled
		run.Status.CompletedAt = &now
		run.Status.Message = "cancelled before it started"
		setCondition(&run.Status.Conditions, run, discov1.RunConditionFinished, metav1.ConditionTrue, "Cancelled", run.Status.Message)
		return ctrl.Result{}, nil
	}

	if run.Status.Phase == discov1.RunQueued {
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAdmitted, metav1.ConditionFalse, "NoExecutor", "waiting for an executor: run execution is not implemented yet")
	}
	return ctrl.Result{}, nil
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func (r *RunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&discov1.Run{}).Named("run").Complete(r)
}
