package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/lookup"
	"github.com/discolab/disco/internal/tenancy"
)

// ClaimReconciler records tier moves in the claim's status (previous tier), owns each claim
// to its run, and ledgers a claim's deletion. Governance decisions are made and ledgered by
// internal/promotion (the facade and the ClaimPromotion reconciler) before spec.tier is
// written, and the claim admission webhook lets no one else write it; the reconciler only
// observes them.
type ClaimReconciler struct {
	client.Client
	Recorder events.EventRecorder
	// Ledger records deletions (claim_deleted); nil records nothing.
	Ledger *ledger.Ledger
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=claims,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=claims/status;claims/finalizers,verbs=get;update;patch

func (r *ClaimReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	claim := &discov1.Claim{}
	if err := r.Get(ctx, req.NamespacedName, claim); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !claim.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.finalize(ctx, claim)
	}
	runKey := objectKey(claim.Namespace, claim.Spec.RunID)
	if run := (&discov1.Run{}); len(claim.OwnerReferences) == 0 && lookup.ByID(ctx, r.Client, claim.Namespace, claim.Spec.RunID, run) == nil {
		runKey = client.ObjectKeyFromObject(run) // a human-named run (issue 14, item 6)
	}
	if adopted, err := adopt(ctx, r.Client, claim, runKey, &discov1.Run{}); adopted || err != nil {
		return ctrl.Result{}, err
	}
	if added, err := addFinalizer(ctx, r.Client, claim); added || err != nil {
		return ctrl.Result{}, err
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, claim)
	previous := claim.Status.Tier
	defer func() {
		if err == nil { // observedGeneration moves only when the reconcile succeeded
			claim.Status.ObservedGeneration = claim.Generation
		}
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil && previous != "" && previous != claim.Status.Tier {
			r.Recorder.Eventf(claim, nil, corev1.EventTypeNormal, discov1.EventReasonTierChanged, "Reconcile", "tier %s -> %s", previous, claim.Status.Tier)
		}
	}()

	if claim.Status.Tier != claim.Spec.Tier {
		if claim.Status.Tier != "" {
			claim.Status.PreviousTier = claim.Status.Tier
		}
		claim.Status.Tier = claim.Spec.Tier
	}
	setCondition(&claim.Status.Conditions, claim, discov1.ConditionReady, metav1.ConditionTrue, discov1.ReasonRecorded, "claim is in tier "+string(claim.Spec.Tier))
	return ctrl.Result{}, nil
}

// finalize ledgers the deletion of a claim as claim_deleted (once: a retried finalize finds
// the entry it wrote), then lets the claim go. Deletion is a governance event: a published
// claim that disappears without trace would defeat the ledger (issue 14).
func (r *ClaimReconciler) finalize(ctx context.Context, claim *discov1.Claim) error {
	if !controllerutil.ContainsFinalizer(claim, discov1.Finalizer) {
		return nil
	}
	if r.Ledger != nil {
		if err := r.ledgerDeletion(ctx, claim); err != nil {
			return err
		}
	}
	return removeFinalizer(ctx, r.Client, claim)
}

func (r *ClaimReconciler) ledgerDeletion(ctx context.Context, claim *discov1.Claim) error {
	// The namespace's tenant label, not the Tenant: a tenant's claims are deleted with its
	// namespace after the Tenant itself is gone.
	tenantID, err := tenancy.OfNamespace(ctx, r.Client, claim.Namespace)
	if err != nil {
		return err
	}
	claimID := ids.FromName(claim.Name)
	recent, err := r.Ledger.List(ctx, tenantID, claim.Spec.ProjectID, ledger.ListQuery{ClaimID: claimID, Desc: true, Limit: 1})
	if err != nil {
		return err
	}
	if len(recent) > 0 && recent[0].EventType == ledger.ClaimDeleted {
		return nil
	}
	_, err = r.Ledger.Append(ctx, ledger.Entry{
		TenantID: tenantID, ProjectID: claim.Spec.ProjectID, EventType: ledger.ClaimDeleted, ClaimID: claimID,
		RunID: claim.Spec.RunID, Actor: ledger.ActorSystem,
		Details: map[string]any{"tier": string(claim.Spec.Tier), "claim_type": string(claim.Spec.Type), "truth_dial_score": claim.Spec.Score},
	})
	return err
}

func (r *ClaimReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&discov1.Claim{}).Named("claim").Complete(r)
}
