package controllers

import (
	"context"
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/conditions"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/lookup"
	"github.com/discolab/disco/internal/patch"
	"github.com/discolab/disco/internal/tenancy"
	"github.com/discolab/disco/runexec"
)

// RunReconciler drives a run from queued to a final state: admission under the tenant's
// concurrency limit, execution through the executor, deadline, cancellation, and the
// turning of results into claims.
type RunReconciler struct {
	client.Client
	Recorder  events.EventRecorder
	Clock     clock.PassiveClock
	Executor  runexec.RunExecutor
	Blob      *blob.Bucket
	Ledger    *ledger.Ledger
	Events    EventPublisher
	TimeLimit time.Duration
	// MaxConcurrentReconciles is how many runs are reconciled at once (Concurrency).
	MaxConcurrentReconciles int

	// slots admits the runs of one namespace one at a time, whatever the number of workers.
	slots runSlots
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=runs,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=runs/status;runs/finalizers,verbs=get;update;patch

func (r *RunReconciler) now() metav1.Time {
	return metav1.NewTime(now(r.Clock))
}

func (r *RunReconciler) timeLimit() time.Duration {
	if r.TimeLimit > 0 {
		return r.TimeLimit
	}
	return runexec.DefaultRunTimeLimit
}

func (r *RunReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	run := &discov1.Run{}
	if err := r.Get(ctx, req.NamespacedName, run); err != nil {
		if apierrors.IsNotFound(err) {
			r.cancelGone(ctx, req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !run.DeletionTimestamp.IsZero() {
		r.cancelGone(ctx, req.NamespacedName)
		return ctrl.Result{}, r.finalize(ctx, run)
	}
	if adopted, err := adopt(ctx, r.Client, run, client.ObjectKey{Namespace: run.Namespace, Name: run.CampaignName()}, &discov1.Campaign{}); adopted || err != nil {
		return ctrl.Result{}, err
	}
	if added, err := addFinalizer(ctx, r.Client, run); added || err != nil {
		return ctrl.Result{}, err
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, run)
	previous := run.Status.Phase
	defer func() {
		// observedGeneration says the status describes this generation, so it moves only when
		// the reconcile succeeded (cluster-api's and kueue's convention).
		if err == nil {
			run.Status.ObservedGeneration = run.Generation
		}
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil && previous != run.Status.Phase {
			kind := corev1.EventTypeNormal
			if run.Status.Phase == discov1.RunFailed {
				kind = corev1.EventTypeWarning
			}
			r.Recorder.Eventf(run, nil, kind, "Run"+titleCase(string(run.Status.Phase)), "Reconcile", "run is %s %s", run.Status.Phase, run.Status.Message)
			if run.Status.Phase.Finished() {
				observeRunFinished(run)
			}
		}
	}()
	key := req.NamespacedName
	describeRefs(run)

	if run.Status.Phase == "" {
		// Store queued before anything can start the run, so no later write races it.
		r.initialize(run)
		return ctrl.Result{}, nil
	}
	if run.Status.Phase.Finished() {
		return ctrl.Result{}, r.announce(ctx, run)
	}
	if _, cancel := run.Annotations[discov1.AnnotationCancelRequested]; cancel {
		if r.Executor != nil {
			if err := r.Executor.Cancel(ctx, key); err != nil {
				return ctrl.Result{}, fmt.Errorf("cancelling the run's execution: %w", err)
			}
		}
		r.finish(ctx, run, discov1.RunCancelled, discov1.ReasonCancelled, "cancelled on request")
		return ctrl.Result{}, nil
	}
	if runexec.ResultsReady(run) {
		return ctrl.Result{}, r.complete(ctx, run)
	}
	if r.Executor == nil {
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAdmitted, metav1.ConditionFalse, discov1.ReasonNoExecutor, "this manager has no run executor configured")
		return ctrl.Result{}, nil
	}

	if fr, ok := r.Executor.(runexec.FailureReporter); ok {
		if msg, failed := fr.Failure(ctx, run); failed {
			r.finish(ctx, run, discov1.RunFailed, discov1.ReasonExecutorFailed, msg)
			return ctrl.Result{}, nil
		}
	}

	switch run.Status.Phase {
	case discov1.RunRunning:
		if run.Status.StartedAt != nil {
			deadline := run.Status.StartedAt.Add(r.timeLimit() + runexec.DeadlineGrace)
			if now := r.now(); now.After(deadline) {
				if err := r.Executor.Cancel(ctx, key); err != nil {
					return ctrl.Result{}, fmt.Errorf("stopping the run after its deadline: %w", err)
				}
				r.finish(ctx, run, discov1.RunFailed, discov1.ReasonDeadlineExceeded,
					fmt.Sprintf("the run did not finish within its time limit of %s plus %s grace; it was stopped", r.timeLimit(), runexec.DeadlineGrace))
				return ctrl.Result{}, nil
			}
		}
		if !r.Executor.Active(ctx, key) {
			// The process that ran it is gone (restart): run it again from the start; the
			// seed makes the result the same, and claims are derived from the run id.
			if _, err := r.Executor.Submit(ctx, run); err != nil {
				return ctrl.Result{}, fmt.Errorf("submitting the run again: %w", err)
			}
		}
		return ctrl.Result{RequeueAfter: 30 * time.Second}, nil
	case discov1.RunQueued:
		return r.admit(ctx, run)
	}
	return ctrl.Result{}, nil
}

func (r *RunReconciler) initialize(run *discov1.Run) {
	run.Status.Phase = discov1.RunQueued
	zero := 0.0
	run.Status.Progress = &zero
	run.Status.Pipeline = discov1.Pipeline{CurrentStage: discov1.PipelineStages[0]}
	for _, name := range discov1.PipelineStages {
		run.Status.Pipeline.Stages = append(run.Status.Pipeline.Stages, discov1.StageStatus{Name: name, Status: "pending"})
	}
	setCondition(&run.Status.Conditions, run, discov1.RunConditionAccepted, metav1.ConditionTrue, discov1.ReasonSubmitted, "run accepted")
	for _, typ := range []string{discov1.RunConditionSucceeded, discov1.RunConditionFailed, discov1.ConditionReady} {
		setCondition(&run.Status.Conditions, run, typ, metav1.ConditionFalse, discov1.ReasonQueued, "the run has not finished")
	}
}

func (r *RunReconciler) finish(ctx context.Context, run *discov1.Run, phase discov1.RunPhase, reason, message string) {
	now := r.now()
	run.Status.Phase = phase
	run.Status.Message = message
	run.Status.CompletedAt = &now
	if run.Status.StartedAt != nil {
		run.Status.DurationMS = now.Sub(run.Status.StartedAt.Time).Milliseconds()
	}
	// The controller charges, from the executor's own record when it has one; whatever the
	// engine wrote into computeUnitsUsed is not trusted (issue 17, item 2).
	run.Status.ComputeUnitsUsed = runexec.ChargedUnits(ctx, r.Executor, run, now.Time)
	conditions.SetRunFinished(run, phase, reason, message)
}

// admit starts a queued run when its campaign's budget admits it and the tenant has a free
// execution slot. The budget check is the admission webhook's (governance.Admit), taken
// again here one run at a time in creation order: runs created at the same instant through
// the Kubernetes API can all pass the webhook, and only one of them may take the last slot.
func (r *RunReconciler) admit(ctx context.Context, run *discov1.Run) (ctrl.Result, error) {
	slots := r.slots.lock(run.Namespace)
	defer slots.Unlock()
	project, campaign, waiting, err := r.parents(ctx, run)
	if waiting || err != nil {
		return ctrl.Result{}, err // a missing referent's creation triggers the next pass
	}
	if _, err := r.labelRun(ctx, run); err != nil {
		return ctrl.Result{}, err
	}
	// One list of the namespace's runs serves the campaign's budget and the tenant's slots.
	// It is only read, so the cache's objects are not copied: every queued run of the
	// tenant is admitted again each time a slot frees (queuedOfTenant).
	runs := &discov1.RunList{}
	if err := r.List(ctx, runs, client.InNamespace(run.Namespace), client.UnsafeDisableDeepCopy); err != nil {
		return ctrl.Result{}, err
	}
	if constraint, message := governance.Admit(project, campaign, runs.Items, run, run.CreationTimestamp.Time); constraint != "" {
		msg := fmt.Sprintf("budget_exhausted (%s): %s", constraint, message)
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAdmitted, metav1.ConditionFalse, discov1.ReasonBudgetExhausted, msg)
		r.finish(ctx, run, discov1.RunFailed, discov1.ReasonBudgetExhausted, msg)
		return ctrl.Result{}, nil
	}
	if wait := slots.wait(ctx, r.Executor, tenancy.TenantOf(ctx, r.Client, run.Namespace), runs.Items, run); wait != "" {
		// A finishing run wakes the tenant's queue at once (SetupWithManager).
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAdmitted, metav1.ConditionFalse, discov1.ReasonWaitingForCapacity, wait)
		return ctrl.Result{RequeueAfter: time.Minute}, nil
	}
	started, submitErr := r.Executor.Submit(ctx, run)
	if taken := (*runexec.JobNameTakenError)(nil); errors.As(submitErr, &taken) {
		r.finish(ctx, run, discov1.RunFailed, discov1.ReasonExecutorFailed, taken.Error())
		return ctrl.Result{}, nil
	}
	if submitErr != nil {
		log.FromContext(ctx).Error(submitErr, "the executor did not take the run")
	}
	if started {
		slots.handOver(run)
		// Admitted=True is set by the execution when the engine really starts.
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAdmitted, metav1.ConditionFalse, discov1.ReasonWaitingForCapacity, "submitted; waiting for an executor worker to start it")
	} else if wait := capacityWait(ctx, r.Client, run, submitErr); wait != "" {
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAdmitted, metav1.ConditionFalse, discov1.ReasonWaitingForCapacity, wait)
	} else {
		msg := "the executor did not take the run; it is tried again"
		if submitErr != nil {
			msg = truncate(submitErr.Error(), 2048) + "; it is tried again"
		}
		setCondition(&run.Status.Conditions, run, discov1.RunConditionAdmitted, metav1.ConditionFalse, discov1.ReasonNotSubmitted, msg)
	}
	return ctrl.Result{RequeueAfter: 30 * time.Second}, nil
}

