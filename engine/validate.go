package engine

import (
	"slices"
	"strings"

	"github.com/discolab/disco/engine/conservation"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/engine/dynamics"
	"github.com/discolab/disco/engine/neural"
	"github.com/discolab/disco/engine/symbolic"
)

// MinRows is the smallest dataset a run accepts: below it neither the
// held-out split nor the permutation controls mean anything.
const MinRows = 20

// plan is a validated Spec resolved against a dataset: what Discover runs.
type plan struct {
	spec        Spec
	constraints *Constraints
	targets     []string
	// features are the candidate inputs of law modes, or the variables of
	// a causal run.
	features  []string
	controls  []string
	operators []string
	hidden    []int
}

// Validate checks the spec against the dataset before anything runs, so a
// submission can be refused at once. Spec problems are *SpecError; dataset
// problems are *data.ValidationError.
func (s Spec) Validate(f *data.Frame) error {
	_, err := s.resolve(f)
	return err
}

// ValidateParameters checks what can be checked without the data: the mode,
// the constraint grammar, the parameter ranges, backbone and prior names, the
// negative control names and the time_shift requirement, and, when columns
// (the dataset's profiled variables) are given, that targets and constraint
// columns name columns of the dataset. A submission can be refused with it
// before any data is read; Validate checks everything again with the data.
// Problems are *SpecError.
func (s Spec) ValidateParameters(columns []string) error {
	if !validMode(s.Mode) {
		return specErrorf(CodeModeInvalid, "mode", "unknown mode %q (known: %s)", s.Mode, joinQuoted(modes))
	}
	c, err := ParseConstraints(s.Parameters.Constraints)
	if err != nil {
		return err
	}
	if err := s.checkParameters(&plan{spec: s, constraints: c}); err != nil {
		return err
	}
	if contains(s.NegativeControls, ControlTimeShift) && c.Time == "" {
		return specErrorf(CodeParameterInvalid, "negative_controls",
			"time_shift needs time-ordered rows: add the constraint time:<column>")
	}
	if err := s.checkDynamics(c, columns); err != nil {
		return err
	}
	if len(columns) == 0 {
		return nil
	}
	for _, t := range s.targets() {
		if !contains(columns, t) {
			return specErrorf(CodeParameterInvalid, "target_variables", "target %q is not a column of the dataset", t)
		}
	}
	for _, col := range c.columns() {
		if !contains(columns, col) {
			return constraintErr("column %q is not in the dataset", col)
		}
	}
	return nil
}

func (s Spec) resolve(f *data.Frame) (*plan, error) {
	if !validMode(s.Mode) {
		return nil, specErrorf(CodeModeInvalid, "mode", "unknown mode %q (known: %s)", s.Mode, joinQuoted(modes))
	}
	c, err := ParseConstraints(s.Parameters.Constraints)
	if err != nil {
		return nil, err
	}
	p := &plan{spec: s, constraints: c}
	if err := s.checkParameters(p); err != nil {
		return nil, err
	}
	if f == nil || f.Rows == 0 || len(f.Columns) == 0 {
		return nil, &data.ValidationError{Code: data.CodeDatasetEmpty, Message: "the dataset has no rows"}
	}
	if f.Rows < MinRows {
		return nil, &data.ValidationError{Code: data.CodeTooFewRows,
			Message: "a discovery run needs at least 20 rows"}
	}
	if err := s.checkDynamics(c, f.Names()); err != nil {
		return nil, err
	}
	for _, col := range c.columns() {
		if _, ok := f.Column(col); !ok {
			return nil, constraintErr("column %q is not in the dataset", col)
		}
	}
	if c.Time != "" {
		if col, _ := f.Column(c.Time); !col.DType.IsNumeric() {
			return nil, constraintErr("time column %q is not numeric (%s): name a column of numeric times in time:", c.Time, col.DType)
		}
	}
	if err := checkDynamicsData(c, f); err != nil {
		return nil, err
	}
	if err := p.resolveVariables(f); err != nil {
		return nil, err
	}
	if err := p.checkLibraries(); err != nil {
		return nil, err
	}
	for _, name := range p.controls {
		if name == ControlTimeShift && c.Time == "" {
			return nil, specErrorf(CodeParameterInvalid, "negative_controls",
				"time_shift needs time-ordered rows: add the constraint time:<column>")
		}
	}
	return p, p.checkValues(f)
}

// checkLibraries refuses, before anything runs, a run whose library
// searches cannot take its variables: the dynamics regression of a
// dynamics: run (more than 1,000 states and inputs), and the conservation
// search that follows the laws of a symbolic or neuro-symbolic run with
// trajectory:. Without this the conservation search would fail the run
// after its law search had spent its time.
func (p *plan) checkLibraries() error {
	c := p.constraints
	vars := len(p.features) + len(p.targets)
	if len(c.Dynamics) > 0 {
		if err := dynamics.CheckVariables(vars); err != nil {
			return constraintErr("dynamics: %s; name fewer inputs with include: or exclude:", dynamicsReason(err))
		}
	}
	lawMode := p.spec.Mode == ModeSymbolic || p.spec.Mode == ModeNeuroSymbolic
	if c.Trajectory != "" && lawMode {
		if err := conservation.CheckVariables(vars); err != nil {
			msg := strings.TrimPrefix(err.Error(), "conservation: ")
			return constraintErr("trajectory:%s starts a conservation search, but %s; name fewer variables with include: or exclude:", c.Trajectory, msg)
		}
	}
	return nil
}

