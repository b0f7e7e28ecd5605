// Package governance holds the promotion rules of disco in one place: the facade applies
// them to a user's promotion request and the controllers to a campaign's auto-promotion, so
// both decide alike.
package governance

import (
	"k8s.io/utils/ptr"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// Defaults when a project's settings leave a rule unset (the CRD schema defaults them too).
const (
	DefaultCeiling   = discov1.TierValidate
	DefaultThreshold = 0.7
)

// Policy is the governance in force for one claim.
type Policy struct {
	// Ceiling is the effective ceiling: the lower of the project's and the campaign's.
	Ceiling         discov1.Tier
	ProjectCeiling  discov1.Tier
	CampaignCeiling discov1.Tier // "" when the campaign sets none
	// Threshold is the project's Truth Dial threshold (a campaign sets none).
	Threshold float64
	// RequireControls is true when the project or the campaign requires negative controls.
	RequireControls bool
	AutoPromoteTo   discov1.Tier // "" when the campaign sets none
}

// PolicyFor combines a project's governance with its campaign's (campaign may be nil).
// The combination is the stricter of the two on every rule (issue 17): the lower
// ceiling, the higher threshold, and negative controls required when either requires
// them. A campaign can narrow its project's governance, never widen it.
func PolicyFor(project *discov1.Project, campaign *discov1.Campaign) Policy {
	g := project.Spec.Settings.Governance
	p := Policy{
		ProjectCeiling:  g.PromotionCeiling,
		Threshold:       ptr.Deref(g.TruthDialThreshold, DefaultThreshold),
		RequireControls: ptr.Deref(g.RequireNegativeControls, true),
	}
	if p.ProjectCeiling == "" {
		p.ProjectCeiling = DefaultCeiling
	}
	p.Ceiling = p.ProjectCeiling
	if campaign != nil {
		cg := campaign.Spec.Governance
		if cg.PromotionCeiling != "" {
			p.CampaignCeiling = cg.PromotionCeiling
			if cg.PromotionCeiling.Rank() < p.Ceiling.Rank() {
				p.Ceiling = cg.PromotionCeiling
			}
		}
		if ptr.Deref(cg.RequireNegativeControls, false) {
			p.RequireControls = true
		}
		p.AutoPromoteTo = cg.AutoPromoteTo
	}
	return p
}

// Constraint names, as in details.constraint of the contract's governance errors.
const (
	ConstraintCeiling   = "promotion_ceiling_exceeded"
	ConstraintThreshold = "truth_dial_threshold"
	ConstraintControls  = "negative_controls"
)

// Evaluation is the outcome of checking one promotion.
type Evaluation struct {
	TruthDialScore   float64
	Threshold        float64
	ThresholdMet     bool
	NegativeControls string // passed | failed | not_required
	PolicyCeiling    discov1.Tier
	WithinCeiling    bool
	// Constraint is the first rule that refuses the promotion, "" when it is allowed. The
	// order is the contract's: ceiling, then threshold, then controls.
	Constraint string
}

// Allowed reports whether the promotion passes every check.
func (e Evaluation) Allowed() bool { return e.Constraint == "" }

// Details is the governance_evaluation object of ledger entries.
func (e Evaluation) Details() map[string]any {
	return map[string]any{
		"policy_ceiling": string(e.PolicyCeiling), "within_ceiling": e.WithinCeiling,
		"truth_dial_threshold": e.Threshold, "truth_dial_threshold_met": e.ThresholdMet,
		"truth_dial_score": e.TruthDialScore, "negative_controls": e.NegativeControls,
	}
}

// Evaluate checks a promotion of a claim with the given score and control outcome to target.
func Evaluate(p Policy, score float64, controlsPassed bool, target discov1.Tier) Evaluation {
	e := Evaluation{
		TruthDialScore:   score,
		Threshold:        p.Threshold,
		ThresholdMet:     score >= p.Threshold,
		NegativeControls: "not_required",
		PolicyCeiling:    p.Ceiling,
		WithinCeiling:    target.Rank() <= p.Ceiling.Rank(),
	}
	if controlsPassed {
		e.NegativeControls = "passed"
	} else if p.RequireControls {
		e.NegativeControls = "failed"
	}
	switch {
	case !e.WithinCeiling:
		e.Constraint = ConstraintCeiling
	case !e.ThresholdMet:
		e.Constraint = ConstraintThreshold
	case e.NegativeControls == "failed":
		e.Constraint = ConstraintControls
	}
	return e
}
