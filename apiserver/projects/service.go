package projects

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
)

// Service changes projects: a merge patch applied to the version the API server has,
// If-Match, the governance scope, and the ledger record of governance changes, without
// HTTP.
type Service struct {
	Kit    *resource.Kit
	Policy Policy
}

// Update applies patch, an RFC 7396 merge patch over the mutable fields' wire form
// (name, description, status, settings), to the project cached names, for the caller
// of ctx. The patch applies to the project as the API server has it now, not to the
// cached copy: a controller writing the project between our read and our update
// (status, defaults) is no reason to refuse a merge patch, so a conflict is retried
// against a fresh read (issue 17). With If-Match (cond) the client asked for exactly
// the version it named, so there a conflict is its answer: 412. A change of
// settings.governance needs governance:write and is ledgered; one that cannot be
// ledgered is undone.
func (s *Service) Update(ctx context.Context, cached *discov1.Project, cond *resource.IfMatch, patch map[string]any) (*discov1.Project, error) {
	p, t := auth.Who(ctx)
	id := ids.FromName(cached.Name)
	var (
		upd            *discov1.Project
		before, after  Governance
		prevGovernance discov1.GovernanceSettings
	)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Project
		if err := s.Kit.APIReader.Get(ctx, client.ObjectKeyFromObject(cached), &cur); err != nil {
			return err
		}
		if cur.Spec.TenantID != t.ID || cur.DeletionTimestamp != nil {
			return apierror.NotFound("project", id)
		}
		if !cond.Matches(&cur) {
			return resource.PreconditionFailed("project", id, &cur)
		}
		next, err := s.patchedProject(&cur, patch)
		if err != nil {
			return err
		}
		before, after = GovernanceOf(cur.Spec.Settings.Governance), GovernanceOf(next.Spec.Settings.Governance)
		if before != after && !p.Has(auth.GovernanceWrite) {
			return GovernanceScopeError("body.settings.governance")
		}
		prevGovernance = cur.Spec.Settings.Governance
		if err := s.Kit.Client.Update(ctx, next); err != nil {
			if apierrors.IsConflict(err) && cond != nil && !cond.Any() {
				return resource.PreconditionFailed("project", id, nil)
			}
			return err
		}
		upd = next
		return nil
	})
	if err != nil {
		if _, ok := err.(*apierror.Error); ok {
			return nil, err
		}
		return nil, resource.WriteErrorOf(err, "project", id)
	}
	if err := s.Policy.Record(ctx, PolicyChange{ProjectID: id, Resource: "project", ID: id,
		Before: before, After: after}); err != nil {
		s.undoGovernance(ctx, upd, prevGovernance)
		return nil, err
	}
	s.Kit.AwaitCache(ctx, upd)
	return upd, nil
}

// patchedProject returns cur with the merge patch applied over the wire form of its
// mutable fields: null removes a member, which maps to the field's default.
func (s *Service) patchedProject(cur *discov1.Project, patch map[string]any) (*discov1.Project, error) {
	wire := Of(cur)
	doc := map[string]any{}
	raw, _ := json.Marshal(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Status      string          `json:"status"`
		Settings    ProjectSettings `json:"settings"`
	}{wire.Name, wire.Description, wire.Status, wire.Settings})
	_ = json.Unmarshal(raw, &doc)
	merged := mergePatch(doc, patch)
	raw, _ = json.Marshal(merged)
	var next projectPatch
	if err := json.Unmarshal(raw, &next); err != nil {
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeValidation, "the patch does not fit the project: %v", err)
	}
	upd := cur.DeepCopy()
	upd.Spec.DisplayName = ptr.Deref(next.Name, cur.Spec.DisplayName)
	upd.Spec.Description = ptr.Deref(next.Description, "")
	if err := transport.CheckText(transport.NameText("body.name", upd.Spec.DisplayName), transport.ProseText("body.description", upd.Spec.Description)); err != nil {
		return nil, err
	}
	upd.Spec.State = discov1.ProjectState(ptr.Deref(next.Status, string(discov1.ProjectActive)))
	upd.Spec.Settings = discov1.ProjectSettings{}
	if st := next.Settings; st != nil {
		upd.Spec.Settings.DefaultMode = discov1.Mode(ptr.Deref(st.DefaultMode, ""))
		if g := st.Governance; g != nil {
			upd.Spec.Settings.Governance = discov1.GovernanceSettings{
				PromotionCeiling:        discov1.Tier(ptr.Deref(g.PromotionCeiling, "")),
				RequireNegativeControls: g.RequireNegativeControls,
				TruthDialThreshold:      g.TruthDialThreshold,
			}
		}
	}
	if upd.Annotations == nil {
		upd.Annotations = map[string]string{}
	}
	upd.Annotations[annotationUpdatedAt] = s.Kit.Now().UTC().Format(time.RFC3339Nano)
	return upd, nil
}

// undoGovernance puts a project's governance back when its change could not be
// ledgered: an unrecorded governance change must not stand.
func (s *Service) undoGovernance(ctx context.Context, proj *discov1.Project, g discov1.GovernanceSettings) {
	ctx = context.WithoutCancel(ctx)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Project
		if err := s.Kit.APIReader.Get(ctx, client.ObjectKeyFromObject(proj), &cur); err != nil {
			return err
		}
		cur.Spec.Settings.Governance = g
		return s.Kit.Client.Update(ctx, &cur)
	})
	if err != nil {
		s.Kit.Log.Error(err, "could not undo an unledgered governance change", "project", proj.Name, "request_id", transport.RequestID(ctx))
	}
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
