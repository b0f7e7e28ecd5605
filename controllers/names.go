package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/patch"
)

// objectKey is the key of the object of namespace whose id is id: object names are ids with
// the first "_" replaced by "-" (internal/ids).
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
	return true, patch.Object(ctx, c, before, obj)
}

// addFinalizer puts disco's finalizer on obj with a metadata patch, and reports whether it
// had to.
func addFinalizer(ctx context.Context, c client.Client, obj client.Object) (bool, error) {
	before := obj.DeepCopyObject().(client.Object)
	if !controllerutil.AddFinalizer(obj, discov1.Finalizer) {
		return false, nil
	}
	return true, patch.Object(ctx, c, before, obj)
}

// removeFinalizer takes disco's finalizer off obj with a metadata patch.
func removeFinalizer(ctx context.Context, c client.Client, obj client.Object) error {
	before := obj.DeepCopyObject().(client.Object)
	if !controllerutil.RemoveFinalizer(obj, discov1.Finalizer) {
		return nil
	}
	return client.IgnoreNotFound(patch.Object(ctx, c, before, obj))
}

// truncate cuts s to at most n bytes, for fields the CRDs bound.
func truncate(s string, n int) string { return s[:min(len(s), n)] }

// publicID is the public id of a disco object (its ID method).
func publicID(o client.Object) string {
	if x, ok := o.(interface{ ID() string }); ok {
		return x.ID()
	}
	return ids.FromName(o.GetName())
}

// setLabels puts labels on obj with a metadata patch, and reports whether it had to. The
// labels cascading deletion and the facade select by are the controller's to set, never
// required of the user (issue 14, item 6).
func setLabels(ctx context.Context, c client.Client, obj client.Object, labels map[string]string) (bool, error) {
	have := obj.GetLabels()
	missing := false
	for k, v := range labels {
		if v != "" && have[k] != v {
			missing = true
		}
	}
	if !missing {
		return false, nil
	}
	before := obj.DeepCopyObject().(client.Object)
	if have == nil {
		have = map[string]string{}
	}
	for k, v := range labels {
		if v != "" {
			have[k] = v
		}
	}
	obj.SetLabels(have)
	return true, patch.Object(ctx, c, before, obj)
}

// waitFor marks obj as waiting for a referent that does not exist: conditionType False with
// reason and message, and a Warning event when the wait begins. The reconciler watches the
// referent's kind, so the object proceeds as soon as it appears (issue 14, item 6).
func waitFor(recorder events.EventRecorder, obj client.Object, conds *[]metav1.Condition, conditionType, reason, message string) {
	if c := meta.FindStatusCondition(*conds, conditionType); recorder != nil && (c == nil || c.Reason != reason || c.Message != message) {
		recorder.Eventf(obj, nil, corev1.EventTypeWarning, reason, "Resolve", "%s", message)
	}
	setCondition(conds, obj, conditionType, metav1.ConditionFalse, reason, message)
}

// referrers maps a referent to the reconcile requests of the objects of its namespace that
// refer to it: newList lists the referring kind, idOf reads the public id an item refers
// to. Ids, not names, are compared, so a reference by id to an object applied under a
// human name finds it as a reference by name does (issue 14, item 6).
func referrers(c client.Client, newList func() client.ObjectList, idOf func(client.Object) string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		list := newList()
		if err := c.List(ctx, list, client.InNamespace(o.GetNamespace())); err != nil {
			return nil
		}
		items, err := meta.ExtractList(list)
		if err != nil {
			return nil
		}
		id := publicID(o)
		var out []reconcile.Request
		for _, item := range items {
			if obj, ok := item.(client.Object); ok && idOf(obj) == id {
				out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
			}
		}
		return out
	}
}

// created passes only the creation of an object: the moment a referent appears.
func created() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc:  func(event.UpdateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// defaultDisplayName sets a spec's empty displayName to the object's name with a merge
// patch of that one field: a manifest needs no displayName (issue 14, item 6).
func defaultDisplayName(ctx context.Context, c client.Client, obj client.Object, field *string) error {
	before := obj.DeepCopyObject().(client.Object)
	*field = obj.GetName()
	return patch.Object(ctx, c, before, obj)
}
