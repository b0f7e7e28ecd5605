// Package controllers holds one reconciler per disco kind, and the policies they apply.
//
// Every reconciler follows the same shape (after kubernetes-sigs/jobset and cluster-api):
// get the object, compute the new status, and write it with one deferred status patch, which
// sends nothing when the status did not change; Kubernetes events are recorded only after
// that write succeeded, so an event never announces a state that was not stored. The kinds
// that need cleanup when deleted (Tenant, Project, Run, Claim) carry disco's finalizer, and
// their reconcilers make sure it is present before doing anything else. Campaigns and
// Datasets are owned by their Project and left to garbage collection; a ClaimPromotion needs
// no cleanup.
package controllers

import (
	"context"
	"encoding/json"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
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

// patch writes the changes to the object since it was read as one merge patch of the status
// subresource, and sends no request when there are none (the diff before the patch of
// cluster-api's patch helper; issue 16 item 3). The patch is optimistic-locked: a CRD merge
// patch replaces whole lists, so writing a status computed from a stale read could drop
// conditions another writer (the run executor) just set. A NotFound means the object is
// gone, which is not an error for a status write.
func (p *statusPatcher) patch(ctx context.Context) error {
	mergePatch := client.MergeFromWithOptions(p.before, client.MergeFromWithOptimisticLock{})
	data, err := mergePatch.Data(p.obj)
	if err != nil {
		return err
	}
	if emptyMergePatch(data) {
		return nil
	}
	err = p.c.Status().Patch(ctx, p.obj, client.RawPatch(mergePatch.Type(), data))
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// emptyMergePatch reports whether a JSON merge patch (RFC 7386) changes nothing beyond the
// metadata.resourceVersion that optimistic locking puts in every patch.
func emptyMergePatch(data []byte) bool {
	var patch map[string]any
	if err := json.Unmarshal(data, &patch); err != nil {
		return false
	}
	if metadata, ok := patch["metadata"].(map[string]any); ok {
		delete(metadata, "resourceVersion")
		if len(metadata) == 0 {
			delete(patch, "metadata")
		}
	}
	return len(patch) == 0
}

// setCondition sets a condition stamped with the object's generation.
func setCondition(conds *[]metav1.Condition, obj client.Object, typ string, status metav1.ConditionStatus, reason, message string) bool {
	return meta.SetStatusCondition(conds, metav1.Condition{
		Type:               typ,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: obj.GetGeneration(),
	})
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
		*result = ctrl.Result{Requeue: true}
		*err = nil
	}
}
