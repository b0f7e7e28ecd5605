package controllers

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/lookup"
	"github.com/discolab/disco/internal/promotion"
)

// ClaimPromotionReconciler decides ClaimPromotion requests: the Kubernetes face of the REST
// promote and demote operations. It moves the claim with internal/promotion, so a request
// made with kubectl passes the same governance rules and writes the same ledger entries as
// one made through REST, and records the decision in the request's status. A request is
// decided once: a decided request is never acted on again.
type ClaimPromotionReconciler struct {
	client.Client
	Reader   client.Reader
	Recorder events.EventRecorder
	Ledger   *ledger.Ledger
	Events   EventPublisher
	Clock    clock.PassiveClock
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=claimpromotions,verbs=get;list;watch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=claimpromotions/status,verbs=get;update;patch

func (r *ClaimPromotionReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	pr := &discov1.ClaimPromotion{}
	if err := r.Get(ctx, req.NamespacedName, pr); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if pr.Status.Phase != "" && pr.Status.Phase != discov1.ClaimPromotionPending || !pr.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, pr)
	defer func() {
		if err == nil { // observedGeneration moves only when the reconcile succeeded
			pr.Status.ObservedGeneration = pr.Generation
		}
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil && pr.Status.Phase != discov1.ClaimPromotionPending {
			kind := corev1.EventTypeNormal
			if pr.Status.Phase != discov1.ClaimPromotionApproved {
				kind = corev1.EventTypeWarning
			}
			r.Recorder.Eventf(pr, nil, kind, string(pr.Status.Phase), "Decide", "%s", pr.Status.Message)
		}
	}()

	// Read the claim uncached: a decision must be taken on the claim as it is now, and the
	// tier write is optimistic-locked on what was read.
	claim := &discov1.Claim{}
	if err := r.Reader.Get(ctx, client.ObjectKey{Namespace: pr.Namespace, Name: pr.Spec.ClaimName}, claim); err != nil {
		if !apierrors.IsNotFound(err) {
			return ctrl.Result{}, err
		}
		r.decide(pr, discov1.ClaimPromotionFailed, discov1.ReasonClaimNotFound, "", fmt.Sprintf("claim %s was not found in namespace %s", pr.Spec.ClaimName, pr.Namespace))
		return ctrl.Result{}, nil
	}
	project := &discov1.Project{}
	if err := lookup.ByID(ctx, r.Client, pr.Namespace, claim.Spec.ProjectID, project); err != nil {
		return ctrl.Result{}, fmt.Errorf("project %s of claim %s: %w", claim.Spec.ProjectID, claim.Name, err)
	}
	m := promotion.Move{Claim: claim, Project: project, TenantID: project.TenantID(), Target: pr.Spec.TargetTier,
		Actor: actorOf(pr), Rationale: pr.Spec.Rationale}
	campaign := &discov1.Campaign{}
	if err := lookup.ByID(ctx, r.Client, pr.Namespace, claim.Spec.CampaignID, campaign); err == nil {
		m.Campaign = campaign
	} else if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	pr.Status.PreviousTier = claim.Spec.Tier
	g := &promotion.Governor{Client: r.Client, Reader: r.Reader, Ledger: r.Ledger, Events: r.Events}
	if r.Clock != nil {
		g.Now = r.Clock.Now
	}
	var out promotion.Outcome
	if m.Target.Rank() < claim.Spec.Tier.Rank() {
		out, err = g.Demote(ctx, m)
	} else {
		out, err = g.Promote(ctx, m)
	}
	var refused *promotion.Refused
	var wrong *promotion.WrongDirection
	switch {
	case err == nil:
		pr.Status.LedgerEntryID = out.LedgerEntryID
		r.decide(pr, discov1.ClaimPromotionApproved, discov1.ReasonTierMoved, "", fmt.Sprintf("claim %s moved from %s to %s", claim.Name, out.From, out.To))
	case errors.As(err, &refused):
		pr.Status.LedgerEntryID = refused.LedgerEntryID
		r.decide(pr, discov1.ClaimPromotionDenied, discov1.ReasonPolicyViolation, refused.Evaluation.Constraint,
			fmt.Sprintf("%s: %s", promotion.RefusalCode(refused.Evaluation.Constraint), refused.Error()))
	case errors.As(err, &wrong):
		r.decide(pr, discov1.ClaimPromotionFailed, discov1.ReasonWrongDirection, "", wrong.Error())
	case errors.Is(err, promotion.ErrConflict):
		return ctrl.Result{Requeue: true}, nil //nolint:staticcheck // Requeue keeps the workqueue's rate-limited backoff; decide again on the claim as it is now
	default:
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// actorOf is the ledger actor of a request: the Kubernetes user who created it.
func actorOf(pr *discov1.ClaimPromotion) string {
	if pr.Spec.RequestedBy == "" {
		return "kubernetes:unknown"
	}
	return "kubernetes:" + pr.Spec.RequestedBy
}

func (r *ClaimPromotionReconciler) decide(pr *discov1.ClaimPromotion, phase discov1.ClaimPromotionPhase, reason, constraint, message string) {
	decided := metav1.NewTime(now(r.Clock))
	pr.Status.Phase = phase
	pr.Status.Constraint = constraint
	pr.Status.Message = message
	pr.Status.DecidedAt = &decided
	status := metav1.ConditionFalse
	if phase == discov1.ClaimPromotionApproved {
		status = metav1.ConditionTrue
	}
	setCondition(&pr.Status.Conditions, pr, discov1.ClaimPromotionConditionApproved, status, reason, message)
}

func (r *ClaimPromotionReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&discov1.ClaimPromotion{}).Named("claimpromotion").Complete(r)
}
