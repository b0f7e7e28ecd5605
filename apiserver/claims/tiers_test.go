package claims

import (
	"errors"
	"fmt"
	"testing"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/internal/governance"
	"github.com/discolab/disco/internal/promotion"
)

// tierMoveError is tested without HTTP: how each refusal of internal/promotion's
// Governor reaches the client.
func TestTierMoveErrorWordsEachRefusal(t *testing.T) {
	const claim = "clm_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	for _, c := range []struct {
		name    string
		err     error
		status  int
		code    string
		details map[string]any
	}{
		{"wrong direction", &promotion.WrongDirection{Operation: "promote", From: discov1.TierPublish, To: discov1.TierExplore},
			409, apierror.CodeConflict, map[string]any{"tier": "publish", "requested_tier": "explore"}},
		{"above the ceiling", &promotion.Refused{To: discov1.TierPublish, Evaluation: governance.Evaluation{
			Constraint: governance.ConstraintCeiling, PolicyCeiling: discov1.TierValidate, TruthDialScore: 0.9}},
			403, "governance_policy_violation", map[string]any{"policy_ceiling": "validate", "constraint": governance.ConstraintCeiling}},
		{"below the threshold", &promotion.Refused{To: discov1.TierValidate, Evaluation: governance.Evaluation{
			Constraint: governance.ConstraintThreshold, TruthDialScore: 0.5, Threshold: 0.7}},
			403, "truth_dial_threshold_not_met", map[string]any{"truth_dial_threshold": 0.7, "truth_dial_score": 0.5}},
		{"controls required", &promotion.Refused{To: discov1.TierValidate, Evaluation: governance.Evaluation{
			Constraint: governance.ConstraintControls}},
			403, "negative_controls_required", map[string]any{"constraint": governance.ConstraintControls}},
		{"a concurrent change", fmt.Errorf("move: %w", promotion.ErrConflict), 409, apierror.CodeConflict, map[string]any{"resource": "claim"}},
	} {
		var ae *apierror.Error
		if !errors.As(tierMoveError(c.err, claim), &ae) || ae.GetStatus() != c.status || ae.Body.Code != c.code {
			t.Errorf("%s: %v, want %d %s", c.name, ae, c.status, c.code)
			continue
		}
		if ae.Body.Details["claim_id"] != claim {
			t.Errorf("%s: details %v lack the claim", c.name, ae.Body.Details)
		}
		for k, v := range c.details {
			if ae.Body.Details[k] != v {
				t.Errorf("%s: details[%s] = %v, want %v", c.name, k, ae.Body.Details[k], v)
			}
		}
	}
}
