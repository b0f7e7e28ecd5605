package governance

import (
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// BudgetUsage is what a campaign's runs have consumed, computed from the runs themselves.
// The campaign reconciler reports it and the facade admits submissions by it, so both
// count alike.
type BudgetUsage struct {
	ComputeUnitsUsed int64
	RunsCompleted    int32
	RunsTotal        int32
	RunsActive       int32
}

// UsageOf sums the runs of one campaign. A finished run counts the units it used; an
// unfinished run counts the larger of its estimate and what it used so far, so concurrent
// submissions reserve budget before they start and the campaign is never overspent.
// Cancelled and failed runs count what they used.
func UsageOf(runs []discov1.Run) BudgetUsage {
	var u BudgetUsage
	for i := range runs {
		run := &runs[i]
		if Refused(run) {
			continue
		}
		u.RunsTotal++
		switch {
		case run.Status.Phase == discov1.RunCompleted:
			u.RunsCompleted++
			u.ComputeUnitsUsed += run.Status.ComputeUnitsUsed
		case run.Status.Phase.Finished():
			u.ComputeUnitsUsed += run.Status.ComputeUnitsUsed
		default:
			u.RunsActive++
			u.ComputeUnitsUsed += max(run.Spec.ComputeUnitsEstimated, run.Status.ComputeUnitsUsed)
		}
	}
	return u
}

// BudgetConstraint names what blocks new runs of a campaign: "compute_units", "max_runs",
// "expires_at", or "" when runs may be submitted. The names are the contract's
// details.constraint values of budget_exhausted.
func BudgetConstraint(c *discov1.Campaign, u BudgetUsage, now time.Time) string {
	switch {
	case c.Spec.Budget.ExpiresAt != nil && !now.Before(c.Spec.Budget.ExpiresAt.Time):
		return "expires_at"
	case u.ComputeUnitsUsed >= c.Spec.Budget.ComputeUnits:
		return "compute_units"
	case u.RunsTotal >= c.Spec.Budget.MaxRuns:
		return "max_runs"
	}
	return ""
}

// CampaignPhaseFor is the phase a campaign is in given its spec and usage.
func CampaignPhaseFor(c *discov1.Campaign, u BudgetUsage, now time.Time) discov1.CampaignPhase {
	if c.Spec.Archived {
		return discov1.CampaignArchived
	}
	switch BudgetConstraint(c, u, now) {
	case "":
		return discov1.CampaignActive
	case "expires_at":
		return discov1.CampaignExpired
	default:
		return discov1.CampaignExhausted
	}
}

// CanAdmit reports whether a new run with the given estimate fits the campaign, and if not
// which constraint it breaks. The facade calls it at submission with the current usage.
func CanAdmit(c *discov1.Campaign, u BudgetUsage, estimate int64, now time.Time) (bool, string) {
	if c.Spec.Archived {
		return false, "archived"
	}
	if constraint := BudgetConstraint(c, u, now); constraint != "" {
		return false, constraint
	}
	if u.ComputeUnitsUsed+estimate > c.Spec.Budget.ComputeUnits {
		return false, "compute_units"
	}
	if u.RunsTotal+1 > c.Spec.Budget.MaxRuns {
		return false, "max_runs"
	}
	return true, ""
}
