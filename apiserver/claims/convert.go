package claims

import (
	"bytes"

	"github.com/discolab/disco/apiserver/resource"

	"encoding/json"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/pagination"
	"github.com/discolab/disco/internal/ids"
)

type ClaimScope struct {
	Variables            []string `json:"variables"`
	Domain               string   `json:"domain"`
	ConstraintsSatisfied []string `json:"constraints_satisfied,omitempty"`
}

type Claim struct {
	ID            string     `json:"id" example:"clm_abcdefghijklmnopqrstuvwxyz"`
	Type          string     `json:"type" enum:"law,causal,conservation"`
	Tier          string     `json:"tier" enum:"explore,validate,publish"`
	Summary       string     `json:"summary"`
	Score         float64    `json:"score" minimum:"0" maximum:"1" doc:"Truth Dial score."`
	Scope         ClaimScope `json:"scope"`
	Evidence      Evidence   `json:"evidence"` // described by Evidence.Schema: a doc tag here would replace it
	LedgerEntryID string     `json:"ledger_entry_id"`
	RunID         string     `json:"run_id"`
	CampaignID    string     `json:"campaign_id"`
	ProjectID     string     `json:"project_id"`
	CreatedAt     time.Time  `json:"created_at"`
	// Law and conservation claims.
	Expression string   `json:"expression,omitempty"`
	Target     string   `json:"target,omitempty" doc:"Law claims: the variable the expression explains, a column or dx/dt for an equation of motion."`
	Variables  []string `json:"variables,omitempty"`
	// Causal claims.
	Cause               string   `json:"cause,omitempty"`
	Effect              string   `json:"effect,omitempty"`
	Direction           string   `json:"direction,omitempty"`
	TemporalScope       string   `json:"temporal_scope,omitempty"`
	InterventionMarkers []string `json:"intervention_markers,omitempty"`
	// The last tier move.
	PreviousTier string     `json:"previous_tier,omitempty"`
	PromotedAt   *time.Time `json:"promoted_at,omitempty"`
	PromotedBy   string     `json:"promoted_by,omitempty"`
}

// evidenceOf returns a claim's evidence with negative_controls_passed always present; only
// evidence stored without it (objects not written by the engine) is decoded to add it.
func evidenceOf(c *discov1.Claim) Evidence {
	var raw []byte
	if c.Spec.Evidence != nil {
		raw = bytes.TrimSpace(c.Spec.Evidence.Raw)
	}
	if len(raw) > 0 && raw[0] == '{' && bytes.Contains(raw, []byte(`"negative_controls_passed"`)) {
		return Evidence(raw)
	}
	evidence := map[string]any{}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &evidence)
	}
	if _, ok := evidence["negative_controls_passed"]; !ok {
		evidence["negative_controls_passed"] = c.Spec.NegativeControlsPassed
	}
	out, _ := json.Marshal(evidence)
	return Evidence(out)
}

// Of is the wire form of a claim.
func Of(c *discov1.Claim) Claim {
	evidence := evidenceOf(c)
	out := Claim{
		ID:      ids.FromName(c.Name),
		Type:    string(c.Spec.Type),
		Tier:    string(c.Spec.Tier),
		Summary: c.Spec.Summary,
		Score:   c.Spec.Score,
		Scope: ClaimScope{
			Variables:            resource.NonNil(c.Spec.Scope.Variables),
			Domain:               c.Spec.Scope.Domain,
			ConstraintsSatisfied: c.Spec.Scope.ConstraintsSatisfied,
		},
		Evidence:            evidence,
		LedgerEntryID:       c.Spec.LedgerEntryID,
		RunID:               c.Spec.RunID,
		CampaignID:          c.Spec.CampaignID,
		ProjectID:           c.Spec.ProjectID,
		CreatedAt:           resource.UTC(c.CreationTimestamp),
		Expression:          c.Spec.Expression,
		Target:              c.Spec.Target,
		Variables:           c.Spec.Variables,
		Cause:               c.Spec.Cause,
		Effect:              c.Spec.Effect,
		Direction:           c.Spec.Direction,
		TemporalScope:       c.Spec.TemporalScope,
		InterventionMarkers: c.Spec.InterventionMarkers,
		PreviousTier:        string(c.Status.PreviousTier),
		PromotedAt:          resource.UTCPtr(c.Status.PromotedAt),
		PromotedBy:          c.Status.PromotedBy,
	}
	if out.Tier == "" {
		out.Tier = string(discov1.TierExplore)
	}
	return out
}

// Sort orders claim lists, the facade's and its claim index's.
var Sort = pagination.Spec[*discov1.Claim]{
	Name: "claims",
	Fields: map[string]func(*discov1.Claim) pagination.Key{
		"created_at": func(c *discov1.Claim) pagination.Key { return resource.CreatedKey(c) },
		"score":      func(c *discov1.Claim) pagination.Key { return pagination.Number(c.Spec.Score) },
		"tier":       func(c *discov1.Claim) pagination.Key { return pagination.Number(float64(c.Spec.Tier.Rank())) },
		"type":       func(c *discov1.Claim) pagination.Key { return pagination.String(string(c.Spec.Type)) },
	},
	DefaultSort: "created_at", DefaultOrder: pagination.Desc,
	ID: func(c *discov1.Claim) string { return c.Name },
}
