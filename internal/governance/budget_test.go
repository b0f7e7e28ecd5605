package governance

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

func TestCanAdmit(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	past := metav1.NewTime(now.Add(-time.Hour))
	c := func(units int64, runs int32, exp *metav1.Time) *discov1.Campaign {
		return &discov1.Campaign{Spec: discov1.CampaignSpec{Budget: discov1.Budget{ComputeUnits: units, MaxRuns: runs, ExpiresAt: exp}}}
	}
	cases := []struct {
		name       string
		campaign   *discov1.Campaign
		usage      BudgetUsage
		estimate   int64
		ok         bool
		constraint string
	}{
		{"fits", c(100, 10, nil), BudgetUsage{ComputeUnitsUsed: 50, RunsTotal: 2}, 50, true, ""},
		{"estimate overflows units", c(100, 10, nil), BudgetUsage{ComputeUnitsUsed: 50, RunsTotal: 2}, 51, false, "compute_units"},
		{"units used up", c(100, 10, nil), BudgetUsage{ComputeUnitsUsed: 100}, 1, false, "compute_units"},
		{"runs used up", c(100, 2, nil), BudgetUsage{RunsTotal: 2}, 1, false, "max_runs"},
		{"expired", c(100, 10, &past), BudgetUsage{}, 1, false, "expires_at"},
	}
	for _, tc := range cases {
		ok, constraint := CanAdmit(tc.campaign, tc.usage, tc.estimate, now)
		if ok != tc.ok || constraint != tc.constraint {
			t.Errorf("%s: CanAdmit = %v, %q; want %v, %q", tc.name, ok, constraint, tc.ok, tc.constraint)
		}
	}
}

func TestUsageOfReservesEstimatesOfUnfinishedRuns(t *testing.T) {
	runs := []discov1.Run{
		{Spec: discov1.RunSpec{ComputeUnitsEstimated: 10}, Status: discov1.RunStatus{Phase: discov1.RunRunning, ComputeUnitsUsed: 4}},
		{Spec: discov1.RunSpec{ComputeUnitsEstimated: 10}, Status: discov1.RunStatus{Phase: discov1.RunRunning, ComputeUnitsUsed: 14}},
		{Spec: discov1.RunSpec{ComputeUnitsEstimated: 10}, Status: discov1.RunStatus{Phase: discov1.RunCompleted, ComputeUnitsUsed: 7}},
		{Spec: discov1.RunSpec{ComputeUnitsEstimated: 10}, Status: discov1.RunStatus{Phase: discov1.RunCancelled, ComputeUnitsUsed: 1}},
		{Spec: discov1.RunSpec{ComputeUnitsEstimated: 3}},
	}
	u := UsageOf(runs)
	want := BudgetUsage{ComputeUnitsUsed: 10 + 14 + 7 + 1 + 3, RunsCompleted: 1, RunsTotal: 5, RunsActive: 3}
	if u != want {
		t.Fatalf("UsageOf = %+v, want %+v", u, want)
	}
}
