package apiserver

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
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

func (s *Server) registerGovernance() {
	register(s, huma.Operation{
		OperationID: "promoteClaim", Method: http.MethodPost, Path: "/projects/{project_id}/claims/{claim_id}/promote",
		Summary: "Promote a claim", Tags: []string{"Claims"},
		Description: "Moves the claim up to target_tier (any number of tiers). Checked in order: the effective " +
			"promotion ceiling (lower of project and campaign; 403 governance_policy_violation), the Truth Dial " +
			"threshold (403 truth_dial_threshold_not_met) and negative controls when required (403 " +
			"negative_controls_required). Every decision is recorded in the Evidence Ledger. Concurrent changes " +
			"of the same claim: one succeeds, the others get 409 conflict.",
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, auth.ClaimsWrite, s.promoteClaim)
	register(s, huma.Operation{
		OperationID: "demoteClaim", Method: http.MethodPost, Path: "/projects/{project_id}/claims/{claim_id}/demote",
		Summary: "Demote a claim", Tags: []string{"Claims"},
		Description: "Moves the claim down to target_tier, with a rationale; recorded in the Evidence Ledger.",
		Errors:      []int{http.StatusNotFound, http.StatusConflict},
	}, auth.ClaimsWrite, s.demoteClaim)
}

// policyFor is the governance that applies to one claim: internal/governance's, the same
// rules the controllers apply to auto-promotion.
func (s *Server) policyFor(ctx context.Context, proj *discov1.Project, c *discov1.Claim) governance.Policy {
	var camp discov1.Campaign
	if err := s.getIn(ctx, "campaign", ids.Campaign, c.Spec.CampaignID, &camp); err != nil {
		return governance.PolicyFor(proj, nil)
	}
	return governance.PolicyFor(proj, &camp)
}

func (s *Server) promoteClaim(ctx context.Context, in *struct {
	ClaimPath
	Body tierChange
}) (*struct{ Body PromotionResult }, error) {
	p, t := who(ctx)
	proj, c, err := s.claim(ctx, in.ProjectID, in.ClaimID)
	if err != nil {
		return nil, err
	}
	from, to := c.Spec.Tier, discov1.Tier(in.Body.TargetTier)
	if from == "" {
		from = discov1.TierExplore
	}
	if to.Rank() <= from.Rank() {
		return nil, apierror.Conflict("the claim is in tier %s; promotion moves up (use demote to move down)", from).
			With("claim_id", in.ClaimID).With("tier", string(from)).With("requested_tier", string(to))
	}
	pol := s.policyFor(ctx, proj, c)
	ev := governance.Evaluate(pol, c.Spec.Score, c.Spec.NegativeControlsPassed, to)
	checks := GovernanceChecks{
		TruthDialScore:   ev.TruthDialScore,
		Threshold:        ev.Threshold,
		ThresholdMet:     ev.ThresholdMet,
		NegativeControls: ev.NegativeControls,
		PolicyCeiling:    string(ev.PolicyCeiling),
		WithinCeiling:    ev.WithinCeiling,
	}

	var refusal *apiError
	switch ev.Constraint {
	case governance.ConstraintCeiling:
		refusal = apierror.New(http.StatusForbidden, apierror.CodeGovernanceViolation,
			"promotion to %s exceeds the promotion ceiling %s", to, ev.PolicyCeiling).
			With("claim_id", in.ClaimID).With("requested_tier", string(to)).With("policy_ceiling", string(ev.PolicyCeiling)).
			With("truth_dial_score", c.Spec.Score).With("constraint", ev.Constraint)
	case governance.ConstraintThreshold:
		refusal = apierror.New(http.StatusForbidden, apierror.CodeThresholdNotMet,
			"the claim's Truth Dial score %.3g is below the threshold %.3g", c.Spec.Score, ev.Threshold).
			With("claim_id", in.ClaimID).With("requested_tier", string(to)).With("truth_dial_score", c.Spec.Score).
			With("truth_dial_threshold", ev.Threshold).With("constraint", ev.Constraint)
	case governance.ConstraintControls:
		refusal = apierror.New(http.StatusForbidden, apierror.CodeControlsRequired,
			"promotion requires passing negative controls; this claim's did not pass").
			With("claim_id", in.ClaimID).With("requested_tier", string(to)).With("constraint", ev.Constraint)
	case "":
	default:
		refusal = apierror.New(http.StatusForbidden, apierror.CodeGovernanceViolation,
			"promotion to %s is refused by the governance policy (%s)", to, ev.Constraint).
			With("claim_id", in.ClaimID).With("requested_tier", string(to)).With("constraint", ev.Constraint)
	}
	evaluation := ev.Details()
	if refusal != nil {
		// Every refused promotion is evidence too.
		details := map[string]any{
			"operation": "promote", "from_tier": string(from), "requested_tier": string(to), "rationale": in.Body.Rationale,
			"result": "rejected", "code": refusal.Body.Code, "constraint": refusal.Body.Details["constraint"],
			"governance_evaluation": evaluation,
		}
		if _, err := s.ledgerAppend(ctx, t.ID, in.ProjectID, ledger.PolicyEvaluated, in.ClaimID, c.Spec.RunID, p.Actor, details); err != nil {
			return nil, err
		}
		return nil, refusal
	}

	now := s.now().UTC()
	moved, err := s.moveTier(ctx, c, from, to)
	if err != nil {
		return nil, err
	}
	entry, err := s.ledgerAppend(ctx, t.ID, in.ProjectID, ledger.ClaimPromoted, in.ClaimID, c.Spec.RunID, p.Actor, map[string]any{
		"from_tier": string(from), "to_tier": string(to), "rationale": in.Body.Rationale,
		"governance_evaluation": evaluation,
	})
	if err != nil {
		s.undoTier(ctx, moved, from)
		return nil, err
	}
	s.recordMove(ctx, moved, from, p.Actor, entry, now)
	s.publish(ctx, t.ID, in.ProjectID, webhook.ClaimPromoted, map[string]any{
		"claim_id": in.ClaimID, "project_id": in.ProjectID, "campaign_id": c.Spec.CampaignID, "run_id": c.Spec.RunID,
		"type": string(c.Spec.Type), "from_tier": string(from), "tier": string(to), "score": c.Spec.Score,
		"promoted_by": p.Actor, "ledger_entry_id": entry,
	})
	return &struct{ Body PromotionResult }{Body: PromotionResult{
		ID: in.ClaimID, Type: string(c.Spec.Type), Tier: string(to), PreviousTier: string(from),
		PromotedAt: now, PromotedBy: p.Actor, Rationale: in.Body.Rationale, LedgerEntryID: entry, GovernanceCheck: checks,
	}}, nil
}

func (s *Server) demoteClaim(ctx context.Context, in *struct {
	ClaimPath
	Body tierChange
}) (*struct{ Body DemotionResult }, error) {
	p, t := who(ctx)
	_, c, err := s.claim(ctx, in.ProjectID, in.ClaimID)
	if err != nil {
		return nil, err
	}
	from, to := c.Spec.Tier, discov1.Tier(in.Body.TargetTier)
	if from == "" {
		from = discov1.TierExplore
	}
	if to.Rank() >= from.Rank() {
		return nil, apierror.Conflict("the claim is in tier %s; demotion moves down (use promote to move up)", from).
			With("claim_id", in.ClaimID).With("tier", string(from)).With("requested_tier", string(to))
	}
	now := s.now().UTC()
	moved, err := s.moveTier(ctx, c, from, to)
	if err != nil {
		return nil, err
	}
	entry, err := s.ledgerAppend(ctx, t.ID, in.ProjectID, ledger.ClaimDemoted, in.ClaimID, c.Spec.RunID, p.Actor, map[string]any{
		"from_tier": string(from), "to_tier": string(to), "rationale": in.Body.Rationale,
	})
	if err != nil {
		s.undoTier(ctx, moved, from)
		return nil, err
	}
	s.recordMove(ctx, moved, from, p.Actor, entry, now)
	return &struct{ Body DemotionResult }{Body: DemotionResult{
		ID: in.ClaimID, Type: string(c.Spec.Type), Tier: string(to), PreviousTier: string(from),
		DemotedAt: now, DemotedBy: p.Actor, Rationale: in.Body.Rationale, LedgerEntryID: entry,
	}}, nil
}

// moveTier changes the claim's tier with the resource version that was read: of two
// concurrent moves, the API server accepts one and refuses the other with a conflict.
func (s *Server) moveTier(ctx context.Context, c *discov1.Claim, from, to discov1.Tier) (*discov1.Claim, error) {
	upd := c.DeepCopy()
	upd.Spec.Tier = to
	if err := s.opts.Client.Update(ctx, upd); err != nil {
		if apierrors.IsConflict(err) {
			return nil, apierror.Conflict("the claim was changed concurrently; read it again and retry").
				With("claim_id", ids.FromName(c.Name)).With("resource", "claim")
		}
		return nil, writeErrorOf(err, "claim", ids.FromName(c.Name))
	}
	return upd, nil
}

// undoTier puts the tier back when the move could not be ledgered: an unrecorded
// governance change must not stand.
func (s *Server) undoTier(ctx context.Context, c *discov1.Claim, from discov1.Tier) {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Claim
		if err := s.opts.APIReader.Get(ctx, client.ObjectKeyFromObject(c), &cur); err != nil {
			return err
		}
		cur.Spec.Tier = from
		return s.opts.Client.Update(ctx, &cur)
	})
	if err != nil {
		s.log.Error(err, "could not undo an unledgered tier change", "claim", c.Name, "request_id", requestID(ctx))
	}
}

