package runexec

import (
	"context"
	"encoding/json"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/metrics"
)

// ClaimID is the id of the i-th claim of a run: derived, so materialising results twice
// (after a crash) finds the claims it already made. It names the tenant, namespace, name
// and uid of the run, so same-named runs of two tenants, or a run created again under an
// old name, never share claim ids (issue 14 item 3).
func ClaimID(tenantID string, run *discov1.Run, i int) string {
	return ids.Derive(ids.Claim, tenantID, run.Namespace, run.Name, string(run.UID), "claim", strconv.Itoa(i))
}

// legacyClaimID is the claim id of runs whose results were stored under the earlier
// layout (runs/<name>/results.json): their claims keep the ids the first materialisation
// gave them. Only random-id runs are read from that layout (blob.RunRef.OwnsLegacy).
func legacyClaimID(runID string, i int) string {
	return ids.Derive(ids.Claim, runID, "claim", strconv.Itoa(i))
}

// Materializer turns a run's results.json into Claim objects with their ledger entries.
type Materializer struct {
	Client client.Client
	// Ledger records each claim's creation; nil records nothing.
	Ledger *ledger.Ledger
}

// Materialize creates every claim of the results that does not exist yet. Each claim's
// claim_created entry is appended before the object is created; if the process dies in
// between, the next pass finds the entry by claim id and reuses it, so nothing is ledgered
// twice and no claim is lost.
func (m *Materializer) Materialize(ctx context.Context, run *discov1.Run, tenantID string, pol governance.Policy, res *engine.Result) (created []*discov1.Claim, bestID string, err error) {
	runID := run.ID()
	legacy := run.Status.ResultsKey == blob.LegacyRunResultsKey(run.Name)
	for i := range res.Claims {
		c := &res.Claims[i]
		id := ClaimID(tenantID, run, i)
		if legacy {
			id = legacyClaimID(runID, i)
		}
		if i == res.Summary.BestClaimIndex {
			bestID = id
		}
		existing := &discov1.Claim{}
		err := m.Client.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: ids.ToName(id)}, existing)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return nil, "", err
		}
		entryID, tier, err := m.ledgerClaim(ctx, run, tenantID, id, c, pol)
		if err != nil {
			return nil, "", err
		}
		claim, err := claimObject(run, id, c, entryID)
		if err != nil {
			return nil, "", err
		}
		claim.Spec.Tier = tier
		if err := controllerutil.SetControllerReference(run, claim, m.Client.Scheme()); err != nil {
			return nil, "", err
		}
		if err := m.Client.Create(ctx, claim); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, "", err
		}
		metrics.ClaimsCreated.WithLabelValues(string(claim.Spec.Type), string(claim.Spec.Tier)).Inc()
		created = append(created, claim)
	}
	return created, bestID, nil
}

// ledgerClaim records a new claim (claim_created, its negative controls and, when the
// campaign auto-promotes, the evaluation) and returns the claim_created entry and the tier
// the claim starts in. The ledger is the source of truth for that tier: after a crash the
// entries already written decide it, so the object never disagrees with its ledger.
func (m *Materializer) ledgerClaim(ctx context.Context, run *discov1.Run, tenantID, claimID string, c *engine.Claim, pol governance.Policy) (string, discov1.Tier, error) {
	if m.Ledger == nil {
		return "", discov1.TierExplore, nil
	}
	prior, err := m.Ledger.List(ctx, tenantID, run.ProjectID(), ledger.ListQuery{ClaimID: claimID, Limit: 100})
	if err != nil {
		return "", "", err
	}
	if len(prior) > 0 {
		tier := discov1.TierExplore
		for _, e := range prior {
			if e.EventType == "claim_promoted" {
				if to, ok := e.Details["to_tier"].(string); ok {
					tier = discov1.Tier(to)
				}
			}
		}
		return prior[0].ID, tier, nil
	}
	entryID, err := m.ledgerClaimCreated(ctx, run, tenantID, claimID, c)
	if err != nil {
		return "", "", err
	}
	tier, err := m.autoPromote(ctx, run, tenantID, claimID, c, pol)
	return entryID, tier, err
}

