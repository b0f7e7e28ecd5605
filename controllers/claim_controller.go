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

// ClaimReconciler records tier moves in the claim's status (previous tier) and owns each
// claim to its run. Governance decisions are made (and ledgered) by the facade before it
// writes spec.tier; the reconciler only observes them.
type ClaimReconciler struct {
	client.Client
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups=discovery.disco.dev,resources=claims,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=discovery.disco.dev,resources=claims/status;claims/finalizers,verbs=get;update;patch

func (r *ClaimReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, err error) {
	claim := &discov1.Claim{}
	if err := r.Get(ctx, req.NamespacedName, claim); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !claim.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if adopted, err := adopt(ctx, r.Client, claim, objectKey(claim.Namespace, claim.Spec.RunID), &discov1.Run{}); adopted || err != nil {
		return ctrl.Result{}, err
	}

	defer requeueOnConflict(&result, &err)
	patcher := newStatusPatcher(r.Client, claim)
	previous := claim.Status.Tier
	defer func() {
		joinPatchErr(&err, patcher.patch(ctx))
		if err == nil && previous != "" && previous != claim.Status.Tier {
			r.Recorder.Eventf(claim, nil, corev1.EventTypeNormal, "TierChanged", "Reconcile", "tier %s -> %s", previous, claim.Status.Tier)
		}
	}()

	if claim.Status.Tier != claim.Spec.Tier {
		if claim.Status.Tier != "" {
			claim.Status.PreviousTier = claim.Status.Tier
		}
		claim.Status.Tier = claim.Spec.Tier
	}
	claim.Status.ObservedGeneration = claim.Generation
	setCondition(&claim.Status.Conditions, claim, discov1.ConditionReady, metav1.ConditionTrue, "Recorded", "claim is in tier "+string(claim.Spec.Tier))
	return ctrl.Result{}, nil
}

func (r *ClaimReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).For(&discov1.Claim{}).Named("claim").Complete(r)
}
