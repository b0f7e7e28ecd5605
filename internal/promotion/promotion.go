// Package promotion is the one governed path that moves a claim between tiers. The REST
// facade (POST .../promote and .../demote) and the ClaimPromotion reconciler (kubectl and
// GitOps) both call it, so a tier change passes the same rules and writes the same ledger
// entries whoever asks (issue 14: "every tier change passes the same governance rules and
// writes its ledger entry, whoever asks").
//
// The order of a move is: evaluate governance (internal/governance), ledger a refusal as
// policy_evaluated, write the tier with the resource version that was read (of two
// concurrent moves one wins), ledger the move, and put the tier back if the ledger write
// failed, so no unrecorded tier stands.
package promotion

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
)

// Publisher queues a webhook event; the facade and the manager pass the store's outbox.
type Publisher interface {
	Publish(ctx context.Context, tenantID, projectID, eventType string, data map[string]any) (string, error)
}

// Governor moves claims between tiers under governance.
type Governor struct {
	// Client writes claims; it must be an identity the claim admission webhook trusts.
	Client client.Client
	// Reader reads claims uncached, for the undo and the status record.
	Reader client.Reader
	// Ledger records every decision; nil records nothing (tests without a store).
	Ledger *ledger.Ledger
	// Events queues claim.promoted; nil sends nothing.
	Events Publisher
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Move is one requested tier change of one claim.
type Move struct {
	Claim     *discov1.Claim
	Project   *discov1.Project
	Campaign  *discov1.Campaign // nil when the campaign is gone: the project's rules alone
	TenantID  string
	Target    discov1.Tier
	Actor     string
	Rationale string
}

// Outcome is a move that happened.
type Outcome struct {
	From, To      discov1.Tier
	Evaluation    governance.Evaluation // promotions only
	LedgerEntryID string
	At            time.Time
	Claim         *discov1.Claim // as written, with the resource version of the status record
}

// Refused is the error of a promotion governance refuses; the refusal is already ledgered
// as policy_evaluated (DESIGN.md: every rejected promotion is ledgered).
type Refused struct {
	From, To      discov1.Tier
	Evaluation    governance.Evaluation
	LedgerEntryID string
}

func (r *Refused) Error() string {
	e := r.Evaluation
	switch e.Constraint {
	case governance.ConstraintCeiling:
		return fmt.Sprintf("promotion to %s exceeds the promotion ceiling %s", r.To, e.PolicyCeiling)
	case governance.ConstraintThreshold:
		return fmt.Sprintf("the claim's Truth Dial score %.3g is below the threshold %.3g", e.TruthDialScore, e.Threshold)
	case governance.ConstraintControls:
		return "promotion requires passing negative controls; this claim's did not pass"
	}
	return fmt.Sprintf("promotion to %s is refused by the governance policy (%s)", r.To, e.Constraint)
}

// WrongDirection is the error of a promotion that does not move up or a demotion that does
// not move down.
type WrongDirection struct {
	Operation string // promote | demote
	From, To  discov1.Tier
}

func (w *WrongDirection) Error() string {
	if w.Operation == "promote" {
		return fmt.Sprintf("the claim is in tier %s; promotion moves up (use demote to move down)", w.From)
	}
	return fmt.Sprintf("the claim is in tier %s; demotion moves down (use promote to move up)", w.From)
}

// ErrConflict: the claim changed between the read and the write; read it again and retry.
var ErrConflict = errors.New("the claim was changed concurrently; read it again and retry")

func (g *Governor) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// Policy is the governance that applies to the move's claim.
func (m Move) Policy() governance.Policy { return governance.PolicyFor(m.Project, m.Campaign) }

func (m Move) from() discov1.Tier {
	if m.Claim.Spec.Tier == "" {
		return discov1.TierExplore
	}
	return m.Claim.Spec.Tier
}

func (m Move) claimID() string { return ids.FromName(m.Claim.Name) }

// Promote moves the claim up to m.Target when governance allows it. A refusal is ledgered
// and returned as *Refused; a move that is not upward is *WrongDirection.
func (g *Governor) Promote(ctx context.Context, m Move) (Outcome, error) {
	from, to := m.from(), m.Target
	if to.Rank() <= from.Rank() {
		return Outcome{}, &WrongDirection{Operation: "promote", From: from, To: to}
	}
	ev := governance.Evaluate(m.Policy(), m.Claim.Spec.Score, m.Claim.Spec.NegativeControlsPassed, to)
	if !ev.Allowed() {
		entry, err := g.append(ctx, m, ledger.PolicyEvaluated, map[string]any{
			"operation": "promote", "from_tier": string(from), "requested_tier": string(to), "rationale": m.Rationale,
			"result": "rejected", "code": RefusalCode(ev.Constraint), "constraint": ev.Constraint,
			"governance_evaluation": ev.Details(),
		})
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{}, &Refused{From: from, To: to, Evaluation: ev, LedgerEntryID: entry}
	}
	out, err := g.move(ctx, m, from, to, ledger.ClaimPromoted, map[string]any{
		"from_tier": string(from), "to_tier": string(to), "rationale": m.Rationale,
		"governance_evaluation": ev.Details(),
	})
	if err != nil {
		return Outcome{}, err
	}
	out.Evaluation = ev
	if g.Events != nil {
		c := m.Claim
		if _, err := g.Events.Publish(ctx, m.TenantID, c.Spec.ProjectID, "claim.promoted", map[string]any{
			"claim_id": m.claimID(), "project_id": c.Spec.ProjectID, "campaign_id": c.Spec.CampaignID, "run_id": c.Spec.RunID,
			"type": string(c.Spec.Type), "from_tier": string(from), "tier": string(to), "score": c.Spec.Score,
			"promoted_by": m.Actor, "ledger_entry_id": out.LedgerEntryID,
		}); err != nil {
			// The promotion happened and is ledgered; a lost announcement is logged.
			log.FromContext(ctx).Error(err, "queueing claim.promoted", "claim", c.Name)
		}
	}
	return out, nil
}

// Demote moves the claim down to m.Target; demotion needs no governance check, and is
// ledgered as claim_demoted.
func (g *Governor) Demote(ctx context.Context, m Move) (Outcome, error) {
	from, to := m.from(), m.Target
	if to.Rank() >= from.Rank() {
		return Outcome{}, &WrongDirection{Operation: "demote", From: from, To: to}
	}
	return g.move(ctx, m, from, to, ledger.ClaimDemoted, map[string]any{
		"from_tier": string(from), "to_tier": string(to), "rationale": m.Rationale,
	})
}

// RefusalCode is the contract's error code for a governance constraint.
func RefusalCode(constraint string) string {
	switch constraint {
	case governance.ConstraintThreshold:
		return "truth_dial_threshold_not_met"
	case governance.ConstraintControls:
		return "negative_controls_required"
	}
	return "governance_policy_violation"
}

func (g *Governor) move(ctx context.Context, m Move, from, to discov1.Tier, event string, details map[string]any) (Outcome, error) {
	at := g.now().UTC()
	moved := m.Claim.DeepCopy()
	moved.Spec.Tier = to
	if err := g.Client.Update(ctx, moved); err != nil {
		if apierrors.IsConflict(err) {
			return Outcome{}, ErrConflict
		}
		return Outcome{}, err
	}
	entry, err := g.append(ctx, m, event, details)
	if err != nil {
		g.undo(ctx, moved, from)
		return Outcome{}, err
	}
	g.record(ctx, moved, from, m.Actor, entry, at)
	return Outcome{From: from, To: to, LedgerEntryID: entry, At: at, Claim: moved}, nil
}

// undo puts the tier back when the move could not be ledgered: an unrecorded governance
// change must not stand.
func (g *Governor) undo(ctx context.Context, c *discov1.Claim, from discov1.Tier) {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Claim
		if err := g.Reader.Get(ctx, client.ObjectKeyFromObject(c), &cur); err != nil {
			return err
		}
		cur.Spec.Tier = from
		return g.Client.Update(ctx, &cur)
	})
	if err != nil {
		log.FromContext(ctx).Error(err, "could not undo an unledgered tier change", "claim", c.Name)
	}
}

