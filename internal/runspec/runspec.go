// Package runspec translates a Run's spec into the engine's, once for both places that
// need it: the facade validates and prices a submission with it, and the executor runs it.
package runspec

import (
	"slices"
	"time"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/internal/datasetunits"
)

// DefaultTimeLimit bounds a run that names none. The executor runs the engine under it,
// and the facade caps a run's compute-unit estimate by it.
const DefaultTimeLimit = 10 * time.Minute

// Engine is the engine spec of a Run spec, with the given time limit (0 for none).
func Engine(rs discov1.RunSpec, timeLimit time.Duration) engine.Spec {
	p, g := rs.Parameters, rs.Governance
	spec := engine.Spec{
		Mode:    engine.Mode(rs.Mode),
		Targets: p.TargetVariables,
		Parameters: engine.Parameters{
			TargetVariables: p.TargetVariables,
			Constraints:     p.Constraints,
			SymbolicPrior:   p.SymbolicPrior,
			NeuralBackbone:  p.NeuralBackbone,
			CrossValidate:   p.CrossValidate,
		},
		NegativeControls: g.NegativeControls,
		Seed:             rs.Seed,
		TimeLimit:        timeLimit,
	}
	if p.MaxComplexity != nil {
		spec.Parameters.MaxComplexity = int(*p.MaxComplexity)
	}
	if p.Epochs != nil {
		spec.Parameters.Epochs = int(*p.Epochs)
	}
	if g.EvidenceThreshold != nil {
		spec.EvidenceThreshold = *g.EvidenceThreshold
	}
	return spec
}

// ForDataset is Engine for a run on ds. The units ds declares (spec.units) are used as if
// the run gave them as a units: constraint, unless it gives its own units: constraint,
// which wins whole: the two are not merged (issue 18 item 2).
func ForDataset(rs discov1.RunSpec, ds *discov1.Dataset, timeLimit time.Duration) engine.Spec {
	spec := Engine(rs, timeLimit)
	if c := datasetunits.Constraint(ds.Spec.Units); c != "" && !datasetunits.HasConstraint(rs.Parameters.Constraints) {
		// A new slice: the run's own constraints are never written through.
		spec.Parameters.Constraints = append(slices.Clone(rs.Parameters.Constraints), c)
	}
	return spec
}

// Estimate is the compute units a run is expected to use on a dataset of rows x cols, priced
// at the default time limit (a run cannot use more time than its limit, whatever its epochs
// ask for). The facade reserves it at submission and the run admission webhook sets it on
// Runs created through the Kubernetes API, so both reserve alike.
func Estimate(rs discov1.RunSpec, rows, cols int) int64 {
	return int64(engine.EstimateComputeUnits(rows, cols, Engine(rs, DefaultTimeLimit)))
}
