package campaigns

import (
	"context"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
)

// Service changes campaigns without HTTP: a merge patch applied to the version the API
// server has, If-Match, the governance scope and the ledger record of governance changes,
// as projects.Service does for projects.
type Service struct {
	Kit    *resource.Kit
	Policy projects.Policy
}

// patchFields are the members of a campaign PATCH body; others are ignored.
var patchFields = []string{"name", "description", "status", "budget", "governance"}

// Update applies patch, an RFC 7396 merge patch over the wire form of the campaign's
// mutable fields (name, description, status, budget, governance), to the campaign cached
// names, for the caller of ctx, retried against a fresh read unless If-Match (cond) named
// a version (resource.UpdateFresh). A change of governance needs governance:write and is
// ledgered in the project's ledger as policy_changed; one that cannot be ledgered is undone
// (DESIGN.md: every governance event is ledgered).
//
// Budgets may be lowered below what the campaign has used, and expires_at set in the past:
// the campaign is then exhausted or expired and accepts no more runs, which is how a user
// stops a campaign's spending. Archiving an archived campaign changes nothing.
func (s *Service) Update(ctx context.Context, cached *discov1.Campaign, cond *resource.IfMatch, patch map[string]any) (*discov1.Campaign, error) {
	p, _ := auth.Who(ctx)
	id := cached.ID()
	var before, after campaignPolicy
	var prev discov1.CampaignGovernance
	upd, err := resource.UpdateFresh(ctx, s.Kit, cached, cond, "campaign", id,
		func(cur *discov1.Campaign) bool { return cur.ProjectID() == cached.ProjectID() },
		func(cur *discov1.Campaign) (*discov1.Campaign, error) {
			next, err := patchedCampaign(cur, patch)
			if err != nil {
				return nil, err
			}
			before, after = campaignPolicyOf(cur.Spec.Governance), campaignPolicyOf(next.Spec.Governance)
			if !reflect.DeepEqual(before, after) && !p.Has(auth.GovernanceWrite) {
				return nil, projects.GovernanceScopeError("body.governance")
			}
			prev = cur.Spec.Governance
			return next, nil
		})
	if err != nil {
		return nil, err
	}
	if err := projects.RecordUpdate(ctx, s.Policy, upd, projects.PolicyChange{ProjectID: cached.ProjectID(),
		Resource: "campaign", ID: id, Field: "body.governance", Before: before, After: after},
		func(cur *discov1.Campaign) { cur.Spec.Governance = prev }); err != nil {
		return nil, err
	}
	return upd, nil
}

// campaignPatch documents the PATCH body; the handler applies the raw body as a merge
// patch. null resets description, ends the expiry, unarchives (status), and leaves a
// governance rule to the project; name, budget and the budget's limits cannot be null.
type campaignPatch struct {
	Name        *string                  `json:"name,omitempty" minLength:"1" maxLength:"200"`
	Description *string                  `json:"description,omitempty" maxLength:"4000" nullable:"true"`
	Status      *string                  `json:"status,omitempty" enum:"active,archived" nullable:"true" doc:"archived stops the campaign from accepting runs; active takes it back. exhausted and expired follow from the budget."`
	Budget      *budgetPatch             `json:"budget,omitempty"`
	Governance  *campaignGovernancePatch `json:"governance,omitempty"`
}

type budgetPatch struct {
	ComputeUnits *int64     `json:"compute_units,omitempty" minimum:"0" doc:"May be below compute_units_used: the campaign is then exhausted."`
	MaxRuns      *int32     `json:"max_runs,omitempty" minimum:"0" maximum:"1000000"`
	ExpiresAt    *time.Time `json:"expires_at,omitempty" nullable:"true" doc:"null: the campaign does not expire."`
}

type campaignGovernancePatch struct {
	PromotionCeiling        *string `json:"promotion_ceiling,omitempty" enum:"explore,validate,publish" nullable:"true" doc:"null: the project's ceiling."`
	RequireNegativeControls *bool   `json:"require_negative_controls,omitempty" nullable:"true" doc:"null: the project's rule."`
	AutoPromoteTo           *string `json:"auto_promote_to,omitempty" enum:"explore,validate,publish" nullable:"true" doc:"null: no automatic promotion."`
}

