package apiserver

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/discolab/disco/apiserver/apierror"
)

// The checks below mirror the data-independent rules of the engine (engine.Spec's
// constraint grammar, backbone and prior names, the compute-unit estimate). The facade
// keeps its own copy rather than importing engine: engine pulls in every discovery
// algorithm, and a submission must be refused or priced without them. The engine's
// data_validation stage checks everything again, with the data, so a drift here can
// only let a bad run through to fail early, never reject a good one silently.

// Negative controls a run may ask for (DESIGN.md).
var negativeControlNames = []string{"shuffled_target", "noise_feature", "time_shift", "placebo_cause"}

var knownOperators = []string{"+", "-", "*", "/", "^", "sin", "cos", "tan", "exp", "log", "sqrt", "abs", "tanh"}

var knownPriors = []string{"default", "physics", "polynomial", "trigonometric"}

// runCheck is a submission as the checks see it.
type runCheck struct {
	Mode             string
	Targets          []string
	Constraints      []string
	NeuralBackbone   string
	SymbolicPrior    string
	Epochs           int
	CrossValidate    bool
	NegativeControls []string
}

// constraints is the parsed form of the constraint strings.
type constraints struct {
	include, exclude  []string
	trajectory, time_ string
}

func constraintInvalid(format string, args ...any) *apiError {
	msg := fmt.Sprintf(format, args...)
	return apierror.New(http.StatusUnprocessableEntity, apierror.CodeConstraintInvalid, "constraints: %s", msg).
		With("field", "parameters.constraints").With("reason", msg)
}

func parameterInvalid(field, format string, args ...any) *apiError {
	msg := fmt.Sprintf(format, args...)
	return apierror.New(http.StatusUnprocessableEntity, apierror.CodeParameterInvalid, "%s: %s", field, msg).
		With("field", field).With("reason", msg)
}

