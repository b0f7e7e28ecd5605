package engine

import "math"

// EstimateComputeUnits estimates what a run costs, for budgets. One unit is
// roughly one second of one core. The formula is
//
//	units = ceil(rows * cols / 1000 * modeFactor * targets * cv) + controls
//
// with cols the number of columns the run reads (at least 1), modeFactor 4
// (symbolic), 2 * epochs/200 (neural, epochs default 200), 6 + 2*epochs/200
// (neuro_symbolic) and cols/2 (causal, conditional-independence tests grow
// with the number of variables), targets the number of targets (at least
// 1), cv 5 when cross_validate is set and 1 otherwise, and controls 1 per
// requested negative control (2 when none are named, the defaults). The
// result is at least 1.
func EstimateComputeUnits(rows, cols int, spec Spec) int {
	if rows < 1 {
		rows = 1
	}
	if cols < 1 {
		cols = 1
	}
	epochs := float64(spec.Parameters.Epochs)
	if epochs <= 0 {
		epochs = defaultEpochs
	}
	var factor float64
	switch spec.Mode {
	case ModeNeural:
		factor = 2 * epochs / defaultEpochs
	case ModeNeuroSymbolic:
		factor = 6 + 2*epochs/defaultEpochs
	case ModeCausal:
		factor = math.Max(1, float64(cols)/2)
	default:
		factor = 4
	}
	targets := len(spec.targets())
	if targets < 1 || spec.Mode == ModeCausal {
		targets = 1
	}
	cv := 1.0
	if spec.Parameters.CrossValidate {
		cv = 5
	}
	controlUnits := len(spec.NegativeControls)
	if controlUnits == 0 {
		controlUnits = 2
	}
	units := int(math.Ceil(float64(rows)*float64(cols)/1000*factor*float64(targets)*cv)) + controlUnits
	if units < 1 {
		units = 1
	}
	return units
}