// recordMove writes the move into the claim's status (who, when, from, which entry).
// The tier itself is already committed; a failure here only loses the annotation of
// the move, which the ledger keeps anyway.
func (s *Server) recordMove(ctx context.Context, c *discov1.Claim, from discov1.Tier, actor, entry string, at time.Time) {
	before := c.ResourceVersion
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Claim
		if err := s.opts.APIReader.Get(ctx, client.ObjectKeyFromObject(c), &cur); err != nil {
			return err
		}
		cur.Status.PreviousTier = from
		cur.Status.PromotedAt = &metav1.Time{Time: at}
		cur.Status.PromotedBy = actor
		if entry != "" {
			cur.Status.LastLedgerEntryID = entry
		}
		if err := s.opts.Client.Status().Update(ctx, &cur); err != nil {
			return err
		}
		c.ResourceVersion = cur.ResourceVersion
		return nil
	})
	if err != nil {
		s.log.Error(err, "recording a tier move in the claim status", "claim", c.Name, "request_id", requestID(ctx))
	}
	s.awaitCache(ctx, c, before)
}

// ledgerAppend records a governance entry; without a ledger (not configured) nothing is
// recorded and the id is "".
func (s *Server) ledgerAppend(ctx context.Context, tenantID, projectID, eventType, claimID, runID, actor string, details map[string]any) (string, error) {
	if s.opts.Ledger == nil {
		return "", nil
	}
	e, err := s.opts.Ledger.Append(ctx, ledger.Entry{
		TenantID: tenantID, ProjectID: projectID, EventType: eventType, ClaimID: claimID, RunID: runID,
		Actor: actor, Details: details,
	})
	if err != nil {
		return "", internalError(err)
	}
	return e.ID, nil
}

// publish queues a webhook event; a failure is logged, not returned: the change it
// announces has happened.
func (s *Server) publish(ctx context.Context, tenantID, projectID, eventType string, data map[string]any) {
	if _, err := webhook.NewPublisher(s.opts.Store, s.now).Publish(ctx, tenantID, projectID, eventType, data); err != nil {
		s.log.Error(err, "queueing webhook event", "type", eventType, "request_id", requestID(ctx))
	}
}
