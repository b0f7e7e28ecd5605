package dynamics

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
)

// ErrInvalidData is wrapped by every error Discover returns for input that
// cannot be used; the message names the column or row at fault.
var ErrInvalidData = errors.New("dynamics: invalid data")

// Trajectories is the input of Discover: one row per sample, columns stored
// column-major (States[j][i] is state j at row i).
//
// Rows of one trajectory need not be contiguous nor sorted: Discover groups
// them by Trajectory label (in order of first appearance) and sorts each
// group by Time. Sampling may be uneven, and trajectories may differ in
// length and spacing.
type Trajectories struct {
	// Time is the time of each row.
	Time []float64
	// Trajectory labels the trajectory of each row; nil means a single
	// trajectory.
	Trajectory []string
	// StateNames names the states whose equations are discovered, one per
	// column of States.
	StateNames []string
	States     [][]float64
	// InputNames names exogenous inputs (controls, forcing), one per column
	// of Inputs; the right-hand sides may use them, but no equation is
	// discovered for them. Optional.
	InputNames []string
	Inputs     [][]float64
}

// segment is one trajectory's rows, sorted by time.
type segment struct {
	label string
	t     []float64
	x     [][]float64 // x[i] = states then inputs at t[i]
	// sd, when set, is the noise standard deviation of each variable on
	// these rows (noiseSD), estimated once for the several designs built
	// on them
	sd []float64
}

// minRowsPerTrajectory is the fewest rows a trajectory needs to carry one
// weak-form test function of the smallest radius (2·minRadius + 1 points).
const minRowsPerTrajectory = 2*minRadius + 1

// group is one trajectory's rows: their row numbers in d, sorted by time.
type group struct {
	label string
	rows  []int
}

// groups validates d and returns its trajectories as row numbers sorted by
// time, without copying any value; piece copies one of them.
func (d Trajectories) groups() ([]group, error) {
	n := len(d.Time)
	if len(d.States) == 0 {
		return nil, fmt.Errorf("%w: no state columns", ErrInvalidData)
	}
	if len(d.StateNames) != len(d.States) {
		return nil, fmt.Errorf("%w: %d state names for %d state columns", ErrInvalidData, len(d.StateNames), len(d.States))
	}
	if len(d.InputNames) != len(d.Inputs) {
		return nil, fmt.Errorf("%w: %d input names for %d input columns", ErrInvalidData, len(d.InputNames), len(d.Inputs))
	}
	seen := map[string]bool{}
	for _, name := range slices.Concat(d.StateNames, d.InputNames) {
		if name == "" {
			return nil, fmt.Errorf("%w: empty column name", ErrInvalidData)
		}
		if seen[name] {
			return nil, fmt.Errorf("%w: column %q named twice", ErrInvalidData, name)
		}
		seen[name] = true
	}
	if d.Trajectory != nil && len(d.Trajectory) != n {
		return nil, fmt.Errorf("%w: %d trajectory labels for %d time values", ErrInvalidData, len(d.Trajectory), n)
	}
	cols := slices.Concat(d.States, d.Inputs)
	names := slices.Concat(d.StateNames, d.InputNames)
	for j, c := range cols {
		if len(c) != n {
			return nil, fmt.Errorf("%w: column %q has %d rows, time has %d", ErrInvalidData, names[j], len(c), n)
		}
		for i, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: column %q row %d is not finite", ErrInvalidData, names[j], i)
			}
		}
	}
	for i, v := range d.Time {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: time row %d is not finite", ErrInvalidData, i)
		}
	}
	index := map[string]int{}
	var groups []group
	for i := range n {
		label := ""
		if d.Trajectory != nil {
			label = d.Trajectory[i]
		}
		g, ok := index[label]
		if !ok {
			g = len(groups)
			index[label] = g
			groups = append(groups, group{label: label})
		}
		groups[g].rows = append(groups[g].rows, i)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%w: no rows", ErrInvalidData)
	}
	for _, g := range groups {
		if len(g.rows) < minRowsPerTrajectory {
			return nil, fmt.Errorf("%w: trajectory %q has %d rows, at least %d are needed", ErrInvalidData, g.label, len(g.rows), minRowsPerTrajectory)
		}
		slices.SortStableFunc(g.rows, func(a, b int) int { return cmp.Compare(d.Time[a], d.Time[b]) })
		for k := 1; k < len(g.rows); k++ {
			if t := d.Time[g.rows[k]]; !(t > d.Time[g.rows[k-1]]) {
				return nil, fmt.Errorf("%w: trajectory %q has two rows at time %g", ErrInvalidData, g.label, t)
			}
		}
	}
	return groups, nil
}

// piece copies the rows of g into a segment, the values of all its rows in
// one array.
func (d Trajectories) piece(g group) segment {
	cols := slices.Concat(d.States, d.Inputs)
	vars := len(cols)
	s := segment{label: g.label, t: make([]float64, len(g.rows)), x: make([][]float64, len(g.rows))}
	values := make([]float64, len(g.rows)*vars)
	for k, i := range g.rows {
		s.t[k] = d.Time[i]
		s.x[k] = values[k*vars : (k+1)*vars : (k+1)*vars]
		for j, c := range cols {
			s.x[k][j] = c[i]
		}
	}
	return s
}

// column returns variable j of s.
func (s segment) column(j int) []float64 {
	out := make([]float64, len(s.x))
	for i, row := range s.x {
		out[i] = row[j]
	}
	return out
}

// slice returns rows [from, to) of s.
func (s segment) slice(from, to int) segment {
	return segment{label: s.label, t: s.t[from:to], x: s.x[from:to]}
}
