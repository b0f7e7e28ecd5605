// Package patch writes a Kubernetes object, or its status, as a diff against the object as
// it was read, and sends no request when nothing changed: the "diff before patching" of
// cluster-api's util/patch helper. Every status write of the reconcilers and of the run
// execution, and every metadata write of the reconcilers (finalizers, owners, labels),
// goes through it (issue 16 item 3).
package patch

import (
	"context"
	"encoding/json"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Status writes the changes of obj since before as one JSON merge patch (RFC 7386) of the
// status subresource, and sends no request when there are none. The patch is
// optimistic-locked: a CRD merge patch replaces whole lists, so a status computed from a
// stale read would otherwise drop conditions another writer just set; a conflict comes
// back as the API server's Conflict error.
func Status(ctx context.Context, c client.Client, before, obj client.Object) error {
	return write(before, obj, func(p client.Patch) error { return c.Status().Patch(ctx, obj, p) })
}

// Object writes the changes of obj since before to the object itself (its metadata and
// spec) as one optimistic-locked JSON merge patch, and sends no request when there are
// none. Only what changed is sent: an Update sends the whole object back, and a spec
// re-serialised with explicit zero values differs from the stored one, which the CEL rule
// self == oldSelf of immutable specs refuses (issue 14, item 5).
func Object(ctx context.Context, c client.Client, before, obj client.Object) error {
	return write(before, obj, func(p client.Patch) error { return c.Patch(ctx, obj, p) })
}

// write computes the optimistic-locked merge patch from before to obj and sends it, unless
// it changes nothing.
func write(before, obj client.Object, send func(client.Patch) error) error {
	mergePatch := client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})
	data, err := mergePatch.Data(obj)
	if err != nil {
		return err
	}
	if Empty(data) {
		return nil
	}
	return send(client.RawPatch(mergePatch.Type(), data))
}

// Empty reports whether a JSON merge patch (RFC 7386) changes nothing beyond the
// metadata.resourceVersion that optimistic locking puts in every patch.
func Empty(data []byte) bool {
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
