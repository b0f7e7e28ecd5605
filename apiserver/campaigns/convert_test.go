package campaigns

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// A campaign's status and governance are computed without HTTP.
func TestStatusAndGovernanceOfACampaign(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	c := &discov1.Campaign{Spec: discov1.CampaignSpec{Budget: discov1.Budget{ExpiresAt: &metav1.Time{Time: now.Add(time.Hour)}}}}
	if got := Status(c, now); got != string(discov1.CampaignActive) {
		t.Errorf("a new campaign is %s", got)
	}
	c.Status.Phase = discov1.CampaignExhausted
	if got := Status(c, now); got != string(discov1.CampaignExhausted) {
		t.Errorf("the controller's phase: %s", got)
	}
	if got := Status(c, now.Add(time.Hour)); got != string(discov1.CampaignExpired) {
		t.Errorf("at its expiry, before the controller: %s", got)
	}
	c.Spec.Archived = true
	if got := Status(c, now.Add(time.Hour)); got != string(discov1.CampaignArchived) {
		t.Errorf("archived and expired: %s", got)
	}

	// The campaign's own rules, else the project's.
	p := &discov1.Project{Spec: discov1.ProjectSpec{Settings: discov1.ProjectSettings{Governance: discov1.GovernanceSettings{
		PromotionCeiling: discov1.TierPublish, RequireNegativeControls: ptr.To(false)}}}}
	g := Of(p, &discov1.Campaign{}, now).Governance
	if g.PromotionCeiling != "publish" || g.RequireNegativeControls {
		t.Errorf("without rules of its own: %+v", g)
	}
	g = Of(p, &discov1.Campaign{Spec: discov1.CampaignSpec{Governance: discov1.CampaignGovernance{
		PromotionCeiling: discov1.TierExplore, RequireNegativeControls: ptr.To(true)}}}, now).Governance
	if g.PromotionCeiling != "explore" || !g.RequireNegativeControls {
		t.Errorf("with rules of its own: %+v", g)
	}
}
