package controllers

import (
	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// ConcurrentRunLimit is how many runs of a tenant may run at once (DESIGN.md: free 10,
// team 50, enterprise 500). Runs above the limit are accepted and wait in queued with the
// WaitingForCapacity reason.
func ConcurrentRunLimit(tier discov1.TenantTier) int {
	switch tier {
	case discov1.TenantTierEnterprise:
		return 500
	case discov1.TenantTierTeam:
		return 50
	default:
		return 10
	}
}

// runningCount counts the runs that hold an execution slot: running ones.
func runningCount(runs []discov1.Run) int {
	n := 0
	for i := range runs {
		if runs[i].Status.Phase == discov1.RunRunning {
			n++
		}
	}
	return n
}
