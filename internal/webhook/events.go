package webhook

import (
	"fmt"
	"slices"
	"strings"
)

// Event types a registration may subscribe to.
const (
	RunCompleted    = "run.completed"
	RunFailed       = "run.failed"
	ClaimPromoted   = "claim.promoted"
	ClaimCreated    = "claim.created"
	DatasetProfiled = "dataset.profiled"
	BudgetExhausted = "budget.exhausted"
)

// EventTypes lists every event type, in the order of the API contract.
var EventTypes = []string{RunCompleted, RunFailed, ClaimPromoted, ClaimCreated, DatasetProfiled, BudgetExhausted}

// ValidEventType reports whether t is one of EventTypes.
func ValidEventType(t string) bool {
	return slices.Contains(EventTypes, t)
}

// requiredData names the data keys each event type must carry. run.completed is
// fixed by the API contract and claim.created by DESIGN.md; the others carry at
// least the id of what they name, so a receiver can always fetch the resource.
// project_id is added by Publish itself.
var requiredData = map[string][]string{
	RunCompleted:    {"run_id", "project_id", "campaign_id", "mode", "status", "claims_count", "duration_ms"},
	RunFailed:       {"run_id", "project_id", "status"},
	ClaimPromoted:   {"claim_id", "project_id", "tier"},
	ClaimCreated:    {"claim_id", "run_id", "project_id", "type", "tier", "score"},
	DatasetProfiled: {"dataset_id", "project_id", "status"},
	BudgetExhausted: {"campaign_id", "project_id"},
}

// checkData refuses data lacking a key its event type promises to receivers:
// catching it at publish time beats a receiver discovering it in production.
func checkData(eventType string, data map[string]any) error {
	var missing []string
	for _, k := range requiredData[eventType] {
		if _, ok := data[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("webhook: %s data lacks %s", eventType, strings.Join(missing, ", "))
	}
	return nil
}
