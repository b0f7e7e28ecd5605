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

// TenantRunLimit is the tenant's limit of runs executing at once: its own override, or its
// tier's; never more than the pods its ResourceQuota admits (spec.quota.pods), so that the
// tenant's first-in-first-out queue, not the quota, holds the runs the quota has no room for
// (tenantPodQuota).
func TenantRunLimit(t *discov1.Tenant) int {
	if t == nil {
		return ConcurrentRunLimit(discov1.TenantTierFree)
	}
	limit := ConcurrentRunLimit(t.Spec.Tier)
	if t.Spec.ConcurrentRuns != nil {
		limit = int(*t.Spec.ConcurrentRuns)
	}
	if pods, ok := tenantPodQuota(t); ok {
		limit = min(limit, pods)
	}
	return limit
}
