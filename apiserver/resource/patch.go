package resource

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver/apierror"
)

// Updates through the facade's PATCH operations: a JSON merge patch (RFC 7396) over the
// wire form of an object's mutable fields, applied to the object as the API server has it.

// ReadPatch reads a PATCH request: its If-Match header (ParseIfMatch; nil when absent)
// and its body as a merge patch over fields (DecodeMergePatch).
func ReadPatch(ifMatch string, raw []byte, fields ...string) (*IfMatch, map[string]any, error) {
	cond, err := ParseIfMatch(ifMatch)
	if err != nil {
		return nil, nil, err
	}
	patch, err := DecodeMergePatch(raw, fields...)
	if err != nil {
		return nil, nil, err
	}
	return cond, patch, nil
}

// DecodeMergePatch reads a PATCH body as a merge patch object. Members other than fields
// are dropped: the contract lets PATCH change only those, and others are ignored as
// unknown fields are. An empty body is an empty patch.
func DecodeMergePatch(raw []byte, fields ...string) (map[string]any, error) {
	var patch map[string]any
	if len(bytes.TrimSpace(raw)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // keep integers exact (int64 budgets)
		if err := dec.Decode(&patch); err != nil {
			return nil, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the body must be a JSON object")
		}
	}
	for k := range patch {
		keep := false
		for _, f := range fields {
			keep = keep || k == f
		}
		if !keep {
			delete(patch, k)
		}
	}
	return patch, nil
}

// ApplyMergePatch merges patch into current, the wire form of an object's mutable fields,
// and decodes the result into out: a member the patch sets to null is removed, so out sees
// it as absent (RFC 7396, section 2).
func ApplyMergePatch(current any, patch map[string]any, out any, kind string) error {
	doc := map[string]any{}
	raw, _ := json.Marshal(current)
	_ = json.Unmarshal(raw, &doc)
	raw, _ = json.Marshal(mergePatch(doc, patch))
	if err := json.Unmarshal(raw, out); err != nil {
		return apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the patch does not fit the %s: %v", kind, err)
	}
	return nil
}

// mergePatch applies an RFC 7396 JSON merge patch to target.
func mergePatch(target any, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = mergePatch(tm[k], v)
	}
	return tm
}

// UpdateFresh writes change(cur), where cur is the object cached names as the API server
// has it now, not the cached copy: a controller writing the object between the caller's
// read and this update (status, defaults) is no reason to refuse a merge patch, so a
// conflict is retried against a fresh read (issue 17). With If-Match (cond) the client
// asked for exactly the version it named, so there a different version or a conflict is
// its answer: 412 (RFC 9110, section 13.1.1). An object for which visible is false
// answers 404 as kind id. change may return an *apierror.Error, which is answered as is.
func UpdateFresh[T client.Object](ctx context.Context, k *Kit, cached T, cond *IfMatch, kind, id string,
	visible func(T) bool, change func(cur T) (T, error)) (T, error) {
	var upd T
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := reflect.New(reflect.TypeOf(cached).Elem()).Interface().(T)
		if err := k.APIReader.Get(ctx, client.ObjectKeyFromObject(cached), cur); err != nil {
			return err
		}
		if !visible(cur) || cur.GetDeletionTimestamp() != nil {
			return apierror.NotFound(kind, id)
		}
		if !cond.Matches(cur) {
			return PreconditionFailed(kind, id, cur)
		}
		next, err := change(cur)
		if err != nil {
			return err
		}
		if err := k.Client.Update(ctx, next); err != nil {
			if apierrors.IsConflict(err) && cond != nil && !cond.Any() {
				return PreconditionFailed(kind, id, nil)
			}
			return err
		}
		upd = next
		return nil
	})
	if err != nil {
		if _, ok := err.(*apierror.Error); ok {
			return upd, err
		}
		return upd, WriteErrorOf(err, kind, id)
	}
	return upd, nil
}
