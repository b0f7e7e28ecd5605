package engine

import "math"

// Reference rates of the symbolic estimate on a 2-core machine. The
// measurements behind them are in test/bench/CALIBRATION.md#compute-units.
const (
	// symbolicGenerationsPerUnit: main-search generations per second, the
	// slow end of the Feynman benchmark's searches that ran their whole
	// default budget (test/bench/results/default-budget/ours-e0.json).
	symbolicGenerationsPerUnit = 60
	// symbolicCellsPerUnit: data cells (rows × columns) loaded, checked and
	// evaluated on all rows per second, from the same law found in the same
	// generations on 1,000 and on 100,000 rows (easy_1000_10 and
	// easy_100000_10 in test/bench/results/settle-front-vars/
	// irrelevant-columns/before.txt).
	symbolicCellsPerUnit = 500_000
)

// EstimateComputeUnits estimates what a run costs, for budgets. One unit is
// about one second of run time, the unit in which compute_units_used is
// counted. Every mode adds controls: 1 per requested negative control, 2
// when none are named (the defaults).
//
// Symbolic mode searches on at most a few hundred sampled rows, so its cost
// follows the generations, not the data:
//
//	symbolic = targets * (generations + refits) / 60 + rows * cols / 500000
//
// with generations the run's epochs (default 1,500; a search usually stops
// well before), refits the generations of the 4 bootstrap refits and, with
// cross_validate, the 5 fold refits (18 each), and 60 generations per second
// a slow 2-core machine's pace.
//
// The other modes work on every row:
//
//	units = ceil(rows * cols / 1000 * modeFactor * targets * cv) + controls
//
// with cols the number of columns the run reads (at least 1), modeFactor
// 2 * epochs/200 (neural, epochs default 200) and cols/2 (causal,
// conditional-independence tests grow with the number of variables),
// targets the number of targets (at least 1, and 1 in causal mode), and cv
// 5 when cross_validate is set and 1 otherwise.
//
// Neuro-symbolic mode trains the neural mode's surrogate and then runs the
// symbolic mode's search (default 1,500 generations; its epochs train the
// surrogate), so it costs the sum:
//
//	units = ceil(rows * cols / 1000 * 2 * epochs/200 * targets * cv + symbolic) + controls
//
// With a time limit set, no estimate exceeds it: the run stops there. The
// result is at least 1 (every run has a control).
func EstimateComputeUnits(rows, cols int, spec Spec) int {
	if rows < 1 {
		rows = 1
	}
	if cols < 1 {
		cols = 1
	}
	targets := len(spec.targets())
	if targets < 1 || spec.Mode == ModeCausal {
		targets = 1
	}
	controlUnits := len(spec.NegativeControls)
	if controlUnits == 0 {
		controlUnits = 2
	}
	cells := float64(rows) * float64(cols)
	surrogateOrGraph := func() float64 {
		return cells / 1000 * modeFactor(cols, spec) * float64(targets) * cvFactor(spec)
	}
	search := float64(targets)*symbolicGenerations(spec)/symbolicGenerationsPerUnit + cells/symbolicCellsPerUnit
	var work float64
	switch spec.Mode {
	case ModeNeural, ModeCausal:
		work = surrogateOrGraph()
	case ModeNeuroSymbolic:
		work = surrogateOrGraph() + search
	default: // symbolic, the engine's default mode
		work = search
	}
	units := int(math.Ceil(work)) + controlUnits
	if limit := int(math.Ceil(spec.TimeLimit.Seconds())); limit > 0 && units > limit {
		units = limit
	}
	return units
}

// symbolicGenerations is what a symbolic or neuro-symbolic run's searches
// may spend per target: the main search's budget and the refits'.
func symbolicGenerations(spec Spec) float64 {
	refits := bootstrapRounds
	if spec.Parameters.CrossValidate {
		refits += crossValidateK
	}
	return float64(searchGenerations(spec, effortFull) + refits*searchGenerations(spec, effortRefit))
}

// modeFactor is the per-cell cost factor of the modes that work on every
// row (see EstimateComputeUnits).
func modeFactor(cols int, spec Spec) float64 {
	epochs := float64(spec.Parameters.Epochs)
	if epochs <= 0 {
		epochs = defaultEpochs
	}
	if spec.Mode == ModeNeural || spec.Mode == ModeNeuroSymbolic {
		return 2 * epochs / defaultEpochs // the surrogate
	}
	return math.Max(1, float64(cols)/2) // causal
}

func cvFactor(spec Spec) float64 {
	if spec.Parameters.CrossValidate {
		return crossValidateK
	}
	return 1
}
