// Package controllers holds one reconciler per disco kind, and the policies they apply.
//
// Every reconciler follows the same shape (after kubernetes-sigs/jobset and cluster-api):
// get the object, compute the new status, and write it with one deferred status patch, which
// sends nothing when the status did not change; Kubernetes events are recorded only after
// that write succeeded, so an event never announces a state that was not stored. The kinds
// that need cleanup when deleted (Tenant, Project, Run, Claim, a Dataset with a spec.source)
// carry disco's finalizer, and their reconcilers make sure it is present before doing
// anything else. Campaigns and other Datasets are owned by their Project and left to garbage
// collection; a ClaimPromotion needs no cleanup.
package controllers

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/internal/conditions"
	"github.com/discolab/disco/internal/patch"
)

// statusPatcher remembers an object as it was read so the status can be written as one
// merge patch at the end of a reconcile.
type statusPatcher struct {
	c      client.Client
	obj    client.Object
	before client.Object
}

func newStatusPatcher(c client.Client, obj client.Object) *statusPatcher {
	return &statusPatcher{c: c, obj: obj, before: obj.DeepCopyObject().(client.Object)}
}

// patch writes the changes to the object since it was read as one optimistic-locked merge
// patch of the status subresource, and sends no request when there are none (internal/patch).
// A NotFound means the object is gone, which is not an error for a status write.
func (p *statusPatcher) patch(ctx context.Context) error {
	return client.IgnoreNotFound(patch.Status(ctx, p.c, p.before, p.obj))
}

// now reads the injected clock; nil is the real clock (k8s.io/utils/clock: one clock for
// every reconciler, which tests replace with clock/testing's fake).
func now(c clock.PassiveClock) time.Time {
	if c == nil {
		return time.Now()
	}
	return c.Now()
}

// setCondition sets a condition stamped with the object's generation (internal/conditions).
func setCondition(conds *[]metav1.Condition, obj client.Object, typ string, status metav1.ConditionStatus, reason, message string) bool {
	return conditions.Set(conds, obj, typ, status, reason, message)
}

// joinPatchErr folds the deferred status-patch error into the reconcile error. A conflict
// means the object changed since it was read: the reconcile is simply done again on the new
// version, without logging an error.
func joinPatchErr(err *error, patchErr error) {
	switch {
	case patchErr == nil:
	case apierrors.IsConflict(patchErr) && *err == nil:
		*err = errRequeue
	default:
		*err = errors.Join(*err, patchErr)
	}
}

// errRequeue asks for another reconcile after a write conflict; Reconcile callers turn it
// into a plain requeue (see requeueOnConflict).
var errRequeue = errors.New("status changed concurrently; reconciling again")

// requeueOnConflict converts errRequeue into a requeue without an error.
func requeueOnConflict(result *ctrl.Result, err *error) {
	if errors.Is(*err, errRequeue) {
		*result = ctrl.Result{Requeue: true} //nolint:staticcheck // Requeue keeps the workqueue's rate-limited backoff after a conflict
		*err = nil
	}
}