// parents reads the run's campaign, its project (the campaign's) and its dataset, by name
// (spec.campaignRef, spec.datasetRef) or by id, and records both forms and the ids in the
// run's status and labels (issue 14, item 6). A run whose campaign, project or dataset does
// not exist (yet: a GitOps repository may apply the Run first) waits, with a condition and
// an event that say which, instead of running and failing later (issue 14, item 5); the
// reconciler watches those kinds, so it goes on when the referent is created.
func (r *RunReconciler) parents(ctx context.Context, run *discov1.Run) (*discov1.Project, *discov1.Campaign, bool, error) {
	project, campaign, dataset := &discov1.Project{}, &discov1.Campaign{}, &discov1.Dataset{}
	for _, ref := range []struct {
		kind, reason string
		name         func() string
		find         func() error
		obj          client.Object
	}{
		{"campaign", discov1.ReasonCampaignNotFound, run.CampaignName, func() error {
			return lookup.Ref(ctx, r.Client, run.Namespace, run.Spec.CampaignRef, run.Spec.CampaignID, campaign)
		}, campaign},
		{"project", discov1.ReasonProjectNotFound, campaign.ProjectName, func() error {
			return r.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: campaign.ProjectName()}, project)
		}, project},
		{"dataset", discov1.ReasonDatasetNotFound, run.DatasetName, func() error {
			return lookup.Ref(ctx, r.Client, run.Namespace, run.Spec.DatasetRef, run.Spec.DatasetID, dataset)
		}, dataset},
	} {
		err := ref.find()
		if apierrors.IsNotFound(err) {
			waitFor(r.Recorder, run, &run.Status.Conditions, discov1.RunConditionAdmitted, ref.reason,
				fmt.Sprintf("the %s %s does not exist in namespace %s; the run waits for it", ref.kind, ref.name(), run.Namespace))
			return nil, nil, true, nil
		}
		if err != nil {
			return nil, nil, false, err
		}
	}
	// The names found, whichever form the spec used: an id-form reference to an object
	// applied under a human name resolves to that name (issue 14, item 6).
	run.Status.CampaignRef = &discov1.ObjectRef{Name: campaign.Name}
	run.Status.DatasetRef = &discov1.ObjectRef{Name: dataset.Name}
	run.Status.ProjectID = campaign.ProjectID()
	if dataset.Spec.Source != nil && dataset.Status.Source == nil && dataset.Status.Phase != discov1.DatasetFailed {
		waitFor(r.Recorder, run, &run.Status.Conditions, discov1.RunConditionAdmitted, discov1.ReasonDatasetNotFetched,
			fmt.Sprintf("the dataset %s has not fetched its spec.source yet; the run waits for it", dataset.Name))
		return nil, nil, true, nil
	}
	return project, campaign, false, nil
}

