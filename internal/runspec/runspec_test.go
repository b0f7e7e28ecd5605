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

// A dataset's units reach the engine as a units: constraint; a run's own units: wins whole,
// and the run's constraints are never written through.
func TestForDatasetUsesTheDatasetsUnits(t *testing.T) {
	ds := &discov1.Dataset{Spec: discov1.DatasetSpec{Units: map[string]string{"F": "N", "m": "kg", "a": "m/s^2"}}}
	own := make([]string, 1, 4)
	own[0] = "max_depth:4"
	rs := discov1.RunSpec{Mode: "symbolic", Parameters: discov1.RunParameters{Constraints: own}}
	got := ForDataset(rs, ds, 0).Parameters.Constraints
	if want := []string{"max_depth:4", "units:F=N,a=m/s^2,m=kg"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("constraints = %q, want %q", got, want)
	}
	if own[:2][1] != "" {
		t.Fatalf("the run's constraints were written through: %q", own[:2])
	}
	c, err := engine.ParseConstraints(got)
	if err != nil || len(c.Units) != 3 {
		t.Fatalf("the engine parses %q to %+v, %v", got, c, err)
	}

	rs.Parameters.Constraints = []string{"units:F=kg*m/s^2"}
	if got := ForDataset(rs, ds, 0).Parameters.Constraints; !reflect.DeepEqual(got, rs.Parameters.Constraints) {
		t.Fatalf("with the run's own units: constraints = %q, want the run's alone", got)
	}
	rs.Parameters.Constraints = nil
	if got := ForDataset(rs, &discov1.Dataset{}, 0).Parameters.Constraints; got != nil {
		t.Fatalf("a dataset without units gave constraints %q", got)
	}
}
