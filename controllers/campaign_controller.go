package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/tenancy"
)

// CampaignReconciler computes a campaign's budget counters from its runs, moves it between
// active, exhausted and expired, and owns it to its project.
type CampaignReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// Clock is the clock of budget expiry; nil means the real clock.
	Clock clock.PassiveClock
	// OnExhausted is called once when a campaign becomes exhausted or expired, after the
	// status write succeeded (the run and governance issue wires the budget.exhausted webhook here).
	OnExhausted func(ctx context.Context, c *discov1.Campaign, constraint string)
	// Ledger records governance changes made through the Kubernetes API; nil records none.
	Ledger *ledger.Ledger
	// MaxConcurrentReconciles is how many campaigns are reconciled at once (Concurrency).
	MaxConcurrentReconciles int
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=campaigns,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=campaigns/status;campaigns/finalizers,verbs=get;update;patch

func (r *CampaignReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	campaign := &discov1.Campaign{}
	if err := r.Get(ctx, req.NamespacedName, campaign); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !campaign.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if adopted, err := adopt(ctx, r.Client, campaign, objectKey(campaign.Namespace, campaign.Spec.ProjectID), &discov1.Project{}); adopted || err != nil {
		return ctrl.Result{}, err
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, campaign)
	previous := campaign.Status.Phase
	constraint := "" // what blocks new runs, set below
	defer func() {
		if err == nil { // observedGeneration moves only when the reconcile succeeded
			campaign.Status.ObservedGeneration = campaign.Generation
		}
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil {
			joinPatchErr(&err, clearGovernanceAttribution(ctx, r.Client, campaign))
		}
		if err != nil || previous == campaign.Status.Phase {
			return
		}
		switch campaign.Status.Phase {
		case discov1.CampaignExhausted, discov1.CampaignExpired:
			r.Recorder.Eventf(campaign, nil, corev1.EventTypeWarning, discov1.ReasonBudgetExhausted, "Reconcile", "campaign budget exhausted: %s", constraint)
			if r.OnExhausted != nil {
				r.OnExhausted(ctx, campaign, constraint)
			}
		}
	}()

	runs := &discov1.RunList{}
	if err := r.List(ctx, runs, client.InNamespace(campaign.Namespace), client.MatchingFields{index.Campaign: projectID(campaign)}); err != nil {
		return ctrl.Result{}, err
	}
	tenantID, _ := tenancy.OfNamespace(ctx, r.Client, campaign.Namespace) // "" in a namespace of no tenant
	if err := observeGovernance(ctx, r.Ledger, campaign, tenantID, campaign.Spec.ProjectID, "campaign",
		campaign.Spec.Governance, &campaign.Status.ObservedGovernance); err != nil {
		return ctrl.Result{}, err
	}
	now := now(r.Clock)
	usage := governance.CampaignUsage(campaign, runs.Items)
	campaign.Status.ComputeUnitsUsed = usage.ComputeUnitsUsed
	campaign.Status.RunsCompleted = usage.RunsCompleted
	campaign.Status.RunsTotal = usage.RunsTotal
	campaign.Status.RunsActive = usage.RunsActive
	campaign.Status.Phase = governance.CampaignPhaseFor(campaign, usage, now)

	if constraint = governance.BudgetConstraint(campaign, usage, now); constraint != "" {
		setCondition(&campaign.Status.Conditions, campaign, discov1.CampaignConditionBudgetAvailable, metav1.ConditionFalse, discov1.ReasonBudgetExhausted, "no new runs: "+constraint+" reached")
	} else {
		setCondition(&campaign.Status.Conditions, campaign, discov1.CampaignConditionBudgetAvailable, metav1.ConditionTrue, discov1.ReasonBudgetAvailable, "runs may be submitted")
	}
	setCondition(&campaign.Status.Conditions, campaign, discov1.ConditionReady, metav1.ConditionTrue, discov1.ReasonReconciled, "campaign is "+string(campaign.Status.Phase))

	// Expiry needs no event to happen: come back when the campaign expires.
	if exp := campaign.Spec.Budget.ExpiresAt; exp != nil && campaign.Status.Phase == discov1.CampaignActive {
		return ctrl.Result{RequeueAfter: exp.Sub(now) + time.Second}, nil
	}
	return ctrl.Result{}, nil
}

func (r *CampaignReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return workers(ctrl.NewControllerManagedBy(mgr), r.MaxConcurrentReconciles).
		For(&discov1.Campaign{}).
		Watches(&discov1.Run{}, handler.EnqueueRequestsFromMapFunc(func(_ context.Context, o client.Object) []reconcile.Request {
			run := o.(*discov1.Run)
			return []reconcile.Request{{NamespacedName: objectKey(run.Namespace, run.Spec.CampaignID)}}
		}), builder.WithPredicates(runUsageChanged())).
		Named("campaign").
		Complete(r)
}