// describeRefs records in status the run's id and both forms of its references, whichever
// the spec used: a run created through the REST API gains the names, a human-named one the
// ids (issue 14, item 6). The project id is the spec's, or the campaign's once parents read it.
func describeRefs(run *discov1.Run) {
	run.Status.ID, run.Status.CampaignID, run.Status.DatasetID = run.ID(), run.CampaignID(), run.DatasetID()
	run.Status.CampaignRef = &discov1.ObjectRef{Name: run.CampaignName()}
	run.Status.DatasetRef = &discov1.ObjectRef{Name: run.DatasetName()}
	if run.Spec.ProjectID != "" {
		run.Status.ProjectID = run.Spec.ProjectID
	}
}

// labelRun puts the run's ids on it as labels, for cascading deletion and the facade's
// selectors; the run's project id is known once its campaign was read.
func (r *RunReconciler) labelRun(ctx context.Context, run *discov1.Run) (bool, error) {
	return setLabels(ctx, r.Client, run, map[string]string{discov1.LabelID: run.ID(), discov1.LabelRun: run.ID(),
		discov1.LabelCampaign: run.CampaignID(), discov1.LabelDataset: run.DatasetID(), discov1.LabelProject: run.ProjectID()})
}

// finalize folds a deleted run's usage into its campaign's retired usage, then lets the run
// go: budget spent stays spent when the Run is deleted (issue 14, item 2).
func (r *RunReconciler) finalize(ctx context.Context, run *discov1.Run) error {
	if !controllerutil.ContainsFinalizer(run, discov1.Finalizer) {
		return nil
	}
	used := run
	if !run.Status.Phase.Finished() {
		// A run deleted before it finished is charged what it ran until now, as finish
		// charges a run (ChargedUnits); until then its status.computeUnitsUsed is no charge
		// (issue 14: budget spent stays spent; issue 17, item 2).
		used = run.DeepCopy()
		used.Status.ComputeUnitsUsed = runexec.ChargedUnits(ctx, r.Executor, run, r.now().Time)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		camp := &discov1.Campaign{}
		if err := lookup.Ref(ctx, r.Client, run.Namespace, run.Spec.CampaignRef, run.Spec.CampaignID, camp); err != nil {
			return client.IgnoreNotFound(err)
		}
		before := camp.DeepCopy()
		if !governance.Retire(camp, used) {
			return nil
		}
		return patch.Status(ctx, r.Client, before, camp)
	})
	if err != nil {
		return err
	}
	return removeFinalizer(ctx, r.Client, run)
}

