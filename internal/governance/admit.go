package governance

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// AdmitRun reads a new run's project, campaign and the namespace's runs through c and
// answers Admit. The webhook passes an uncached reader, so runs created a moment ago count.
// A project or campaign that does not exist (yet) blocks nothing here: the run controller
// reports the missing reference as a condition.
func AdmitRun(ctx context.Context, c client.Reader, namespace string, run *discov1.Run, now time.Time) (constraint, message string, err error) {
	run.Namespace = namespace // the decoded object of a create may not carry it; ids derive from it
	// The campaign first: a Run written by name (spec.campaignRef) has no project id of its
	// own; its project is its campaign's (issue 14, item 6).
	camp := &discov1.Campaign{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: run.CampaignName()}, camp); err != nil {
		return "", "", client.IgnoreNotFound(err)
	}
	project := &discov1.Project{}
	switch err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: camp.ProjectName()}, project); {
	case apierrors.IsNotFound(err):
		project = nil
	case err != nil:
		return "", "", err
	}
	runs := &discov1.RunList{}
	// All of the namespace's runs, not a label or an index: a Run written by hand may carry
	// no labels yet, and c may be an uncached reader without indexes.
	if err := c.List(ctx, runs, client.InNamespace(namespace)); err != nil {
		return "", "", err
	}
	constraint, message = Admit(project, camp, runs.Items, run, now)
	return constraint, message, nil
}

// Admit checks a run against its project's state (project may be nil) and its campaign's
// state and budget, counting the campaign's other runs among runs. It answers the blocking
// constraint ("" when the run fits) and a message. Only the campaign's runs created before
// run count (all of them for a run not yet created), so runs are admitted first come, first
// served and a run admitted once stays admissible.
func Admit(project *discov1.Project, camp *discov1.Campaign, runs []discov1.Run, run *discov1.Run, now time.Time) (constraint, message string) {
	if project != nil && project.Spec.State == discov1.ProjectArchived {
		return "archived", fmt.Sprintf("the project %s is archived and accepts no runs", project.ID())
	}
	others := make([]discov1.Run, 0, len(runs))
	for i := range runs {
		if r := &runs[i]; r.CampaignID() == run.CampaignID() && r.Name != run.Name && CreatedBefore(r, run) {
			others = append(others, *r)
		}
	}
	u := CampaignUsage(camp, others)
	ok, constraint := CanAdmit(camp, u, run.Spec.ComputeUnitsEstimated, now)
	if ok {
		return "", ""
	}
	return constraint, Refusal(camp, u, run.Spec.ComputeUnitsEstimated, constraint)
}

// Refusal words a budget constraint of a campaign, as the REST errors do.
func Refusal(camp *discov1.Campaign, u BudgetUsage, estimate int64, constraint string) string {
	b := camp.Spec.Budget
	switch constraint {
	case "archived":
		return fmt.Sprintf("the campaign %s is archived and accepts no runs", camp.ID())
	case "expires_at":
		return fmt.Sprintf("the campaign expired at %s", b.ExpiresAt.UTC().Format(time.RFC3339))
	case "max_runs":
		return fmt.Sprintf("the campaign allows %d runs and has %d", b.MaxRuns, u.RunsTotal)
	}
	return fmt.Sprintf("the run needs an estimated %d compute units; the campaign has %d of %d left",
		estimate, max(b.ComputeUnits-u.ComputeUnitsUsed, 0), b.ComputeUnits)
}

// CreatedBefore orders runs by creation, then name; a run not yet created comes last.
func CreatedBefore(a, b *discov1.Run) bool {
	if b.CreationTimestamp.IsZero() {
		return true
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}
