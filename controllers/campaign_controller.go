package controllers

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	"github.com/discolab/disco/internal/lookup"
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

	// The project by name (spec.projectRef) or by id; both forms and the ids end in status
	// and labels (issue 14, item 6). A missing project is waited for, not an error.
	tenantID, _ := tenancy.OfNamespace(ctx, r.Client, campaign.Namespace) // "" in a namespace of no tenant
	campaign.Status.ID, campaign.Status.ProjectID = campaign.ID(), campaign.ProjectID()
	campaign.Status.ProjectRef = &discov1.ObjectRef{Name: campaign.ProjectName()}
	if labelled, err := setLabels(ctx, r.Client, campaign, map[string]string{discov1.LabelID: campaign.ID(),
		discov1.LabelCampaign: campaign.ID(), discov1.LabelProject: campaign.ProjectID(), discov1.LabelTenant: tenantID}); labelled || err != nil {
		return ctrl.Result{}, err
	}
	if campaign.Spec.DisplayName == "" {
		return ctrl.Result{}, defaultDisplayName(ctx, r.Client, campaign, &campaign.Spec.DisplayName)
	}
	project := &discov1.Project{}
	if err := lookup.Ref(ctx, r.Client, campaign.Namespace, campaign.Spec.ProjectRef, campaign.Spec.ProjectID, project); apierrors.IsNotFound(err) {
		waitFor(r.Recorder, campaign, &campaign.Status.Conditions, discov1.ConditionReady, discov1.ReasonProjectNotFound,
			fmt.Sprintf("the project %s does not exist in namespace %s; the campaign waits for it", campaign.ProjectName(), campaign.Namespace))
		return ctrl.Result{}, nil
	} else if err != nil {
		return ctrl.Result{}, err
	}
	campaign.Status.ProjectRef = &discov1.ObjectRef{Name: project.Name} // the name found, whichever form the spec used
	if adopted, err := adopt(ctx, r.Client, campaign, client.ObjectKeyFromObject(project), &discov1.Project{}); adopted || err != nil {
		return ctrl.Result{}, err
	}

	runs := &discov1.RunList{}
	if err := r.List(ctx, runs, client.InNamespace(campaign.Namespace), client.MatchingFields{index.Campaign: campaign.ID()}); err != nil {
		return ctrl.Result{}, err
	}
	if err := observeGovernance(ctx, r.Ledger, campaign, tenantID, campaign.ProjectID(), "campaign",
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
			return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: run.Namespace, Name: run.CampaignName()}}}
		}), builder.WithPredicates(runUsageChanged())).
		Watches(&discov1.Project{}, handler.EnqueueRequestsFromMapFunc(referrers(r.Client,
			func() client.ObjectList { return &discov1.CampaignList{} },
			func(o client.Object) string { return o.(*discov1.Campaign).ProjectID() })), builder.WithPredicates(createdOrIdentified())).
		Named("campaign").
		Complete(r)
}
