package controls

import "math"

// Weights of the Truth Dial score components; they sum to one.
const (
	WeightFit       = 0.40
	WeightControls  = 0.30
	WeightStability = 0.20
	WeightParsimony = 0.10
	// FailedControlCap bounds the score of a claim that failed any control.
	FailedControlCap = 0.5
)

// Components are the inputs of the Truth Dial score, each in [0, 1] except
// Complexity and MaxComplexity.
type Components struct {
	// Fit is the held-out R² (law), causal confidence (causal) or
	// 1 - relative variation / tolerance (conservation).
	Fit float64
	// Controls are the negative controls that ran for the claim.
	Controls map[string]Result
	// Stability is the fraction of bootstrap refits reproducing the claim.
	Stability float64
	// Complexity of the claim's expression (1 for a single causal edge).
	Complexity    int
	MaxComplexity int
	// Undecided is set when evidence the claim stands on (a control, or
	// the refits behind its stability) was not gathered, as when the run's
	// time limit expired first: the score is capped as for a failed control.
	Undecided bool
}

// Parsimony is max(0, 1 - (complexity-1)/maxComplexity); 1 for the simplest
// possible claim.
func Parsimony(complexity, maxComplexity int) float64 {
	if maxComplexity <= 0 {
		maxComplexity = 30
	}
	if complexity < 1 {
		complexity = 1
	}
	return clamp01(1 - float64(complexity-1)/float64(maxComplexity))
}

// PassedFraction is the fraction of controls that passed; 0 with none.
func PassedFraction(results map[string]Result) float64 {
	if len(results) == 0 {
		return 0
	}
	passed := 0
	for _, r := range results {
		if r.Passed {
			passed++
		}
	}
	return float64(passed) / float64(len(results))
}

// AllPassed reports whether at least one control ran and all of them passed.
func AllPassed(results map[string]Result) bool {
	return len(results) > 0 && PassedFraction(results) == 1
}

// Score is the Truth Dial score in [0, 1]:
//
//	0.40*fit + 0.30*controls + 0.20*stability + 0.10*parsimony,
//
// capped at 0.5 when a control failed (or none ran), or when the evidence
// is undecided.
func Score(c Components) float64 {
	s := WeightFit*clamp01(c.Fit) +
		WeightControls*PassedFraction(c.Controls) +
		WeightStability*clamp01(c.Stability) +
		WeightParsimony*Parsimony(c.Complexity, c.MaxComplexity)
	if !AllPassed(c.Controls) || c.Undecided {
		s = math.Min(s, FailedControlCap)
	}
	return math.Round(clamp01(s)*1e4) / 1e4
}

func clamp01(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return math.Max(0, math.Min(1, v))
}