// complete turns stored results into claims and marks the run completed.
func (r *RunReconciler) complete(ctx context.Context, run *discov1.Run) error {
	res, err := runexec.ReadResults(ctx, r.Blob, run)
	if err != nil {
		return fmt.Errorf("read results: %w", err)
	}
	project, campaign, waiting, err := r.parents(ctx, run)
	if err != nil {
		return err
	}
	if waiting {
		return nil // its campaign or project went away; its creation triggers the next pass
	}
	m := &runexec.Materializer{Client: r.Client, Ledger: r.Ledger}
	if _, bestID, err := m.Materialize(ctx, run, project.TenantID(), governance.PolicyFor(project, campaign), res); err != nil {
		return err
	} else if bestID != "" {
		best := res.Claims[res.Summary.BestClaimIndex]
		score := best.Score
		run.Status.Summary = &discov1.RunSummary{BestClaimID: bestID, BestClaimType: string(best.Type), BestClaimScore: &score,
			NegativeControlsPassed: res.Summary.NegativeControlsPassed}
	} else {
		run.Status.Summary = &discov1.RunSummary{NegativeControlsPassed: res.Summary.NegativeControlsPassed}
	}
	run.Status.ClaimsCount = int32(len(res.Claims))
	setCondition(&run.Status.Conditions, run, discov1.RunConditionClaimsCreated, metav1.ConditionTrue, discov1.ReasonClaimsCreated, fmt.Sprintf("%d claims created", len(res.Claims)))
	msg := fmt.Sprintf("%d claims", len(res.Claims))
	if res.Summary.TimedOut {
		msg += "; the time limit expired and the best result found by then was kept"
	}
	r.finish(ctx, run, discov1.RunCompleted, discov1.ReasonCompleted, msg)
	return nil
}

