package campaigns

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/apiserver/projects"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
)

// Deps is what the campaigns room needs.
type Deps struct {
	Kit *resource.Kit
	// Ledger records governance changes; nil records nothing.
	Ledger *ledger.Ledger
}

type handlers struct {
	Deps
	policy  projects.Policy
	service *Service
}

// Register adds the campaign operations under /projects/{project_id}/campaigns.
func Register(api huma.API, d Deps) {
	policy := projects.Policy{Kit: d.Kit, Ledger: d.Ledger}
	s := &handlers{Deps: d, policy: policy, service: &Service{Kit: d.Kit, Policy: policy}}
	g := huma.NewGroup(api, "/projects/{project_id}/campaigns")
	transport.Register(g, huma.Operation{
		OperationID: "createCampaign", Method: http.MethodPost, Path: "",
		Summary: "Create a campaign", Tags: []string{"Campaigns"}, DefaultStatus: http.StatusCreated,
		Description: "The campaign's governance combines with the project's as the stricter of the two: the lower " +
			"ceiling, and negative controls required when either requires them. Setting any governance field also " +
			"needs the scope `" + auth.GovernanceWrite + "` and is recorded in the project's ledger as a policy_changed " +
			"entry. An archived project accepts no campaigns (409 conflict, details.status archived).",
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, auth.ProjectsWrite, s.createCampaign)
	transport.Register(g, huma.Operation{
		OperationID: "listCampaigns", Method: http.MethodGet, Path: "",
		Summary: "List a project's campaigns", Tags: []string{"Campaigns"}, Errors: []int{http.StatusNotFound},
	}, auth.ProjectsRead, s.listCampaigns)
	transport.Register(g, huma.Operation{
		OperationID: "getCampaign", Method: http.MethodGet, Path: "/{campaign_id}",
		Summary: "Get a campaign", Tags: []string{"Campaigns"}, Errors: []int{http.StatusNotFound},
	}, auth.ProjectsRead, s.getCampaign)
	// Beyond the contract (README, "API notes"): a user archives a campaign, changes its
	// budget or tightens its governance, as kubectl can edit the Campaign.
	transport.Register(g, huma.Operation{
		OperationID: "updateCampaign", Method: http.MethodPatch, Path: "/{campaign_id}",
		Summary: "Update a campaign", Tags: []string{"Campaigns"},
		Description: "The body is a JSON merge patch (RFC 7396) over name, description, status, budget and governance; " +
			"null resets description, removes budget.expires_at, and leaves a governance rule to the project. Other fields " +
			"are ignored. status archived stops the campaign from accepting runs and active takes it back; archiving twice " +
			"changes nothing. The budget may be lowered below what the campaign has used, or expires_at set in the past: " +
			"the campaign is then exhausted or expired. The patch applies to the campaign as it is when the request " +
			"arrives; send its ETag in If-Match to change only the version you read (412 precondition_failed otherwise, " +
			"RFC 9110, section 13.1.1). Changing governance also needs the scope `" + auth.GovernanceWrite + "` and is " +
			"recorded in the project's ledger as a policy_changed entry with the rules before and after.",
		Errors: []int{http.StatusNotFound, http.StatusConflict, http.StatusPreconditionFailed, http.StatusUnsupportedMediaType},
	}, auth.ProjectsWrite, s.updateCampaign)
}

func (s *handlers) createCampaign(ctx context.Context, in *struct {
	resource.ProjectPath
	Body campaignCreate
}) (*campaignOutput, error) {
	p, t := auth.Who(ctx)
	proj, err := s.Kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	if err := projects.Archived(proj, "campaigns"); err != nil {
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
	if err := s.policy.CreateGoverned(ctx, c, projects.PolicyChange{
		ProjectID: in.ProjectID, Resource: "campaign", ID: id, Field: "body.governance",
		Before: campaignPolicy{}, After: campaignPolicyOf(c.Spec.Governance),
	}); err != nil {
		return nil, err
	}
	return &campaignOutput{
		Location: s.Kit.BaseURL + "/projects/" + in.ProjectID + "/campaigns/" + id,
		ETag:     resource.ETag(c),
		Body:     Of(proj, c, s.Kit.Now()),
	}, nil
}

type listCampaignsInput struct {
	resource.ProjectPath
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

func (s *handlers) listCampaigns(ctx context.Context, in *listCampaignsInput) (*resource.ListOutput[Campaign], error) {
	_, t := auth.Who(ctx)
	proj, err := s.Kit.Project(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	var list discov1.CampaignList
	if err := s.Kit.List(ctx, &list, client.InNamespace(t.Namespace), client.MatchingFields{index.Project: in.ProjectID}); err != nil {
		return nil, apierror.Internal(err)
	}
	items := make([]*discov1.Campaign, 0, len(list.Items))
	for i := range list.Items {
		c := &list.Items[i]
		if c.DeletionTimestamp != nil || (in.Status != "" && Status(c, s.Kit.Now()) != in.Status) {
			continue
		}
		items = append(items, c)
	}
	return resource.Paginate(s.Kit, items, campaignSort, in.PageParams, in.Sort, resource.FilterKey("project", in.ProjectID, "status", in.Status),
		func(c *discov1.Campaign) Campaign { return Of(proj, c, s.Kit.Now()) })
}

func (s *handlers) getCampaign(ctx context.Context, in *resource.CampaignPath) (*campaignBody, error) {
	proj, c, err := s.Kit.Campaign(ctx, in.ProjectID, in.CampaignID)
	if err != nil {
		return nil, err
	}
	return &campaignBody{ETag: resource.ETag(c), Body: Of(proj, c, s.Kit.Now())}, nil
}

func (s *handlers) updateCampaign(ctx context.Context, in *struct {
	resource.CampaignPath
	IfMatch string `header:"If-Match" maxLength:"1024" doc:"Update only if the campaign still has one of these entity tags (its ETag); otherwise 412."`
	Body    campaignPatch
	RawBody []byte
}) (*campaignBody, error) {
	proj, cached, err := s.Kit.Campaign(ctx, in.ProjectID, in.CampaignID)
	if err != nil {
		return nil, err
	}
	cond, patch, err := resource.ReadPatch(in.IfMatch, in.RawBody, patchFields...)
	if err != nil {
		return nil, err
	}
	upd, err := s.service.Update(ctx, cached, cond, patch)
	if err != nil {
		return nil, err
	}
	return &campaignBody{ETag: resource.ETag(upd), Body: Of(proj, upd, s.Kit.Now())}, nil
}
