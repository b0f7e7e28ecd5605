package governance

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// TestAdmitCountsTheCampaignsEarlierRuns: a run is admitted against the runs of its own
// campaign created before it, so of runs racing for the last slot the oldest wins, and a
// run admitted once stays admissible when later runs arrive.
func TestAdmitCountsTheCampaignsEarlierRuns(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	camp := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: "cmp-a"},
		Spec: discov1.CampaignSpec{Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 2}}}
	run := func(name, campaign string, created time.Time) discov1.Run {
		return discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created)},
			Spec: discov1.RunSpec{CampaignID: campaign, ComputeUnitsEstimated: 10}}
	}
	runs := []discov1.Run{
		run("run-1", "cmp_a", t0),
		run("run-2", "cmp_a", t0.Add(time.Second)),
		run("run-3", "cmp_a", t0.Add(time.Second)), // same second as run-2: the name orders them
		run("run-x", "cmp_b", t0),                  // another campaign's run does not count
	}
	for _, tc := range []struct {
		run        discov1.Run
		constraint string
	}{
		{runs[0], ""},
		{runs[1], ""},
		{runs[2], "max_runs"},
		{run("run-new", "cmp_a", time.Time{}), "max_runs"}, // not created yet: every run counts
	} {
		constraint, message := Admit(nil, camp, runs, &tc.run, t0)
		if constraint != tc.constraint {
			t.Errorf("%s: constraint %q (%s), want %q", tc.run.Name, constraint, message, tc.constraint)
		}
		if constraint != "" && !strings.Contains(message, "the campaign allows 2 runs") {
			t.Errorf("%s: message %q", tc.run.Name, message)
		}
	}

	archived := &discov1.Project{Spec: discov1.ProjectSpec{State: discov1.ProjectArchived}}
	if constraint, _ := Admit(archived, camp, runs, &runs[0], t0); constraint != "archived" {
		t.Errorf("a run of an archived project: constraint %q, want archived", constraint)
	}
}
