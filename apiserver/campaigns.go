package apiserver

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
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

// campaignStatus is the phase, or what it will become: an archived or expired campaign
// says so before the controller has caught up.
func (s *Server) campaignStatus(c *discov1.Campaign) string {
	switch {
	case c.Spec.Archived:
		return string(discov1.CampaignArchived)
	case c.Spec.Budget.ExpiresAt != nil && !s.now().Before(c.Spec.Budget.ExpiresAt.Time):
		return string(discov1.CampaignExpired)
	case c.Status.Phase != "":
		return string(c.Status.Phase)
	}
	return string(discov1.CampaignActive)
}

// campaignOf shows the campaign's governance with the project's values where the
// campaign sets none.
func (s *Server) campaignOf(p *discov1.Project, c *discov1.Campaign) Campaign {
	pg := governanceOf(p.Spec.Settings.Governance)
	g := c.Spec.Governance
	ceiling := string(g.PromotionCeiling)
	if ceiling == "" {
		ceiling = pg.PromotionCeiling
	}
	auto := string(g.AutoPromoteTo)
	return Campaign{
		ID:          ids.FromName(c.Name),
		ProjectID:   c.Spec.ProjectID,
		Name:        c.Spec.DisplayName,
		Description: c.Spec.Description,
		Status:      s.campaignStatus(c),
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

func (s *Server) registerCampaigns() {
	transport.Register(s.api, huma.Operation{
		OperationID: "createCampaign", Method: http.MethodPost, Path: "/projects/{project_id}/campaigns",
		Summary: "Create a campaign", Tags: []string{"Campaigns"}, DefaultStatus: http.StatusCreated,
		Description: "The campaign's governance combines with the project's as the stricter of the two: the lower " +
			"ceiling, and negative controls required when either requires them. Setting any governance field also " +
			"needs the scope `" + auth.GovernanceWrite + "` and is recorded in the project's ledger as a policy_changed " +
			"entry. An archived project accepts no campaigns (409 conflict, details.status archived).",
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, auth.ProjectsWrite, s.createCampaign)
	transport.Register(s.api, huma.Operation{
		OperationID: "listCampaigns", Method: http.MethodGet, Path: "/projects/{project_id}/campaigns",
		Summary: "List a project's campaigns", Tags: []string{"Campaigns"}, Errors: []int{http.StatusNotFound},
	}, auth.ProjectsRead, s.listCampaigns)
	transport.Register(s.api, huma.Operation{
		OperationID: "getCampaign", Method: http.MethodGet, Path: "/projects/{project_id}/campaigns/{campaign_id}",
		Summary: "Get a campaign", Tags: []string{"Campaigns"}, Errors: []int{http.StatusNotFound},
	}, auth.ProjectsRead, s.getCampaign)
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

func (s *Server) createCampaign(ctx context.Context, in *struct {
	ProjectPath
	Body campaignCreate
}) (*campaignOutput, error) {
	p, t := auth.Who(ctx)
	proj, err := s.kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	if err := archivedProject(proj, "campaigns"); err != nil {
		return nil, err
	}
	if err := transport.CheckText(transport.NameText("body.name", in.Body.Name), transport.ProseText("body.description", in.Body.Description)); err != nil {
		return nil, err
	}
	id := ids.New(ids.Campaign)
	c := &discov1.Campaign{
		ObjectMeta: metav1.ObjectMeta{
			Name: ids.ToName(id), Namespace: t.Namespace,
			Labels: resource.Labels(t.ID, discov1.LabelProject, in.ProjectID, discov1.LabelCampaign, id),
		},
		Spec: discov1.CampaignSpec{
			ProjectID:   in.ProjectID,
			DisplayName: in.Body.Name,
			Description: in.Body.Description,
			Budget: discov1.Budget{
				ComputeUnits: in.Body.Budget.ComputeUnits,
				MaxRuns:      in.Body.Budget.MaxRuns,
			},
			CreatedBy: p.Actor,
		},
	}
	if e := in.Body.Budget.ExpiresAt; e != nil {
		c.Spec.Budget.ExpiresAt = &metav1.Time{Time: e.UTC()}
	}
	if g := in.Body.Governance; g != nil {
		c.Spec.Governance = discov1.CampaignGovernance{
			PromotionCeiling:        discov1.Tier(g.PromotionCeiling),
			RequireNegativeControls: g.RequireNegativeControls,
			AutoPromoteTo:           discov1.Tier(g.AutoPromoteTo),
		}
	}
	// A campaign without governance of its own follows its project's; any rule it sets
	// is a governance change.
	if err := s.createGoverned(ctx, c, policyChange{
		projectID: in.ProjectID, resource: "campaign", id: id, field: "body.governance",
		before: campaignPolicy{}, after: campaignPolicyOf(c.Spec.Governance),
	}); err != nil {
		return nil, err
	}
	return &campaignOutput{
		Location: s.opts.BaseURL + "/projects/" + in.ProjectID + "/campaigns/" + id,
		ETag:     etagOf(c),
		Body:     s.campaignOf(proj, c),
	}, nil
}

type listCampaignsInput struct {
	ProjectPath
	resource.PageParams
	Sort   string `query:"sort" enum:"created_at,name" doc:"Field to sort by; default created_at."`
	Status string `query:"status" enum:"active,exhausted,expired,archived" doc:"Only campaigns with this status."`
}

var campaignSort = pagination.Spec[*discov1.Campaign]{
	Name: "campaigns",
	Fields: map[string]func(*discov1.Campaign) pagination.Key{
		"created_at": func(c *discov1.Campaign) pagination.Key { return resource.CreatedKey(c) },
		"name": func(c *discov1.Campaign) pagination.Key {
			return pagination.String(strings.ToLower(c.Spec.DisplayName))
		},
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(c *discov1.Campaign) string { return c.Name },
}

func (s *Server) listCampaigns(ctx context.Context, in *listCampaignsInput) (*resource.ListOutput[Campaign], error) {
	_, t := auth.Who(ctx)
	proj, err := s.kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	var list discov1.CampaignList
	if err := s.kit.List(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Project: in.ProjectID}); err != nil {
		return nil, apierror.Internal(err)
	}
	items := make([]*discov1.Campaign, 0, len(list.Items))
	for i := range list.Items {
		c := &list.Items[i]
		if c.DeletionTimestamp != nil || (in.Status != "" && s.campaignStatus(c) != in.Status) {
			continue
		}
		items = append(items, c)
	}
	return resource.Paginate(s.kit, items, campaignSort, in.PageParams, in.Sort, resource.FilterKey("project", in.ProjectID, "status", in.Status),
		func(c *discov1.Campaign) Campaign { return s.campaignOf(proj, c) })
}

type CampaignPath struct {
	ProjectPath
	CampaignID string `path:"campaign_id" maxLength:"64" doc:"Campaign id (camp_ prefix)."`
}

func (s *Server) getCampaign(ctx context.Context, in *CampaignPath) (*campaignBody, error) {
	proj, c, err := s.kit.Campaign(ctx, in.ProjectID, in.CampaignID)
	if err != nil {
		return nil, err
	}
	return &campaignBody{ETag: etagOf(c), Body: s.campaignOf(proj, c)}, nil
}