// autoPromote applies the campaign's auto_promote_to: the claim starts in that tier when it
// passes the same checks a user's promotion must pass; the evaluation is ledgered either way.
func (m *Materializer) autoPromote(ctx context.Context, run *discov1.Run, tenantID, claimID string, c *engine.Claim, pol governance.Policy) (discov1.Tier, error) {
	target := pol.AutoPromoteTo
	if target.Rank() <= discov1.TierExplore.Rank() {
		return discov1.TierExplore, nil
	}
	eval := governance.Evaluate(pol, c.Score, c.Evidence.NegativeControlsPassed, target)
	entry := ledger.Entry{TenantID: tenantID, ProjectID: run.ProjectID(), ClaimID: claimID, RunID: run.ID(), Actor: "system"}
	if eval.Allowed() {
		entry.EventType = "claim_promoted"
		entry.Details = map[string]any{"from_tier": string(discov1.TierExplore), "to_tier": string(target),
			"rationale": "auto-promotion by campaign policy", "governance_evaluation": eval.Details()}
	} else {
		entry.EventType = "policy_evaluated"
		entry.Details = map[string]any{"operation": "auto_promote", "from_tier": string(discov1.TierExplore), "requested_tier": string(target),
			"result": "rejected", "constraint": eval.Constraint, "governance_evaluation": eval.Details()}
	}
	if _, err := m.Ledger.Append(ctx, entry); err != nil {
		return "", err
	}
	if eval.Allowed() {
		return target, nil
	}
	return discov1.TierExplore, nil
}

func (m *Materializer) ledgerClaimCreated(ctx context.Context, run *discov1.Run, tenantID, claimID string, c *engine.Claim) (string, error) {
	controls := map[string]any{}
	for name, r := range c.Evidence.NegativeControls {
		controls[name] = map[string]any{"passed": r.Passed, "p_value": r.PValue}
	}
	entry, err := m.Ledger.Append(ctx, ledger.Entry{
		TenantID: tenantID, ProjectID: run.ProjectID(), EventType: "claim_created",
		ClaimID: claimID, RunID: run.ID(), Actor: "system",
		Details: map[string]any{
			"claim_type":        c.Type,
			"initial_tier":      string(discov1.TierExplore),
			"truth_dial_score":  c.Score,
			"negative_controls": controls,
		},
	})
	if err != nil {
		return "", err
	}
	for name, r := range c.Evidence.NegativeControls {
		result := "failed"
		if r.Passed {
			result = "passed"
		}
		if _, err := m.Ledger.Append(ctx, ledger.Entry{
			TenantID: tenantID, ProjectID: run.ProjectID(), EventType: "negative_control_evaluated",
			ClaimID: claimID, RunID: run.ID(), Actor: "system",
			Details: map[string]any{"control_type": name, "result": result, "validation_dataset_id": run.DatasetID(), "score": r.PValue, "p_value": r.PValue},
		}); err != nil {
			return "", err
		}
	}
	return entry.ID, nil
}

// claimObject builds the Claim custom resource of an engine claim.
func claimObject(run *discov1.Run, id string, c *engine.Claim, ledgerEntryID string) (*discov1.Claim, error) {
	evidence, err := json.Marshal(c.Evidence)
	if err != nil {
		return nil, err
	}
	score := c.Score
	if score < 0 {
		score = 0
	} else if score > 1 {
		score = 1
	}
	claim := &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{
			Name: ids.ToName(id), Namespace: run.Namespace,
			Labels: map[string]string{
				discov1.LabelProject:  run.ProjectID(),
				discov1.LabelCampaign: run.CampaignID(),
				discov1.LabelRun:      run.ID(),
			},
		},
		Spec: discov1.ClaimSpec{
			ProjectID: run.ProjectID(), CampaignID: run.CampaignID(), RunID: run.ID(),
			Type: discov1.ClaimType(c.Type), Tier: discov1.TierExplore,
			Summary: truncate(c.Summary, 4096), Score: score,
			Scope: discov1.ClaimScope{Variables: limit(c.Scope.Variables, 256), Domain: truncate(c.Scope.Domain, 4096),
				ConstraintsSatisfied: limit(c.Scope.ConstraintsSatisfied, 64)},
			Evidence:               &apiextensionsv1.JSON{Raw: evidence},
			Expression:             truncate(c.Expression, 4096),
			Target:                 truncate(c.Target, 256),
			Variables:              limit(c.Variables, 256),
			Cause:                  truncate(c.Cause, 256),
			Effect:                 truncate(c.Effect, 256),
			Direction:              c.Direction,
			TemporalScope:          c.TemporalScope,
			InterventionMarkers:    limit(c.InterventionMarkers, 64),
			LedgerEntryID:          ledgerEntryID,
			NegativeControlsPassed: c.Evidence.NegativeControlsPassed,
		},
	}
	if tenant := run.Labels[discov1.LabelTenant]; tenant != "" {
		claim.Labels[discov1.LabelTenant] = tenant
	}
	return claim, nil
}
