// Package datasetunits checks the units a dataset declares for its columns
// (issue 18 item 2) and turns them into the engine's units: constraint. The
// REST facade, the dataset admission webhook, the MCP tools and profiling all
// judge a dataset's units with it, by engine/units' grammar, so a unit is
// accepted or refused alike at every door.
package datasetunits

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/discolab/disco/engine/units"
)

// Bounds of a dataset's units; the Dataset CRD declares the same ones.
const (
	// MaxEntries is the most columns that can carry a unit: as many as a
	// dataset may have columns (engine/data.MaxColumns).
	MaxEntries = 4096
	// MaxNameBytes bounds a column name that carries a unit.
	MaxNameBytes = 256
	// MaxUnitBytes bounds one unit string.
	MaxUnitBytes = 64
	// MaxConstraintBytes bounds the units written as a units: constraint, which every
	// claim of a run on the dataset lists in scope.constraints_satisfied.
	MaxConstraintBytes = 16 << 10
)

// Syntax shows the accepted unit syntax, for messages.
const Syntax = "SI symbols kg m s A K mol cd N J W Pa C V Hz ohm T F Wb H S rad sr, " +
	"multiplied with *, divided with / and raised with ^, e.g. kg*m/s^2, J/(mol*K) or m^(1/2); " +
	"1 is dimensionless; no prefixes such as km"

// Problem is what is wrong with the unit of one column.
type Problem struct {
	Column  string
	Message string
}

// Check returns the problems of the units m declares, by column name,
// sorted by column; nil when every entry is valid. A column name must be 1
// to MaxNameBytes bytes without "," or "=" (the units: constraint separates
// entries with them) or surrounding spaces (column names are trimmed), and a
// unit must be at most MaxUnitBytes bytes and parse (engine/units.Parse); all of them,
// written as a units: constraint, at most MaxConstraintBytes.
func Check(m map[string]string) []Problem {
	if len(m) > MaxEntries {
		return []Problem{{Message: fmt.Sprintf("%d columns carry a unit, more than the limit of %d", len(m), MaxEntries)}}
	}
	if n := len(Constraint(m)); n > MaxConstraintBytes {
		return []Problem{{Message: fmt.Sprintf("the units take %d bytes written as a units: constraint, more than the limit of %d; declare units for fewer columns", n, MaxConstraintBytes)}}
	}
	var out []Problem
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if msg := checkName(name); msg != "" {
			out = append(out, Problem{Column: name, Message: msg})
			continue
		}
		if msg := checkUnit(name, m[name]); msg != "" {
			out = append(out, Problem{Column: name, Message: msg})
		}
	}
	return out
}

func checkName(name string) string {
	switch {
	case name == "" || len(name) > MaxNameBytes:
		return fmt.Sprintf("a column name carrying a unit must be 1 to %d bytes long", MaxNameBytes)
	case strings.ContainsAny(name, ",="):
		return fmt.Sprintf("column %q cannot carry a unit: its name contains \",\" or \"=\", which separate the entries of a units: constraint", name)
	case strings.TrimFunc(name, unicode.IsSpace) != name:
		return fmt.Sprintf("column %q cannot carry a unit: a column name has no leading or trailing spaces", name)
	}
	return ""
}

func checkUnit(name, unit string) string {
	if len(unit) > MaxUnitBytes {
		return fmt.Sprintf("the unit of column %q is longer than %d bytes; write it with %s", name, MaxUnitBytes, Syntax)
	}
	if _, err := units.Parse(unit); err != nil {
		var pe *units.ParseError
		if errors.As(err, &pe) {
			return fmt.Sprintf("the unit %q of column %q does not parse: at character %d expected %s, found %s; write units with %s",
				unit, name, pe.Column, pe.Expected, pe.Found, Syntax)
		}
		return fmt.Sprintf("the unit %q of column %q does not parse: %v; write units with %s", unit, name, err, Syntax)
	}
	return ""
}

// Message is the problems as one sentence, or "" when there are none. It
// names at most three problems and counts the rest.
func Message(problems []Problem) string {
	if len(problems) == 0 {
		return ""
	}
	msgs := make([]string, 0, 3)
	for _, p := range problems[:min(3, len(problems))] {
		msgs = append(msgs, p.Message)
	}
	msg := strings.Join(msgs, "; ")
	if more := len(problems) - len(msgs); more > 0 {
		msg += fmt.Sprintf(" (and %d more)", more)
	}
	return msg
}

// Missing returns the columns of m that are not among columns, sorted.
func Missing(m map[string]string, columns []string) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(columns, name) {
			out = append(out, name)
		}
	}
	return out
}

// MissingMessage says which columns of m the file lacks, naming at most
// five of each, or "" when every one is there.
func MissingMessage(m map[string]string, columns []string) string {
	missing := Missing(m, columns)
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("units are declared for %s, which the file does not have (its columns: %s); declare units only for the file's columns",
		quoteSome(missing), quoteSome(columns))
}

func quoteSome(names []string) string {
	q := make([]string, 0, 5)
	for _, n := range names[:min(5, len(names))] {
		q = append(q, fmt.Sprintf("%q", n))
	}
	s := strings.Join(q, ", ")
	if more := len(names) - len(q); more > 0 {
		s += fmt.Sprintf(" and %d more", more)
	}
	return s
}

// Constraint is m as the engine's units: constraint (engine/constraints.go),
// columns sorted, or "" when m is empty. m must have passed Check.
func Constraint(m map[string]string) string {
	if len(m) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("units:")
	for i, name := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(m[name])
	}
	return b.String()
}

// HasConstraint reports whether constraints hold a units: constraint.
func HasConstraint(constraints []string) bool {
	for _, c := range constraints {
		if key, _, ok := strings.Cut(c, ":"); ok && strings.TrimSpace(key) == "units" {
			return true
		}
	}
	return false
}