// checkParameters validates the parameters that do not depend on data.
func (s Spec) checkParameters(p *plan) error {
	pr := s.Parameters
	if pr.MaxComplexity < 0 || pr.MaxComplexity > 200 {
		return specErrorf(CodeParameterInvalid, "max_complexity", "must be in [1, 200], got %d", pr.MaxComplexity)
	}
	if pr.Epochs < 0 || pr.Epochs > 100000 {
		return specErrorf(CodeParameterInvalid, "epochs", "must be in [1, 100000], got %d", pr.Epochs)
	}
	if s.EvidenceThreshold < 0 || s.EvidenceThreshold > 1 {
		return specErrorf(CodeParameterInvalid, "evidence_threshold", "must be in [0, 1], got %g", s.EvidenceThreshold)
	}
	if s.TimeLimit < 0 {
		return specErrorf(CodeParameterInvalid, "time_limit", "must not be negative")
	}
	for _, name := range s.NegativeControls {
		if !contains(controlNames, name) {
			return specErrorf(CodeParameterInvalid, "negative_controls", "unknown negative control %q (known: %s)", name, joinQuoted(controlNames))
		}
	}
	p.controls = s.controls(p.constraints)
	if pr.NeuralBackbone != "" {
		hidden, err := neural.ParseBackbone(pr.NeuralBackbone)
		if err != nil {
			return specErrorf(CodeParameterInvalid, "neural_backbone", "%v", err)
		}
		p.hidden = hidden
	}
	p.operators = p.constraints.Operators
	if pr.SymbolicPrior != "" {
		ops, err := symbolic.PriorOperators(pr.SymbolicPrior)
		if err != nil {
			return specErrorf(CodeParameterInvalid, "symbolic_prior", "%v", err)
		}
		// A prior whose set is the default one ("default", "physics") leaves the operators
		// unset, so the seeding passes keep symbolic.SeedOperators (tanh, cosh, asin), as
		// for a run that names no prior.
		if len(p.operators) == 0 && !slices.Equal(ops, symbolic.DefaultOperators) {
			p.operators = ops
		}
	}
	return nil
}

// resolveVariables picks targets and features. Without explicit targets a
// law run explains the last numeric column that is not a time, trajectory or
// excluded column.
func (p *plan) resolveVariables(f *data.Frame) error {
	c := p.constraints
	reserved := map[string]bool{c.Time: true, c.Trajectory: true}
	for _, x := range c.Exclude {
		reserved[x] = true
	}
	requested := p.spec.targets()
	for _, t := range requested {
		col, ok := f.Column(t)
		if !ok {
			return specErrorf(CodeParameterInvalid, "target_variables", "target %q is not a column of the dataset", t)
		}
		if !col.DType.IsNumeric() {
			return specErrorf(CodeParameterInvalid, "target_variables", "target %q is not numeric (%s)", t, col.DType)
		}
	}
	numeric := f.Numeric()
	if len(c.Dynamics) > 0 {
		// The states are the targets; every other numeric column may drive
		// them as an input.
		p.targets = c.Dynamics
		for _, s := range c.Dynamics {
			reserved[s] = true
		}
		p.features = pick(numeric, c.Include, reserved)
		return nil
	}
	if p.spec.Mode == ModeCausal {
		p.features = pick(numeric, c.Include, reserved)
		if len(p.features) < 2 {
			return constraintErr("causal discovery needs at least two numeric variables, found %d", len(p.features))
		}
		return nil
	}
	p.targets = requested
	if len(p.targets) == 0 {
		for i := len(numeric) - 1; i >= 0; i-- {
			if !reserved[numeric[i]] {
				p.targets = []string{numeric[i]}
				break
			}
		}
		if len(p.targets) == 0 {
			return specErrorf(CodeParameterInvalid, "target_variables", "the dataset has no numeric column to explain")
		}
	}
	for _, t := range p.targets {
		reserved[t] = true
	}
	p.features = pick(numeric, c.Include, reserved)
	if len(p.features) == 0 {
		return constraintErr("no numeric feature is left once targets and excluded columns are removed")
	}
	return nil
}

// pick returns the numeric columns in include (all when include is empty)
// that are not reserved; include names must be numeric.
func pick(numeric, include []string, reserved map[string]bool) []string {
	var out []string
	for _, n := range numeric {
		if reserved[n] || (len(include) > 0 && !contains(include, n)) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// checkValues rejects the dataset problems that would make a fit
// meaningless: non-numeric include columns, non-finite values and constant
// targets.
func (p *plan) checkValues(f *data.Frame) error {
	for _, name := range p.constraints.Include {
		if col, _ := f.Column(name); !col.DType.IsNumeric() {
			return constraintErr("include column %q is not numeric", name)
		}
	}
	used := append(append([]string(nil), p.targets...), p.features...)
	if p.constraints.Time != "" {
		used = append(used, p.constraints.Time)
	}
	for _, name := range used {
		col, _ := f.Column(name)
		if col.Nulls > 0 {
			return &data.ValidationError{Code: data.CodeValueNotFinite, Column: name,
				Message: "column " + name + " has null or non-finite values"}
		}
		if err := finiteAndVarying(col, contains(p.targets, name)); err != nil {
			return err
		}
	}
	return nil
}

func finiteAndVarying(col *data.Column, mustVary bool) error {
	first := col.Values[0]
	varies := false
	for i, v := range col.Values {
		if v != v || v > 1e300 || v < -1e300 {
			return &data.ValidationError{Code: data.CodeValueNotFinite, Column: col.Name, Row: i + 1,
				Message: "column " + col.Name + " has a non-finite value"}
		}
		if v != first {
			varies = true
		}
	}
	if mustVary && !varies {
		return &data.ValidationError{Code: data.CodeColumnConstant, Column: col.Name,
			Message: "target column " + col.Name + " is constant"}
	}
	return nil
}