// patchedCampaign returns cur with the merge patch applied over the wire form of its
// mutable fields, each validated: the handler's schema check does not see the merged
// result, and Service callers need not come through HTTP.
func patchedCampaign(cur *discov1.Campaign, patch map[string]any) (*discov1.Campaign, error) {
	wire := struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Status      string         `json:"status"`
		Budget      budgetPatch    `json:"budget"`
		Governance  campaignPolicy `json:"governance"`
	}{
		Name: cur.Spec.DisplayName, Description: cur.Spec.Description, Status: string(discov1.CampaignActive),
		Budget: budgetPatch{ComputeUnits: ptr.To(cur.Spec.Budget.ComputeUnits), MaxRuns: ptr.To(cur.Spec.Budget.MaxRuns),
			ExpiresAt: resource.UTCPtr(cur.Spec.Budget.ExpiresAt)},
		Governance: campaignPolicyOf(cur.Spec.Governance),
	}
	if cur.Spec.Archived {
		wire.Status = string(discov1.CampaignArchived)
	}
	var next campaignPatch
	if err := resource.ApplyMergePatch(wire, patch, &next, "campaign"); err != nil {
		return nil, err
	}
	upd := cur.DeepCopy()
	switch {
	case next.Name == nil:
		return nil, apierror.Invalid("body.name", "cannot be null: a campaign needs a name")
	case next.Budget == nil:
		return nil, apierror.Invalid("body.budget", "cannot be null: a campaign needs a budget; set compute_units and max_runs")
	case next.Budget.ComputeUnits == nil || *next.Budget.ComputeUnits < 0:
		return nil, apierror.Invalid("body.budget.compute_units", "must be a number of units, 0 or more (0 stops the campaign)")
	case next.Budget.MaxRuns == nil || *next.Budget.MaxRuns < 0 || *next.Budget.MaxRuns > 1000000:
		return nil, apierror.Invalid("body.budget.max_runs", "must be a number of runs from 0 to 1000000")
	}
	upd.Spec.DisplayName = *next.Name
	upd.Spec.Description = ptr.Deref(next.Description, "")
	if err := transport.CheckText(transport.NameText("body.name", upd.Spec.DisplayName), transport.ProseText("body.description", upd.Spec.Description)); err != nil {
		return nil, err
	}
	switch status := ptr.Deref(next.Status, string(discov1.CampaignActive)); status {
	case string(discov1.CampaignActive), string(discov1.CampaignArchived):
		upd.Spec.Archived = status == string(discov1.CampaignArchived)
	default:
		return nil, apierror.Invalid("body.status", "must be active or archived; exhausted and expired follow from the budget")
	}
	upd.Spec.Budget.ComputeUnits = *next.Budget.ComputeUnits
	upd.Spec.Budget.MaxRuns = *next.Budget.MaxRuns
	upd.Spec.Budget.ExpiresAt = nil
	if e := next.Budget.ExpiresAt; e != nil {
		upd.Spec.Budget.ExpiresAt = &metav1.Time{Time: e.UTC()}
	}
	upd.Spec.Governance = discov1.CampaignGovernance{}
	if g := next.Governance; g != nil {
		ceiling, err := tierOf("body.governance.promotion_ceiling", g.PromotionCeiling)
		if err != nil {
			return nil, err
		}
		auto, err := tierOf("body.governance.auto_promote_to", g.AutoPromoteTo)
		if err != nil {
			return nil, err
		}
		if auto != "" && ceiling != "" && auto.Rank() > ceiling.Rank() {
			return nil, apierror.Invalid("body.governance.auto_promote_to", "must not be above the campaign's promotion_ceiling")
		}
		upd.Spec.Governance = discov1.CampaignGovernance{PromotionCeiling: ceiling, RequireNegativeControls: g.RequireNegativeControls, AutoPromoteTo: auto}
	}
	return upd, nil
}

// tierOf is a tier named in a patch; nil is no tier.
func tierOf(field string, v *string) (discov1.Tier, error) {
	switch t := discov1.Tier(ptr.Deref(v, "")); t {
	case "", discov1.TierExplore, discov1.TierValidate, discov1.TierPublish:
		return t, nil
	}
	return "", apierror.Invalid(field, "must be explore, validate or publish")
}
