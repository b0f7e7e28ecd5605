package app

import (
	"testing"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

func TestParseLimits(t *testing.T) {
	l, err := parseLimits("free=5, enterprise=9000", "team=7")
	if err != nil {
		t.Fatal(err)
	}
	if l.Requests[discov1.TenantTierFree] != 5 || l.Requests[discov1.TenantTierEnterprise] != 9000 || l.Runs[discov1.TenantTierTeam] != 7 {
		t.Fatalf("limits = %+v", l)
	}
	for _, bad := range []string{"gold=5", "free=0", "free=x", "free"} {
		if _, err := parseLimits(bad, ""); err == nil {
			t.Errorf("parseLimits(%q) accepted", bad)
		}
	}
}