func splitConstraintList(v string) []string {
	var out []string
	for _, s := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// parseConstraints checks the "key:value" grammar of run constraints.
func parseConstraints(raw []string) (*constraints, *apiError) {
	c := &constraints{}
	seen := map[string]bool{}
	for _, item := range raw {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, value, ok := strings.Cut(item, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || value == "" {
			return nil, constraintInvalid("%q is not of the form key:value", item)
		}
		if seen[key] {
			return nil, constraintInvalid("%q is given twice", key)
		}
		seen[key] = true
		switch key {
		case "operators":
			for _, op := range splitConstraintList(value) {
				if !slices.Contains(knownOperators, op) {
					return nil, constraintInvalid("unknown operator %q (known: %s)", op, strings.Join(knownOperators, " "))
				}
			}
		case "exclude":
			c.exclude = splitConstraintList(value)
		case "include":
			c.include = splitConstraintList(value)
		case "max_depth":
			if n, err := strconv.Atoi(value); err != nil || n < 1 || n > 20 {
				return nil, constraintInvalid("max_depth must be an integer in [1, 20], got %q", value)
			}
		case "max_lag":
			if n, err := strconv.Atoi(value); err != nil || n < 1 || n > 50 {
				return nil, constraintInvalid("max_lag must be an integer in [1, 50], got %q", value)
			}
		case "alpha":
			if a, err := strconv.ParseFloat(value, 64); err != nil || !(a > 0 && a < 1) {
				return nil, constraintInvalid("alpha must be a number in (0, 1), got %q", value)
			}
		case "trajectory":
			c.trajectory = value
		case "time":
			c.time_ = value
		default:
			return nil, constraintInvalid("unknown constraint key %q (known: operators, exclude, include, max_depth, trajectory, time, alpha, max_lag)", key)
		}
	}
	return c, nil
}

// checkBackbone accepts "mlp-<depth>x<width>" and "mlp-<width>-<width>-...", width
// 1..1024, depth 1..8.
func checkBackbone(s string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "mlp-")
	if !ok || rest == "" {
		return false
	}
	width := func(t string) bool { n, err := strconv.Atoi(t); return err == nil && n >= 1 && n <= 1024 }
	if d, w, rep := strings.Cut(rest, "x"); rep {
		n, err := strconv.Atoi(d)
		return err == nil && n >= 1 && n <= 8 && width(w)
	}
	parts := strings.Split(rest, "-")
	if len(parts) > 8 {
		return false
	}
	for _, p := range parts {
		if !width(p) {
			return false
		}
	}
	return true
}

// checkRunSpec refuses at submission what the engine would refuse without reading the
// data, including columns the dataset does not have when its profile lists them.
func checkRunSpec(rc runCheck, variables []string) *apiError {
	for _, c := range rc.NegativeControls {
		if !slices.Contains(negativeControlNames, c) {
			return apierror.Invalid("body.governance.negative_controls", "unknown negative control "+strconv.Quote(c)+"; known: "+strings.Join(negativeControlNames, ", "))
		}
	}
	cons, e := parseConstraints(rc.Constraints)
	if e != nil {
		return e
	}
	if b := rc.NeuralBackbone; b != "" && !checkBackbone(b) {
		return parameterInvalid("parameters.neural_backbone",
			`backbone %q not understood; accepted forms are "mlp-<depth>x<width>" (e.g. "mlp-2x64") or "mlp-<width>-<width>-..." with width 1..1024 and depth 1..8`, b)
	}
	if p := strings.ToLower(strings.TrimSpace(rc.SymbolicPrior)); p != "" && !slices.Contains(knownPriors, p) {
		return parameterInvalid("parameters.symbolic_prior", "unknown prior %q (known: %s)", rc.SymbolicPrior, strings.Join(knownPriors, ", "))
	}
	if slices.Contains(rc.NegativeControls, "time_shift") && cons.time_ == "" {
		return parameterInvalid("governance.negative_controls", "the time_shift control needs time-ordered rows: add the constraint time:<column>")
	}
	if len(variables) == 0 {
		return nil
	}
	for _, v := range rc.Targets {
		if !slices.Contains(variables, v) {
			return parameterInvalid("parameters.target_variables", "target variable %q is not a column of the dataset", v).With("variables", variables)
		}
	}
	cols := append(append(append([]string{}, cons.exclude...), cons.include...), cons.trajectory, cons.time_)
	for _, c := range cols {
		if c != "" && !slices.Contains(variables, c) {
			return constraintInvalid("column %q is not a column of the dataset", c)
		}
	}
	return nil
}

// estimateComputeUnits is engine.EstimateComputeUnits: one unit is roughly one core
// second;
//
//	units = ceil(rows * cols / 1000 * modeFactor * targets * cv) + controls
func estimateComputeUnits(rows, cols int, rc runCheck) int64 {
	rows, cols = max(rows, 1), max(cols, 1)
	const defaultEpochs = 200
	epochs := float64(rc.Epochs)
	if epochs <= 0 {
		epochs = defaultEpochs
	}
	var factor float64
	switch rc.Mode {
	case "neural":
		factor = 2 * epochs / defaultEpochs
	case "neuro_symbolic":
		factor = 6 + 2*epochs/defaultEpochs
	case "causal":
		factor = math.Max(1, float64(cols)/2)
	default:
		factor = 4
	}
	targets := len(rc.Targets)
	if targets < 1 || rc.Mode == "causal" {
		targets = 1
	}
	cv := 1.0
	if rc.CrossValidate {
		cv = 5
	}
	controls := len(rc.NegativeControls)
	if controls == 0 {
		controls = 2
	}
	return max(int64(math.Ceil(float64(rows)*float64(cols)/1000*factor*float64(targets)*cv))+int64(controls), 1)
}

// stageNames are the pipeline stages of a mode (engine.StageNames).
func stageNames(mode string) []string {
	search := "symbolic_regression"
	if mode == "causal" {
		search = "causal_discovery"
	}
	return []string{"data_validation", "feature_extraction", "neural_pretraining", search, "negative_controls", "claim_generation"}
}
