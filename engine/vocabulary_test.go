package engine

import (
	"encoding/json"
	"testing"
)

// The typed vocabulary keeps the wire strings of the REST contract
// (/work/shared/spec/discovery-api.md: run modes, pipeline stage names and
// statuses, claim types) and of results.json (artifact kinds).
func TestVocabularyWireValues(t *testing.T) {
	for _, c := range []struct {
		got  any
		want string
	}{
		{ModeSymbolic, "symbolic"}, {ModeNeural, "neural"}, {ModeNeuroSymbolic, "neuro_symbolic"}, {ModeCausal, "causal"},
		{StageDataValidation, "data_validation"}, {StageFeatureExtraction, "feature_extraction"},
		{StageNeuralPretraining, "neural_pretraining"}, {StageSymbolic, "symbolic_regression"},
		{StageCausal, "causal_discovery"}, {StageNegativeControls, "negative_controls"},
		{StageClaimGeneration, "claim_generation"},
		{StatusPending, "pending"}, {StatusRunning, "running"}, {StatusCompleted, "completed"},
		{StatusSkipped, "skipped"}, {StatusFailed, "failed"},
		{ClaimLaw, "law"}, {ClaimCausal, "causal"}, {ClaimConservation, "conservation"},
		{KindPlot, "plot"}, {KindModel, "model"}, {KindTable, "table"}, {KindReport, "report"},
	} {
		b, err := json.Marshal(c.got)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != `"`+c.want+`"` {
			t.Errorf("%T %v marshals to %s, want %q", c.got, c.got, b, c.want)
		}
	}
	if got := StageNames("causal"); got[3] != "causal_discovery" || len(got) != 6 {
		t.Errorf("StageNames(causal) = %v", got)
	}
	var s Spec
	if err := json.Unmarshal([]byte(`{"mode":"neuro_symbolic"}`), &s); err != nil || s.Mode != ModeNeuroSymbolic {
		t.Errorf("spec mode %q, err %v", s.Mode, err)
	}
}
