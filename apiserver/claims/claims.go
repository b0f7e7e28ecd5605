package claims

import (
	"github.com/discolab/disco/apiserver/listindex"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"

	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// Deps is what the claims room needs.
type Deps struct {
	Kit *resource.Kit
	// Store queues the webhook events of tier changes.
	Store *store.Store
	// Ledger records tier changes; nil records nothing.
	Ledger *ledger.Ledger
}

type handlers struct{ Deps }

// Register adds the claim operations, and promotion and demotion, under
// /projects/{project_id}/claims.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/projects/{project_id}/claims")
	transport.Register(g, huma.Operation{
		OperationID: "listClaims", Method: http.MethodGet, Path: "",
		Summary: "List a project's claims", Tags: []string{"Claims"}, Errors: []int{http.StatusNotFound},
		Responses: rawJSONResponse(api, resource.ListPage[Claim]{}),
	}, auth.ClaimsRead, s.listClaims)
	transport.Register(g, huma.Operation{
		OperationID: "getClaim", Method: http.MethodGet, Path: "/{claim_id}",
		Summary: "Get a claim", Tags: []string{"Claims"}, Errors: []int{http.StatusNotFound},
		Responses: rawJSONResponse(api, Claim{}),
	}, auth.ClaimsRead, s.getClaim)
	s.registerTierMoves(g)
}

type listClaimsInput struct {
	resource.ProjectPath
	resource.PageParams
	Sort       string `query:"sort" enum:"created_at,score,tier,type" doc:"Field to sort by; default created_at."`
	RunID      string `query:"run_id" maxLength:"64" doc:"Only claims of this run."`
	CampaignID string `query:"campaign_id" maxLength:"64" doc:"Only claims of this campaign."`
	Type       string `query:"type" enum:"law,causal,conservation" doc:"Only claims of this type."`
	Tier       string `query:"tier" enum:"explore,validate,publish" doc:"Only claims in this tier."`
}

func (s *handlers) listClaims(ctx context.Context, in *listClaimsInput) (*rawJSON, error) {
	_, t := auth.Who(ctx)
	if _, err := s.Kit.Project(ctx, in.ProjectID); err != nil {
		return nil, err
	}
	filter := resource.FilterKey("project", in.ProjectID, "run_id", in.RunID, "campaign_id", in.CampaignID, "type", in.Type, "tier", in.Tier)
	if s.Kit.ClaimIndex != nil && s.Kit.ClaimIndex.HasSynced() {
		match := listindex.Match{RunID: in.RunID, CampaignID: in.CampaignID, Type: in.Type, Tier: in.Tier}
		page, err := s.Kit.ClaimIndex.Paginate(s.Kit.Cursors, t.Namespace, in.ProjectID, match, resource.PageRequest(Sort, in.PageParams, in.Sort, filter))
		if err != nil {
			return nil, resource.PaginationError(err)
		}
		return claimPageOutput(page, func(c *discov1.Claim) []byte { return s.Kit.ClaimIndex.Wire(c, claimWire) }), nil
	}
	// Without the index: the most selective field index answers; the other filters are
	// checked on its result.
	field := client.MatchingFields{index.Project: in.ProjectID}
	if in.RunID != "" {
		field = client.MatchingFields{index.Run: in.RunID}
	} else if in.CampaignID != "" {
		field = client.MatchingFields{index.Campaign: in.CampaignID}
	}
	var list discov1.ClaimList
	if err := s.Kit.List(ctx, &list, client.InNamespace(t.Namespace), field); err != nil {
		return nil, apierror.Internal(err)
	}
	items := make([]*discov1.Claim, 0, len(list.Items))
	for i := range list.Items {
		c := &list.Items[i]
		if c.Spec.ProjectID != in.ProjectID || (in.RunID != "" && c.Spec.RunID != in.RunID) ||
			(in.CampaignID != "" && c.Spec.CampaignID != in.CampaignID) ||
			(in.Type != "" && string(c.Spec.Type) != in.Type) || (in.Tier != "" && string(c.Spec.Tier) != in.Tier) {
			continue
		}
		items = append(items, c)
	}
	page, err := pagination.Paginate(s.Kit.Cursors, items, Sort, resource.PageRequest(Sort, in.PageParams, in.Sort, filter))
	if err != nil {
		return nil, resource.PaginationError(err)
	}
	return claimPageOutput(page, claimWire), nil
}

type ClaimPath struct {
	resource.ProjectPath
	ClaimID string `path:"claim_id" maxLength:"64" doc:"Claim id (clm_ prefix)."`
}

// claim loads a claim of a reachable project.
func (s *handlers) claim(ctx context.Context, projectID, id string) (*discov1.Project, *discov1.Claim, error) {
	proj, err := s.Kit.Project(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var c discov1.Claim
	if err := s.Kit.GetIn(ctx, "claim", ids.Claim, id, &c); err != nil {
		return nil, nil, err
	}
	if c.Spec.ProjectID != projectID {
		return nil, nil, apierror.NotFound("claim", id)
	}
	return proj, &c, nil
}

func (s *handlers) getClaim(ctx context.Context, in *ClaimPath) (*rawJSON, error) {
	// From the claim index when it has the claim: no copy of the cached object and its
	// encoded form made once. Otherwise (no index, or a claim the informer has not
	// delivered yet) from the cache, falling back to the API server.
	if s.Kit.ClaimIndex != nil && s.Kit.ClaimIndex.HasSynced() && ids.Valid(ids.Claim, in.ClaimID) {
		if _, err := s.Kit.Project(ctx, in.ProjectID); err != nil {
			return nil, err
		}
		_, t := auth.Who(ctx)
		if c := s.Kit.ClaimIndex.Get(t.Namespace, ids.ToName(in.ClaimID)); c != nil {
			if c.Spec.ProjectID != in.ProjectID {
				return nil, apierror.NotFound("claim", in.ClaimID)
			}
			return jsonOutput(s.Kit.ClaimIndex.Wire(c, claimWire)), nil
		}
	}
	_, c, err := s.claim(ctx, in.ProjectID, in.ClaimID)
	if err != nil {
		return nil, err
	}
	return jsonOutput(claimWire(c)), nil
}
