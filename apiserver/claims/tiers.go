package claims

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/promotion"
	"github.com/discolab/disco/internal/webhook"
)

type tierChange struct {
	TargetTier string `json:"target_tier" required:"true" enum:"explore,validate,publish"`
	Rationale  string `json:"rationale,omitempty" maxLength:"4000"`
}

type GovernanceChecks struct {
	TruthDialScore   float64 `json:"truth_dial_score"`
	Threshold        float64 `json:"threshold"`
	ThresholdMet     bool    `json:"threshold_met"`
	NegativeControls string  `json:"negative_controls" enum:"passed,failed,not_required" doc:"passed when the claim's negative controls passed."`
	PolicyCeiling    string  `json:"policy_ceiling" doc:"The effective ceiling: the lower of the project's and the campaign's."`
	WithinCeiling    bool    `json:"within_ceiling"`
}

type PromotionResult struct {
	ID              string           `json:"id"`
	Type            string           `json:"type"`
	Tier            string           `json:"tier"`
	PreviousTier    string           `json:"previous_tier"`
	PromotedAt      time.Time        `json:"promoted_at"`
	PromotedBy      string           `json:"promoted_by"`
	Rationale       string           `json:"rationale"`
	LedgerEntryID   string           `json:"ledger_entry_id"`
	GovernanceCheck GovernanceChecks `json:"governance_checks"`
}

type DemotionResult struct {
	ID            string    `json:"id"`
	Type          string    `json:"type"`
	Tier          string    `json:"tier"`
	PreviousTier  string    `json:"previous_tier"`
	DemotedAt     time.Time `json:"demoted_at"`
	DemotedBy     string    `json:"demoted_by"`
	Rationale     string    `json:"rationale"`
	LedgerEntryID string    `json:"ledger_entry_id"`
}

func (s *handlers) registerTierMoves(g huma.API) {
	transport.Register(g, huma.Operation{
		OperationID: "promoteClaim", Method: http.MethodPost, Path: "/{claim_id}/promote",
		Summary: "Promote a claim", Tags: []string{"Claims"},
		Description: "Moves the claim up to target_tier (any number of tiers). Checked in order: the effective " +
			"promotion ceiling (lower of project and campaign; 403 governance_policy_violation), the Truth Dial " +
			"threshold (403 truth_dial_threshold_not_met) and negative controls when required (403 " +
			"negative_controls_required). Every decision is recorded in the Evidence Ledger. Concurrent changes " +
			"of the same claim: one succeeds, the others get 409 conflict.",
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, auth.ClaimsWrite, s.promoteClaim)
	transport.Register(g, huma.Operation{
		OperationID: "demoteClaim", Method: http.MethodPost, Path: "/{claim_id}/demote",
		Summary: "Demote a claim", Tags: []string{"Claims"},
		Description: "Moves the claim down to target_tier, with a rationale; recorded in the Evidence Ledger.",
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, auth.ClaimsWrite, s.demoteClaim)
}

// governor is the one governed path of tier changes (internal/promotion), shared with
// the ClaimPromotion reconciler.
func (s *handlers) governor() *promotion.Governor {
	return &promotion.Governor{Client: s.Kit.Client, Reader: s.Kit.APIReader, Ledger: s.Ledger,
		Events: webhook.NewPublisher(s.Store, s.Kit.Now), Now: s.Kit.Now}
}

// tierMove reads what a tier change of the claim needs.
func (s *handlers) tierMove(ctx context.Context, path ClaimPath, body tierChange) (promotion.Move, error) {
	p, t := auth.Who(ctx)
	proj, c, err := s.claim(ctx, path.ProjectID, path.ClaimID)
	if err != nil {
		return promotion.Move{}, err
	}
	m := promotion.Move{Claim: c, Project: proj, TenantID: t.ID, Target: discov1.Tier(body.TargetTier), Actor: p.Actor, Rationale: body.Rationale}
	var camp discov1.Campaign
	if err := s.Kit.GetIn(ctx, "campaign", ids.Campaign, c.Spec.CampaignID, &camp); err == nil {
		m.Campaign = &camp
	}
	return m, nil
}

// tierMoveError words a failed tier change for the client.
func tierMoveError(err error, claimID string) error {
	var wrong *promotion.WrongDirection
	var refused *promotion.Refused
	switch {
	case errors.As(err, &wrong):
		return apierror.Conflict("%s", wrong.Error()).
			With("claim_id", claimID).With("tier", string(wrong.From)).With("requested_tier", string(wrong.To))
	case errors.As(err, &refused):
		ev, to := refused.Evaluation, string(refused.To)
		e := apierror.New(http.StatusForbidden, promotion.RefusalCode(ev.Constraint), "%s", refused.Error()).
			With("claim_id", claimID).With("requested_tier", to)
		switch ev.Constraint {
		case governance.ConstraintCeiling:
			e = e.With("policy_ceiling", string(ev.PolicyCeiling)).With("truth_dial_score", ev.TruthDialScore)
		case governance.ConstraintThreshold:
			e = e.With("truth_dial_score", ev.TruthDialScore).With("truth_dial_threshold", ev.Threshold)
		}
		return e.With("constraint", ev.Constraint)
	case errors.Is(err, promotion.ErrConflict):
		return apierror.Conflict("the claim was changed concurrently; read it again and retry").
			With("claim_id", claimID).With("resource", "claim")
	}
	return resource.WriteErrorOf(err, "claim", claimID)
}

func (s *handlers) promoteClaim(ctx context.Context, in *struct {
	ClaimPath
	Body tierChange
}) (*struct{ Body PromotionResult }, error) {
	m, err := s.tierMove(ctx, in.ClaimPath, in.Body)
	if err != nil {
		return nil, err
	}
	out, err := s.governor().Promote(ctx, m)
	if err != nil {
		return nil, tierMoveError(err, in.ClaimID)
	}
	s.Kit.AwaitCache(ctx, out.Claim)
	ev := out.Evaluation
	return &struct{ Body PromotionResult }{Body: PromotionResult{
		ID: in.ClaimID, Type: string(m.Claim.Spec.Type), Tier: string(out.To), PreviousTier: string(out.From),
		PromotedAt: out.At, PromotedBy: m.Actor, Rationale: in.Body.Rationale, LedgerEntryID: out.LedgerEntryID,
		GovernanceCheck: GovernanceChecks{
			TruthDialScore: ev.TruthDialScore, Threshold: ev.Threshold, ThresholdMet: ev.ThresholdMet,
			NegativeControls: ev.NegativeControls, PolicyCeiling: string(ev.PolicyCeiling), WithinCeiling: ev.WithinCeiling,
		},
	}}, nil
}

func (s *handlers) demoteClaim(ctx context.Context, in *struct {
	ClaimPath
	Body tierChange
}) (*struct{ Body DemotionResult }, error) {
	m, err := s.tierMove(ctx, in.ClaimPath, in.Body)
	if err != nil {
		return nil, err
	}
	out, err := s.governor().Demote(ctx, m)
	if err != nil {
		return nil, tierMoveError(err, in.ClaimID)
	}
	s.Kit.AwaitCache(ctx, out.Claim)
	return &struct{ Body DemotionResult }{Body: DemotionResult{
		ID: in.ClaimID, Type: string(m.Claim.Spec.Type), Tier: string(out.To), PreviousTier: string(out.From),
		DemotedAt: out.At, DemotedBy: m.Actor, Rationale: in.Body.Rationale, LedgerEntryID: out.LedgerEntryID,
	}}, nil
}
