package controllers

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/tenancy"
	"github.com/discolab/disco/runexec"
)

// Object names are ids with the first "_" replaced by "-"; these helpers keep that mapping
// in one place for the reconcilers.
func tenantObjectName(tenantID string) string { return ids.ToName(tenantID) }
func projectID(o client.Object) string        { return ids.FromName(o.GetName()) }
func objectKey(namespace, id string) client.ObjectKey {
	return client.ObjectKey{Namespace: namespace, Name: ids.ToName(id)}
}

// adopt makes parent the controller owner of obj when obj has none yet and the parent
// exists; it reports whether obj was updated (the caller then ends the reconcile: the
// update triggers the next one).
func adopt(ctx context.Context, c client.Client, obj client.Object, parentKey client.ObjectKey, parent client.Object) (bool, error) {
	if len(obj.GetOwnerReferences()) > 0 {
		return false, nil
	}
	if err := c.Get(ctx, parentKey, parent); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	before := obj.DeepCopyObject().(client.Object)
	if err := controllerutil.SetControllerReference(parent, obj, c.Scheme()); err != nil {
		return false, err
	}
	// A metadata-only merge patch: an Update would send the whole object back, and a spec
	// re-serialised with explicit zero values differs from the stored one, which the CEL rule
	// self == oldSelf of immutable specs refuses (issue 14, item 5).
	return true, c.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))
}

// addFinalizer puts disco's finalizer on obj with a metadata patch, and reports whether it
// had to.
func addFinalizer(ctx context.Context, c client.Client, obj client.Object) (bool, error) {
	before := obj.DeepCopyObject().(client.Object)
	if !controllerutil.AddFinalizer(obj, discov1.Finalizer) {
		return false, nil
	}
	return true, c.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}))
}

// removeFinalizer takes disco's finalizer off obj with a metadata patch.
func removeFinalizer(ctx context.Context, c client.Client, obj client.Object) error {
	before := obj.DeepCopyObject().(client.Object)
	if !controllerutil.RemoveFinalizer(obj, discov1.Finalizer) {
		return nil
	}
	return client.IgnoreNotFound(c.Patch(ctx, obj, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})))
}

// tenantOfNamespace finds the tenant a namespace belongs to (its tenant label), or nil.
func tenantOfNamespace(ctx context.Context, c client.Client, namespace string) *discov1.Tenant {
	return tenancy.TenantOf(ctx, c, namespace)
}

// LabelKueueQueue is the label Kueue reads to admit a suspended Job (runexec's).
const LabelKueueQueue = runexec.LabelKueueQueue

// jobFinished reports whether a Job reached Complete or Failed (runexec.JobFinished).
func jobFinished(job *batchv1.Job) bool { return runexec.JobFinished(job) }

// truncate cuts s to at most n bytes, for fields the CRDs bound.
func truncate(s string, n int) string { return s[:min(len(s), n)] }