// announce publishes the final state once: run.completed with claim.created for each
// claim, or run.failed. The Announced condition makes it happen once per run.
func (r *RunReconciler) announce(ctx context.Context, run *discov1.Run) error {
	if r.Events == nil || meta.IsStatusConditionTrue(run.Status.Conditions, discov1.RunConditionAnnounced) {
		return nil
	}
	tenant, ok := tenantOfProject(ctx, r.Client, run.Namespace, run.ProjectID())
	if !ok {
		return nil // the project is gone: nobody to announce to
	}
	runID := run.ID()
	data := map[string]any{"run_id": runID, "project_id": run.ProjectID(), "campaign_id": run.CampaignID(),
		"mode": string(run.Spec.Mode), "status": string(run.Status.Phase), "claims_count": run.Status.ClaimsCount, "duration_ms": run.Status.DurationMS}
	switch run.Status.Phase {
	case discov1.RunCompleted:
		claims := &discov1.ClaimList{}
		if err := r.List(ctx, claims, client.InNamespace(run.Namespace), client.MatchingLabels{discov1.LabelRun: runID}); err != nil {
			return err
		}
		for _, c := range claims.Items {
			claim := map[string]any{"claim_id": ids.FromName(c.Name), "run_id": runID, "project_id": run.ProjectID(),
				"type": string(c.Spec.Type), "tier": string(c.Spec.Tier), "score": c.Spec.Score}
			if err := publish(ctx, r.Events, tenant, run.ProjectID(), "claim.created", claim); err != nil {
				return err
			}
			if c.Spec.Tier != discov1.TierExplore { // auto-promoted by the campaign
				claim["from_tier"], claim["promoted_by"] = string(discov1.TierExplore), "system"
				if err := publish(ctx, r.Events, tenant, run.ProjectID(), "claim.promoted", claim); err != nil {
					return err
				}
			}
		}
		if err := publish(ctx, r.Events, tenant, run.ProjectID(), "run.completed", data); err != nil {
			return err
		}
	case discov1.RunFailed:
		data["error"] = run.Status.Message
		if err := publish(ctx, r.Events, tenant, run.ProjectID(), "run.failed", data); err != nil {
			return err
		}
	}
	setCondition(&run.Status.Conditions, run, discov1.RunConditionAnnounced, metav1.ConditionTrue, discov1.ReasonPublished, "webhook events enqueued")
	return nil
}

// cancelGone stops the execution of a run that is gone or going. A failure is only logged:
// the run's Job is owned by the Run and goes with it, and an in-process execution ends
// with the manager.
func (r *RunReconciler) cancelGone(ctx context.Context, key types.NamespacedName) {
	if r.Executor == nil {
		return
	}
	if err := r.Executor.Cancel(ctx, key); err != nil {
		log.FromContext(ctx).Error(err, "cancelling the execution of a deleted run", "run", key)
	}
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func (r *RunReconciler) SetupWithManager(mgr ctrl.Manager) error {
	// Jobs are watched whatever the executor: a Job's end is what moves a cluster run on.
	// A run that finishes, or a Job that ends, frees a slot: the tenant's queued runs are
	// reconciled at once.
	return workers(ctrl.NewControllerManagedBy(mgr), r.MaxConcurrentReconciles).For(&discov1.Run{}, builder.WithPredicates(notProgressOnly())).Owns(&batchv1.Job{}).
		Watches(&discov1.Run{}, handler.EnqueueRequestsFromMapFunc(r.queuedOfTenant), builder.WithPredicates(runFinished())).
		Watches(&batchv1.Job{}, handler.EnqueueRequestsFromMapFunc(r.queuedOfTenant), builder.WithPredicates(jobEnded())).
		Watches(&discov1.Campaign{}, handler.EnqueueRequestsFromMapFunc(referrers(r.Client,
			func() client.ObjectList { return &discov1.RunList{} },
			func(o client.Object) string { return o.(*discov1.Run).CampaignID() })), builder.WithPredicates(createdOrIdentified())).
		Watches(&discov1.Dataset{}, handler.EnqueueRequestsFromMapFunc(referrers(r.Client,
			func() client.ObjectList { return &discov1.RunList{} },
			func(o client.Object) string { return o.(*discov1.Run).DatasetID() })), builder.WithPredicates(predicate.Or(createdOrIdentified(), datasetFetched()))).
		Watches(&discov1.Project{}, handler.EnqueueRequestsFromMapFunc(r.queuedOfTenant), builder.WithPredicates(created())).
		Named("run").Complete(r)
}

// queuedOfTenant lists the queued runs in the namespace of a run that finished.
func (r *RunReconciler) queuedOfTenant(ctx context.Context, o client.Object) []reconcile.Request {
	runs := &discov1.RunList{}
	if err := r.List(ctx, runs, client.InNamespace(o.GetNamespace()), client.UnsafeDisableDeepCopy); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range runs.Items {
		if runs.Items[i].Status.Phase == discov1.RunQueued {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&runs.Items[i])})
		}
	}
	return out
}

// runFinished passes the updates in which a run reaches a final phase.
func runFinished() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, cur := e.ObjectOld.(*discov1.Run), e.ObjectNew.(*discov1.Run)
			return !old.Status.Phase.Finished() && cur.Status.Phase.Finished()
		},
	}
}

// jobEnded passes the updates in which a Job reaches Complete or Failed, and deletions.
func jobEnded() predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, cur := e.ObjectOld.(*batchv1.Job), e.ObjectNew.(*batchv1.Job)
			return !runexec.JobFinished(old) && runexec.JobFinished(cur)
		},
	}
}
