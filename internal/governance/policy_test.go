package governance

import (
	"testing"

	"k8s.io/utils/ptr"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

func project(ceiling discov1.Tier, threshold float64, controls bool) *discov1.Project {
	return &discov1.Project{Spec: discov1.ProjectSpec{Settings: discov1.ProjectSettings{Governance: discov1.GovernanceSettings{
		PromotionCeiling: ceiling, TruthDialThreshold: &threshold, RequireNegativeControls: &controls}}}}
}

func TestPolicyForTakesTheLowerCeiling(t *testing.T) {
	p := PolicyFor(project(discov1.TierPublish, 0.8, true), &discov1.Campaign{Spec: discov1.CampaignSpec{
		Governance: discov1.CampaignGovernance{PromotionCeiling: discov1.TierValidate, RequireNegativeControls: ptr.To(false), AutoPromoteTo: discov1.TierValidate}}})
	if p.Ceiling != discov1.TierValidate || !p.RequireControls || p.AutoPromoteTo != discov1.TierValidate || p.Threshold != 0.8 {
		t.Fatalf("policy = %+v", p)
	}
	p = PolicyFor(project(discov1.TierExplore, 0.8, true), &discov1.Campaign{Spec: discov1.CampaignSpec{
		Governance: discov1.CampaignGovernance{PromotionCeiling: discov1.TierPublish}}})
	if p.Ceiling != discov1.TierExplore {
		t.Fatalf("a campaign raised the project's ceiling: %+v", p)
	}
	p = PolicyFor(&discov1.Project{}, nil)
	if p.Ceiling != DefaultCeiling || p.Threshold != DefaultThreshold || !p.RequireControls {
		t.Fatalf("defaults = %+v", p)
	}
}

// TestPolicyForIsTheStricterOfProjectAndCampaign: a campaign can narrow its project's
// governance but never widen it (issue 17).
func TestPolicyForIsTheStricterOfProjectAndCampaign(t *testing.T) {
	camp := func(ceiling discov1.Tier, controls *bool) *discov1.Campaign {
		return &discov1.Campaign{Spec: discov1.CampaignSpec{Governance: discov1.CampaignGovernance{PromotionCeiling: ceiling, RequireNegativeControls: controls}}}
	}
	cases := []struct {
		name         string
		project      *discov1.Project
		campaign     *discov1.Campaign
		ceiling      discov1.Tier
		threshold    float64
		wantControls bool
	}{
		{"campaign cannot switch controls off", project(discov1.TierPublish, 0.9, true), camp("", ptr.To(false)), discov1.TierPublish, 0.9, true},
		{"campaign can switch controls on", project(discov1.TierPublish, 0.9, false), camp("", ptr.To(true)), discov1.TierPublish, 0.9, true},
		{"campaign leaves controls to the project", project(discov1.TierPublish, 0.9, false), camp("", nil), discov1.TierPublish, 0.9, false},
		{"both off", project(discov1.TierPublish, 0.9, false), camp("", ptr.To(false)), discov1.TierPublish, 0.9, false},
		{"campaign cannot raise the ceiling", project(discov1.TierValidate, 0.5, true), camp(discov1.TierPublish, nil), discov1.TierValidate, 0.5, true},
		{"campaign lowers the ceiling", project(discov1.TierPublish, 0.5, true), camp(discov1.TierExplore, nil), discov1.TierExplore, 0.5, true},
		{"no campaign", project(discov1.TierPublish, 0.2, false), nil, discov1.TierPublish, 0.2, false},
	}
	for _, c := range cases {
		p := PolicyFor(c.project, c.campaign)
		if p.Ceiling != c.ceiling || p.Threshold != c.threshold || p.RequireControls != c.wantControls {
			t.Errorf("%s: policy = %+v", c.name, p)
		}
		// A claim whose controls failed is refused whenever either side requires them.
		if e := Evaluate(p, 0.99, false, discov1.TierExplore); (e.Constraint == ConstraintControls) != c.wantControls {
			t.Errorf("%s: evaluation %+v", c.name, e)
		}
	}
}

func TestEvaluateOrderOfConstraints(t *testing.T) {
	pol := Policy{Ceiling: discov1.TierValidate, Threshold: 0.7, RequireControls: true}
	cases := []struct {
		score    float64
		controls bool
		target   discov1.Tier
		want     string
	}{
		{0.9, true, discov1.TierValidate, ""},
		{0.9, true, discov1.TierPublish, ConstraintCeiling},
		{0.1, false, discov1.TierPublish, ConstraintCeiling},
		{0.5, true, discov1.TierValidate, ConstraintThreshold},
		{0.5, false, discov1.TierValidate, ConstraintThreshold},
		{0.9, false, discov1.TierValidate, ConstraintControls},
		{0.7, true, discov1.TierValidate, ""},
	}
	for _, c := range cases {
		e := Evaluate(pol, c.score, c.controls, c.target)
		if e.Constraint != c.want || e.Allowed() != (c.want == "") {
			t.Errorf("Evaluate(%v, %v, %s) = %q, want %q", c.score, c.controls, c.target, e.Constraint, c.want)
		}
	}
	pol.RequireControls = false
	if e := Evaluate(pol, 0.9, false, discov1.TierValidate); !e.Allowed() || e.NegativeControls != "not_required" {
		t.Errorf("controls not required: %+v", e)
	}
}
