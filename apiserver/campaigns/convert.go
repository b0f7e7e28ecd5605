package campaigns

import (
	"time"

	"k8s.io/utils/ptr"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/resource"
)

type CampaignBudget struct {
	ComputeUnits     int64      `json:"compute_units" doc:"Compute allowed to all runs of the campaign."`
	ComputeUnitsUsed int64      `json:"compute_units_used" doc:"Units of finished runs plus estimates of unfinished ones."`
	MaxRuns          int32      `json:"max_runs"`
	RunsCompleted    int32      `json:"runs_completed"`
	ExpiresAt        *time.Time `json:"expires_at,omitempty"`
}

type CampaignGovernance struct {
	PromotionCeiling        string `json:"promotion_ceiling" enum:"explore,validate,publish" doc:"The campaign's ceiling; the effective ceiling is the lower of this and the project's."`
	RequireNegativeControls bool   `json:"require_negative_controls" doc:"The campaign's rule, else the project's; negative controls are required when either the campaign or the project requires them."`
	AutoPromoteTo           string `json:"auto_promote_to,omitempty" enum:"explore,validate,publish" doc:"Tier claims are given when they pass the promotion checks."`
}

type Campaign struct {
	ID          string             `json:"id" example:"camp_abcdefghijklmnopqrstuvwxyz"`
	ProjectID   string             `json:"project_id"`
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Status      string             `json:"status" enum:"active,exhausted,expired,archived"`
	Budget      CampaignBudget     `json:"budget"`
	Governance  CampaignGovernance `json:"governance"`
	CreatedAt   time.Time          `json:"created_at"`
	CreatedBy   string             `json:"created_by"`
}

type budgetInput struct {
	ComputeUnits int64      `json:"compute_units" required:"true" minimum:"0"`
	MaxRuns      int32      `json:"max_runs" required:"true" minimum:"0" maximum:"1000000"`
	ExpiresAt    *time.Time `json:"expires_at,omitempty"`
}

type campaignGovernanceInput struct {
	PromotionCeiling        string `json:"promotion_ceiling,omitempty" enum:"explore,validate,publish"`
	RequireNegativeControls *bool  `json:"require_negative_controls,omitempty"`
	AutoPromoteTo           string `json:"auto_promote_to,omitempty" enum:"explore,validate,publish"`
}

type campaignCreate struct {
	Name        string                   `json:"name" required:"true" minLength:"1" maxLength:"200"`
	Description string                   `json:"description,omitempty" maxLength:"4000"`
	Budget      budgetInput              `json:"budget" required:"true"`
	Governance  *campaignGovernanceInput `json:"governance,omitempty"`
}

// Status is the phase, or what it will become at now: an archived or expired campaign
// says so before the controller has caught up.
func Status(c *discov1.Campaign, now time.Time) string {
	switch {
	case c.Spec.Archived:
		return string(discov1.CampaignArchived)
	case c.Spec.Budget.ExpiresAt != nil && !now.Before(c.Spec.Budget.ExpiresAt.Time):
		return string(discov1.CampaignExpired)
	case c.Status.Phase != "":
		return string(c.Status.Phase)
	}
	return string(discov1.CampaignActive)
}

// Of shows the campaign at now, its governance with the project's values where the
// campaign sets none.
func Of(p *discov1.Project, c *discov1.Campaign, now time.Time) Campaign {
	pg := projects.GovernanceOf(p.Spec.Settings.Governance)
	g := c.Spec.Governance
	ceiling := string(g.PromotionCeiling)
	if ceiling == "" {
		ceiling = pg.PromotionCeiling
	}
	auto := string(g.AutoPromoteTo)
	return Campaign{
		ID:          c.ID(),
		ProjectID:   c.ProjectID(),
		Name:        c.Spec.DisplayName,
		Description: c.Spec.Description,
		Status:      Status(c, now),
		Budget: CampaignBudget{
			ComputeUnits:     c.Spec.Budget.ComputeUnits,
			ComputeUnitsUsed: c.Status.ComputeUnitsUsed,
			MaxRuns:          c.Spec.Budget.MaxRuns,
			RunsCompleted:    c.Status.RunsCompleted,
			ExpiresAt:        resource.UTCPtr(c.Spec.Budget.ExpiresAt),
		},
		Governance: CampaignGovernance{
			PromotionCeiling:        ceiling,
			RequireNegativeControls: ptr.Deref(g.RequireNegativeControls, pg.RequireNegativeControls),
			AutoPromoteTo:           auto,
		},
		CreatedAt: resource.UTC(c.CreationTimestamp),
		CreatedBy: c.Spec.CreatedBy,
	}
}

type campaignOutput struct {
	Location string `header:"Location"`
	ETag     string `header:"ETag" doc:"Entity tag of this version of the campaign."`
	Body     Campaign
}

// campaignBody is a campaign with its entity tag.
type campaignBody struct {
	ETag string `header:"ETag" doc:"Entity tag of this version of the campaign."`
	Body Campaign
}

// campaignPolicy is the governance a campaign sets itself, as ledgered in policy_changed
// entries; null leaves the rule to the project.
type campaignPolicy struct {
	PromotionCeiling        *string `json:"promotion_ceiling"`
	RequireNegativeControls *bool   `json:"require_negative_controls"`
	AutoPromoteTo           *string `json:"auto_promote_to"`
}

func campaignPolicyOf(g discov1.CampaignGovernance) campaignPolicy {
	tier := func(t discov1.Tier) *string {
		if t == "" {
			return nil
		}
		return ptr.To(string(t))
	}
	return campaignPolicy{
		PromotionCeiling:        tier(g.PromotionCeiling),
		RequireNegativeControls: g.RequireNegativeControls,
		AutoPromoteTo:           tier(g.AutoPromoteTo),
	}
}
