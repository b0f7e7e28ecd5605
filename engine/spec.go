package engine

import (
	"fmt"
	"strings"
	"time"
)

// Negative control names, as they appear on the wire.
const (
	ControlShuffledTarget = "shuffled_target"
	ControlNoiseFeature   = "noise_feature"
	ControlTimeShift      = "time_shift"
	ControlPlaceboCause   = "placebo_cause"
)

// Error codes carried by SpecError.
const (
	CodeModeInvalid       = "mode_invalid"
	CodeParameterInvalid  = "parameter_invalid"
	CodeConstraintInvalid = "constraint_invalid"
)

// DefaultMaxComplexity bounds symbolic expressions when the run does not.
const DefaultMaxComplexity = 20

// Spec is everything a discovery run is asked to do.
type Spec struct {
	Mode Mode `json:"mode"`
	// Targets are the variables to explain; Parameters.TargetVariables is
	// used when Targets is empty. Causal runs ignore targets.
	Targets          []string   `json:"targets,omitempty"`
	Parameters       Parameters `json:"parameters"`
	NegativeControls []string   `json:"negative_controls,omitempty"`
	// EvidenceThreshold is echoed into the summary: how many claims reach
	// it. It does not change what is discovered.
	EvidenceThreshold float64       `json:"evidence_threshold,omitempty"`
	Seed              int64         `json:"seed,omitempty"`
	TimeLimit         time.Duration `json:"time_limit,omitempty"`
}

// Parameters are the run parameters of the REST contract.
type Parameters struct {
	TargetVariables []string `json:"target_variables,omitempty"`
	Constraints     []string `json:"constraints,omitempty"`
	MaxComplexity   int      `json:"max_complexity,omitempty"`
	SymbolicPrior   string   `json:"symbolic_prior,omitempty"`
	NeuralBackbone  string   `json:"neural_backbone,omitempty"`
	Epochs          int      `json:"epochs,omitempty"`
	CrossValidate   bool     `json:"cross_validate,omitempty"`
}

// SpecError is a problem with a Spec that the submitter can fix; the facade
// answers it with 422 and the Code.
type SpecError struct {
	Code    string
	Field   string
	Message string
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Code, e.Field, e.Message)
}

func specErrorf(code, field, format string, args ...any) *SpecError {
	return &SpecError{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

var controlNames = []string{ControlShuffledTarget, ControlNoiseFeature, ControlTimeShift, ControlPlaceboCause}

// targets returns the requested target variables.
func (s Spec) targets() []string {
	if len(s.Targets) > 0 {
		return s.Targets
	}
	return s.Parameters.TargetVariables
}

// maxComplexity returns the complexity bound in effect.
func (s Spec) maxComplexity() int {
	if s.Parameters.MaxComplexity > 0 {
		return s.Parameters.MaxComplexity
	}
	return DefaultMaxComplexity
}

// controls returns the negative controls to run: the requested ones, or by
// default shuffled_target and noise_feature (laws) plus placebo_cause
// (causal) plus time_shift whenever a time column is declared.
func (s Spec) controls(c *Constraints) []string {
	if len(s.NegativeControls) > 0 {
		return s.NegativeControls
	}
	out := []string{ControlShuffledTarget, ControlNoiseFeature}
	if s.Mode == ModeCausal {
		out = append(out, ControlPlaceboCause)
	}
	if c.Time != "" {
		out = append(out, ControlTimeShift)
	}
	return out
}

func joinQuoted[S ~string](v []S) string {
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
