package runspec

import (
	"reflect"
	"testing"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine"
)

// Every field a run spec carries reaches the engine, and unset optional fields stay zero.
func TestEngineCarriesEveryField(t *testing.T) {
	mc, ep, th := int32(12), int32(300), 0.8
	rs := discov1.RunSpec{
		Mode: "symbolic", Seed: 7,
		Parameters: discov1.RunParameters{TargetVariables: []string{"y"}, Constraints: []string{"max_depth:4"},
			MaxComplexity: &mc, SymbolicPrior: "physics", NeuralBackbone: "mlp-2x64", Epochs: &ep, CrossValidate: true},
		Governance: discov1.RunGovernance{NegativeControls: []string{"shuffled_target"}, EvidenceThreshold: &th},
	}
	want := engine.Spec{Mode: "symbolic", Targets: []string{"y"}, Seed: 7, TimeLimit: time.Minute,
		Parameters: engine.Parameters{TargetVariables: []string{"y"}, Constraints: []string{"max_depth:4"}, MaxComplexity: 12,
			SymbolicPrior: "physics", NeuralBackbone: "mlp-2x64", Epochs: 300, CrossValidate: true},
		NegativeControls: []string{"shuffled_target"}, EvidenceThreshold: 0.8}
	if got := Engine(rs, time.Minute); !reflect.DeepEqual(got, want) {
		t.Fatalf("Engine =\n%+v\nwant\n%+v", got, want)
	}
	if got := Engine(discov1.RunSpec{Mode: "causal"}, 0); got.Parameters.Epochs != 0 || got.Parameters.MaxComplexity != 0 || got.EvidenceThreshold != 0 {
		t.Fatalf("unset fields: %+v", got)
	}
}
