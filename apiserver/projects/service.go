package projects

import (
	"context"
	"time"

	"k8s.io/utils/ptr"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
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
	id := cached.ID()
	var (
		before, after  Governance
		prevGovernance discov1.GovernanceSettings
	)
	upd, err := resource.UpdateFresh(ctx, s.Kit, cached, cond, "project", id,
		func(cur *discov1.Project) bool { return cur.TenantID() == t.ID },
		func(cur *discov1.Project) (*discov1.Project, error) {
			next, err := s.patchedProject(cur, patch)
			if err != nil {
				return nil, err
			}
			before, after = GovernanceOf(cur.Spec.Settings.Governance), GovernanceOf(next.Spec.Settings.Governance)
			if before != after && !p.Has(auth.GovernanceWrite) {
				return nil, GovernanceScopeError("body.settings.governance")
			}
			prevGovernance = cur.Spec.Settings.Governance
			return next, nil
		})
	if err != nil {
		return nil, err
	}
	if err := RecordUpdate(ctx, s.Policy, upd, PolicyChange{ProjectID: id, Resource: "project", ID: id,
		Before: before, After: after}, func(cur *discov1.Project) { cur.Spec.Settings.Governance = prevGovernance }); err != nil {
		return nil, err
	}
	return upd, nil
}

// patchedProject returns cur with the merge patch applied over the wire form of its
// mutable fields: null removes a member, which maps to the field's default.
func (s *Service) patchedProject(cur *discov1.Project, patch map[string]any) (*discov1.Project, error) {
	wire := Of(cur)
	var next projectPatch
	if err := resource.ApplyMergePatch(struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Status      string          `json:"status"`
		Settings    ProjectSettings `json:"settings"`
	}{wire.Name, wire.Description, wire.Status, wire.Settings}, patch, &next, "project"); err != nil {
		return nil, err
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