// record writes the move into the claim's status (who, when, from, which entry). The tier
// is already committed and ledgered; a failure here loses only the annotation of the move,
// which the ledger keeps anyway.
func (g *Governor) record(ctx context.Context, c *discov1.Claim, from discov1.Tier, actor, entry string, at time.Time) {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var cur discov1.Claim
		if err := g.Reader.Get(ctx, client.ObjectKeyFromObject(c), &cur); err != nil {
			return err
		}
		cur.Status.PreviousTier = from
		cur.Status.PromotedAt = &metav1.Time{Time: at}
		cur.Status.PromotedBy = actor
		if entry != "" {
			cur.Status.LastLedgerEntryID = entry
		}
		if err := g.Client.Status().Update(ctx, &cur); err != nil {
			return err
		}
		c.ResourceVersion = cur.ResourceVersion
		return nil
	})
	if err != nil {
		log.FromContext(ctx).Error(err, "recording a tier move in the claim status", "claim", c.Name)
	}
}

func (g *Governor) append(ctx context.Context, m Move, event string, details map[string]any) (string, error) {
	if g.Ledger == nil {
		return "", nil
	}
	e, err := g.Ledger.Append(ctx, ledger.Entry{
		TenantID: m.TenantID, ProjectID: m.Claim.Spec.ProjectID, EventType: event, ClaimID: m.claimID(),
		RunID: m.Claim.Spec.RunID, Actor: m.Actor, Details: details,
	})
	if err != nil {
		return "", fmt.Errorf("ledger %s: %w", event, err)
	}
	return e.ID, nil
}
