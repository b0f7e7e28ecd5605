package engine

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/discolab/disco/engine/symbolic"
	"github.com/discolab/disco/engine/units"
)

// Constraints is the parsed form of Parameters.Constraints; see the package
// documentation for the grammar.
type Constraints struct {
	Operators  []string
	Exclude    []string
	Include    []string
	MaxDepth   int
	Trajectory string
	Time       string
	Alpha      float64
	MaxLag     int

	// Dynamics names the states whose equations of motion a run discovers
	// (mode_dynamics.go).
	Dynamics []string
	// Units are the declared dimensions of columns (units:x=m,t=s), by
	// column name; nil without a units: constraint.
	Units map[string]units.Dim
	// Satisfied lists the constraints as given, for claim scopes.
	Satisfied []string
}

// KnownOperators are the operator names accepted by operators:, those the
// symbolic search knows.
var KnownOperators = symbolic.KnownOperators()

// ParseConstraints parses constraint strings of the form key:value. It
// checks syntax only; column names are checked by Spec.Validate.
func ParseConstraints(raw []string) (*Constraints, error) {
	c := &Constraints{}
	seen := map[string]bool{}
	for _, item := range raw {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, value, ok := strings.Cut(item, ":")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || (value == "" && key != "dynamics") {
			return nil, constraintErr("%q is not of the form key:value", item)
		}
		if seen[key] {
			return nil, constraintErr("%q is given twice", key)
		}
		seen[key] = true
		if err := c.set(key, value); err != nil {
			return nil, err
		}
		c.Satisfied = append(c.Satisfied, key+":"+value)
	}
	return c, nil
}

func (c *Constraints) set(key, value string) error {
	switch key {
	case "operators":
		ops := splitList(value)
		for _, op := range ops {
			if !contains(KnownOperators, op) {
				return constraintErr("unknown operator %q (known: %s)", op, strings.Join(KnownOperators, " "))
			}
		}
		c.Operators = ops
	case "exclude":
		c.Exclude = splitList(value)
	case "include":
		c.Include = splitList(value)
	case "max_depth":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 20 {
			return constraintErr("max_depth must be an integer in [1, 20], got %q", value)
		}
		c.MaxDepth = n
	case "max_lag":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > 50 {
			return constraintErr("max_lag must be an integer in [1, 50], got %q", value)
		}
		c.MaxLag = n
	case "alpha":
		a, err := strconv.ParseFloat(value, 64)
		if err != nil || !(a > 0 && a < 1) {
			return constraintErr("alpha must be a number in (0, 1), got %q", value)
		}
		c.Alpha = a
	case "trajectory":
		c.Trajectory = value
	case "time":
		c.Time = value
	case "dynamics":
		states := splitList(value)
		if len(states) == 0 {
			return constraintErr("dynamics: names no state: list the state columns, e.g. dynamics:x,y")
		}
		for i, s := range states {
			if contains(states[:i], s) {
				return constraintErr("dynamics: state %q is listed twice: list each state once", s)
			}
		}
		c.Dynamics = states
	case "units":
		return c.setUnits(value)
	default:
		return constraintErr("unknown constraint key %q (known: operators, exclude, include, max_depth, trajectory, time, alpha, max_lag, dynamics, units)", key)
	}
	return nil
}

// setUnits parses units:name=unit,...; every unit string must parse
// (engine/units) and every name appear once.
func (c *Constraints) setUnits(value string) error {
	c.Units = map[string]units.Dim{}
	for _, item := range splitList(value) {
		name, unit, ok := strings.Cut(item, "=")
		name, unit = strings.TrimSpace(name), strings.TrimSpace(unit)
		if !ok || name == "" {
			return constraintErr("units: %q is not of the form column=unit, e.g. units:x=m,t=s,y=m/s^2", item)
		}
		if _, dup := c.Units[name]; dup {
			return constraintErr("units: column %q is given twice: give each column's unit once", name)
		}
		d, err := units.Parse(unit)
		if err != nil {
			return constraintErr("units: column %q: %v", name, err)
		}
		c.Units[name] = d
	}
	if len(c.Units) == 0 {
		return constraintErr("units: names no column: give column=unit pairs, e.g. units:x=m,t=s,y=m/s^2")
	}
	return nil
}

// columns returns every column name the constraints mention.
func (c *Constraints) columns() []string {
	var out []string
	out = append(out, c.Exclude...)
	out = append(out, c.Include...)
	if c.Trajectory != "" {
		out = append(out, c.Trajectory)
	}
	if c.Time != "" {
		out = append(out, c.Time)
	}
	out = append(out, c.Dynamics...)
	return append(out, slices.Sorted(maps.Keys(c.Units))...)
}

func constraintErr(format string, args ...any) *SpecError {
	return &SpecError{Code: CodeConstraintInvalid, Field: "constraints", Message: fmt.Sprintf(format, args...)}
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
