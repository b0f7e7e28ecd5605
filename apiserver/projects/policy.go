package projects

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ledger"
)

// Policy records changes of the governance settings of projects and campaigns in the
// project's Evidence Ledger (DESIGN.md: every governance event is ledgered).
type Policy struct {
	Kit *resource.Kit
	// Ledger may be nil: nothing is then recorded.
	Ledger *ledger.Ledger
}

// GovernanceScopeError refuses a change of governance settings to a caller without
// governance:write. projects:write covers a project's name, description and status; the
// rules that decide which claims may be promoted are a separate grant (issue 17).
func GovernanceScopeError(field string) error {
	return apierror.InsufficientScope(auth.GovernanceWrite).With("field", field)
}

// PolicyChange is a change of the governance settings of a project or a campaign, in
// their wire form before and after.
type PolicyChange struct {
	ProjectID    string // whose ledger records the change
	Resource, ID string // "project" or "campaign", and its id
	Field        string // the request field that carries the settings
	Before       any
	After        any
}

// Record ledgers a change of governance settings as policy_changed, with the
// settings before and after and the names of the rules that changed, in the ledger of
// the project they belong to (DESIGN.md: every governance event is ledgered). Nothing is
// recorded when nothing changed.
func (s Policy) Record(ctx context.Context, ch PolicyChange) error {
	changed := changedFields(ch.Before, ch.After)
	if len(changed) == 0 {
		return nil
	}
	p, t := auth.Who(ctx)
	_, err := s.ledgerAppend(ctx, t.ID, ch.ProjectID, ledger.PolicyChanged, "", "", p.Actor, map[string]any{
		"resource": ch.Resource, ch.Resource + "_id": ch.ID, "before": ch.Before, "after": ch.After, "changed": changed,
	})
	return err
}

// CreateGoverned creates obj, a project or campaign whose governance settings are
// ch.After where it would otherwise follow ch.Before. Settings that differ need
// governance:write and are ledgered; an object whose settings could not be ledgered is
// deleted again, since an unrecorded governance setting must not stand.
func (s Policy) CreateGoverned(ctx context.Context, obj client.Object, ch PolicyChange) error {
	if p, _ := auth.Who(ctx); !p.Has(auth.GovernanceWrite) && len(changedFields(ch.Before, ch.After)) > 0 {
		return GovernanceScopeError(ch.Field)
	}
	if err := s.Kit.Client.Create(ctx, obj); err != nil {
		return resource.WriteErrorOf(err, ch.Resource, ch.ID)
	}
	if err := s.Record(ctx, ch); err != nil {
		uid := obj.GetUID()
		derr := s.Kit.Client.Delete(context.WithoutCancel(ctx), obj, client.Preconditions{UID: &uid})
		if derr != nil && !apierrors.IsNotFound(derr) {
			s.Kit.Log.Error(derr, "could not delete an object whose governance was not ledgered", "name", obj.GetName(), "request_id", transport.RequestID(ctx))
		}
		return err
	}
	s.Kit.AwaitCache(ctx, obj)
	return nil
}

// RecordUpdate ledgers ch, a change of governance settings that the update to obj made,
// and waits for the cache to hold obj. A change that cannot be ledgered is undone (restore
// puts the settings before it back on a fresh read of the object), since an unrecorded
// governance change must not stand.
func RecordUpdate[T client.Object](ctx context.Context, pol Policy, obj T, ch PolicyChange, restore func(cur T)) error {
	if err := pol.Record(ctx, ch); err != nil {
		_, uerr := resource.UpdateFresh(context.WithoutCancel(ctx), pol.Kit, obj, nil, ch.Resource, ch.ID,
			func(T) bool { return true },
			func(cur T) (T, error) { restore(cur); return cur, nil })
		if uerr != nil {
			pol.Kit.Log.Error(uerr, "could not undo an unledgered governance change", "name", obj.GetName(), "request_id", transport.RequestID(ctx))
		}
		return err
	}
	pol.Kit.AwaitCache(ctx, obj)
	return nil
}

// changedFields lists, sorted, the JSON members whose values differ between two objects.
func changedFields(before, after any) []string {
	var b, a map[string]any
	rb, _ := json.Marshal(before)
	ra, _ := json.Marshal(after)
	_ = json.Unmarshal(rb, &b)
	_ = json.Unmarshal(ra, &a)
	var out []string
	for k := range a {
		if !reflect.DeepEqual(a[k], b[k]) {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// ledgerAppend records a governance entry; without a ledger (not configured) nothing is
// recorded and the id is "".
func (s Policy) ledgerAppend(ctx context.Context, tenantID, projectID, eventType, claimID, runID, actor string, details map[string]any) (string, error) {
	if s.Ledger == nil {
		return "", nil
	}
	e, err := s.Ledger.Append(ctx, ledger.Entry{
		TenantID: tenantID, ProjectID: projectID, EventType: eventType, ClaimID: claimID, RunID: runID,
		Actor: actor, Details: details,
	})
	if err != nil {
		return "", apierror.Internal(err)
	}
	return e.ID, nil
}
