package governance

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// CampaignUsage is what a campaign has consumed: its runs (UsageOf) plus the runs that were
// deleted (status.retired). Budget is spent when a run runs; deleting the Run does not give
// it back (issue 14). A run still present but already retired is counted once.
func CampaignUsage(c *discov1.Campaign, runs []discov1.Run) BudgetUsage {
	r := c.Status.Retired
	if r == nil {
		return UsageOf(runs)
	}
	live := runs
	if len(r.RunUIDs) > 0 {
		live = make([]discov1.Run, 0, len(runs))
		for i := range runs {
			if !slices.Contains(r.RunUIDs, string(runs[i].UID)) {
				live = append(live, runs[i])
			}
		}
	}
	u := UsageOf(live)
	u.ComputeUnitsUsed += r.ComputeUnits
	u.RunsTotal += r.Runs
	u.RunsCompleted += r.RunsCompleted
	return u
}

// Retire adds a deleted run's usage to the campaign's retired usage, once per run uid, and
// reports whether it changed anything.
func Retire(c *discov1.Campaign, run *discov1.Run) bool {
	if c.Status.Retired == nil {
		c.Status.Retired = &discov1.RetiredUsage{}
	}
	r := c.Status.Retired
	if slices.Contains(r.RunUIDs, string(run.UID)) {
		return false
	}
	one := UsageOf([]discov1.Run{*run})
	if !run.Status.Phase.Finished() {
		// A run deleted before it finished is charged what it used, not its estimate.
		one.ComputeUnitsUsed = run.Status.ComputeUnitsUsed
	}
	r.ComputeUnits += one.ComputeUnitsUsed
	r.Runs += one.RunsTotal
	r.RunsCompleted += one.RunsCompleted
	r.RunUIDs = append(r.RunUIDs, string(run.UID))
	if over := len(r.RunUIDs) - maxRetiredUIDs; over > 0 {
		r.RunUIDs = slices.Delete(r.RunUIDs, 0, over)
	}
	return true
}

// maxRetiredUIDs bounds status.retired.runUIDs (the CRD's maxItems).
const maxRetiredUIDs = 256

// Refused reports whether the run was refused by its campaign's budget before it started:
// such a run never ran and consumes nothing.
func Refused(run *discov1.Run) bool {
	if run.Status.Phase != discov1.RunFailed {
		return false
	}
	c := meta.FindStatusCondition(run.Status.Conditions, discov1.RunConditionFinished)
	return c != nil && c.Reason == discov1.ReasonBudgetExhausted
}
