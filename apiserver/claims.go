package apiserver

import (
	"bytes"

	"github.com/discolab/disco/apiserver/listindex"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"

	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/index"
)

type ClaimScope struct {
	Variables            []string `json:"variables"`
	Domain               string   `json:"domain"`
	ConstraintsSatisfied []string `json:"constraints_satisfied,omitempty"`
}

type Claim struct {
	ID            string     `json:"id" example:"clm_abcdefghijklmnopqrstuvwxyz"`
	Type          string     `json:"type" enum:"law,causal,conservation"`
	Tier          string     `json:"tier" enum:"explore,validate,publish"`
	Summary       string     `json:"summary"`
	Score         float64    `json:"score" minimum:"0" maximum:"1" doc:"Truth Dial score."`
	Scope         ClaimScope `json:"scope"`
	Evidence      Evidence   `json:"evidence" doc:"Per type: r_squared, cross_validation_score (law); causal_confidence, effect_strength or granger_score, intervention_effect_size (causal); relative_variation, trajectories (conservation); negative_controls_passed always."`
	LedgerEntryID string     `json:"ledger_entry_id"`
	RunID         string     `json:"run_id"`
	CampaignID    string     `json:"campaign_id"`
	ProjectID     string     `json:"project_id"`
	CreatedAt     time.Time  `json:"created_at"`
	// Law and conservation claims.
	Expression string   `json:"expression,omitempty"`
	Variables  []string `json:"variables,omitempty"`
	// Causal claims.
	Cause               string   `json:"cause,omitempty"`
	Effect              string   `json:"effect,omitempty"`
	Direction           string   `json:"direction,omitempty"`
	TemporalScope       string   `json:"temporal_scope,omitempty"`
	InterventionMarkers []string `json:"intervention_markers,omitempty"`
	// The last tier move.
	PreviousTier string     `json:"previous_tier,omitempty"`
	PromotedAt   *time.Time `json:"promoted_at,omitempty"`
	PromotedBy   string     `json:"promoted_by,omitempty"`
}

// evidenceOf returns a claim's evidence with negative_controls_passed always present; only
// evidence stored without it (objects not written by the engine) is decoded to add it.
func evidenceOf(c *discov1.Claim) Evidence {
	var raw []byte
	if c.Spec.Evidence != nil {
		raw = bytes.TrimSpace(c.Spec.Evidence.Raw)
	}
	if len(raw) > 0 && raw[0] == '{' && bytes.Contains(raw, []byte(`"negative_controls_passed"`)) {
		return Evidence(raw)
	}
	evidence := map[string]any{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &evidence)
	}
	if _, ok := evidence["negative_controls_passed"]; !ok {
		evidence["negative_controls_passed"] = c.Spec.NegativeControlsPassed
	}
	out, _ := json.Marshal(evidence)
	return Evidence(out)
}

func claimOf(c *discov1.Claim) Claim {
	evidence := evidenceOf(c)
	out := Claim{
		ID:      ids.FromName(c.Name),
		Type:    string(c.Spec.Type),
		Tier:    string(c.Spec.Tier),
		Summary: c.Spec.Summary,
		Score:   c.Spec.Score,
		Scope: ClaimScope{
			Variables:            resource.NonNil(c.Spec.Scope.Variables),
			Domain:               c.Spec.Scope.Domain,
			ConstraintsSatisfied: c.Spec.Scope.ConstraintsSatisfied,
		},
		Evidence:            evidence,
		LedgerEntryID:       c.Spec.LedgerEntryID,
		RunID:               c.Spec.RunID,
		CampaignID:          c.Spec.CampaignID,
		ProjectID:           c.Spec.ProjectID,
		CreatedAt:           resource.UTC(c.CreationTimestamp),
		Expression:          c.Spec.Expression,
		Variables:           c.Spec.Variables,
		Cause:               c.Spec.Cause,
		Effect:              c.Spec.Effect,
		Direction:           c.Spec.Direction,
		TemporalScope:       c.Spec.TemporalScope,
		InterventionMarkers: c.Spec.InterventionMarkers,
		PreviousTier:        string(c.Status.PreviousTier),
		PromotedAt:          resource.UTCPtr(c.Status.PromotedAt),
		PromotedBy:          c.Status.PromotedBy,
	}
	if out.Tier == "" {
		out.Tier = string(discov1.TierExplore)
	}
	return out
}

func (s *Server) registerClaims() {
	transport.Register(s.api, huma.Operation{
		OperationID: "listClaims", Method: http.MethodGet, Path: "/projects/{project_id}/claims",
		Summary: "List a project's claims", Tags: []string{"Claims"}, Errors: []int{http.StatusNotFound},
		Responses: rawJSONResponse(s.api, resource.ListPage[Claim]{}),
	}, auth.ClaimsRead, s.listClaims)
	transport.Register(s.api, huma.Operation{
		OperationID: "getClaim", Method: http.MethodGet, Path: "/projects/{project_id}/claims/{claim_id}",
		Summary: "Get a claim", Tags: []string{"Claims"}, Errors: []int{http.StatusNotFound},
		Responses: rawJSONResponse(s.api, Claim{}),
	}, auth.ClaimsRead, s.getClaim)
	s.registerGovernance()
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

var claimSort = pagination.Spec[*discov1.Claim]{
	Name: "claims",
	Fields: map[string]func(*discov1.Claim) pagination.Key{
		"created_at": func(c *discov1.Claim) pagination.Key { return resource.CreatedKey(c) },
		"score":      func(c *discov1.Claim) pagination.Key { return pagination.Number(c.Spec.Score) },
		"tier":       func(c *discov1.Claim) pagination.Key { return pagination.Number(float64(c.Spec.Tier.Rank())) },
		"type":       func(c *discov1.Claim) pagination.Key { return pagination.String(string(c.Spec.Type)) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(c *discov1.Claim) string { return c.Name },
}

func (s *Server) listClaims(ctx context.Context, in *listClaimsInput) (*rawJSON, error) {
	_, t := auth.Who(ctx)
	if _, err := s.kit.Project(ctx, in.ProjectID); err != nil {
		return nil, err
	}
	filter := resource.FilterKey("project", in.ProjectID, "run_id", in.RunID, "campaign_id", in.CampaignID, "type", in.Type, "tier", in.Tier)
	if s.kit.ClaimIndex != nil && s.kit.ClaimIndex.HasSynced() {
		match := listindex.Match{RunID: in.RunID, CampaignID: in.CampaignID, Type: in.Type, Tier: in.Tier}
		page, err := s.kit.ClaimIndex.Paginate(s.kit.Cursors, t.Namespace, in.ProjectID, match, resource.PageRequest(claimSort, in.PageParams, in.Sort, filter))
		if err != nil {
			return nil, resource.PaginationError(err)
		}
		return claimPageOutput(page, func(c *discov1.Claim) []byte { return s.kit.ClaimIndex.Wire(c, claimWire) }), nil
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
	if err := s.kit.List(ctx, &list, client.InNamespace(t.Namespace), field); err != nil {
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
	page, err := pagination.Paginate(s.kit.Cursors, items, claimSort, resource.PageRequest(claimSort, in.PageParams, in.Sort, filter))
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
func (s *Server) claim(ctx context.Context, projectID, id string) (*discov1.Project, *discov1.Claim, error) {
	proj, err := s.kit.Project(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var c discov1.Claim
	if err := s.kit.GetIn(ctx, "claim", ids.Claim, id, &c); err != nil {
		return nil, nil, err
	}
	if c.Spec.ProjectID != projectID {
		return nil, nil, apierror.NotFound("claim", id)
	}
	return proj, &c, nil
}

func (s *Server) getClaim(ctx context.Context, in *ClaimPath) (*rawJSON, error) {
	// From the claim index when it has the claim: no copy of the cached object and its
	// encoded form made once. Otherwise (no index, or a claim the informer has not
	// delivered yet) from the cache, falling back to the API server.
	if s.kit.ClaimIndex != nil && s.kit.ClaimIndex.HasSynced() && ids.Valid(ids.Claim, in.ClaimID) {
		if _, err := s.kit.Project(ctx, in.ProjectID); err != nil {
			return nil, err
		}
		_, t := auth.Who(ctx)
		if c := s.kit.ClaimIndex.Get(t.Namespace, ids.ToName(in.ClaimID)); c != nil {
			if c.Spec.ProjectID != in.ProjectID {
				return nil, apierror.NotFound("claim", in.ClaimID)
			}
			return jsonOutput(s.kit.ClaimIndex.Wire(c, claimWire)), nil
		}
	}
	_, c, err := s.claim(ctx, in.ProjectID, in.ClaimID)
	if err != nil {
		return nil, err
	}
	return jsonOutput(claimWire(c)), nil
}
