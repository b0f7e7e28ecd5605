package conservation

import (
	"errors"
	"fmt"
	"math"
)

// minRowsPerTrajectory is the fewest rows a trajectory needs: a within-
// trajectory variance from fewer points says little about conservation.
const minRowsPerTrajectory = 5

// ErrTooFewTrajectories is returned when the data holds fewer than two
// trajectories: with one, any quantity that separates trajectories cannot be
// told apart from an identity of the data.
var ErrTooFewTrajectories = errors.New("conservation: at least 2 trajectories are required")

// groupTrajectories validates the input shape and returns, per trajectory in
// order of first appearance, the row indices that belong to it.
func groupTrajectories(X [][]float64, names []string, trajectory []string) ([][]int, error) {
	if len(X) == 0 {
		return nil, errors.New("conservation: no variables")
	}
	if len(names) != len(X) {
		return nil, fmt.Errorf("conservation: %d names for %d variables", len(names), len(X))
	}
	seenName := make(map[string]bool, len(names))
	for _, n := range names {
		if n == "" {
			return nil, errors.New("conservation: empty variable name")
		}
		if seenName[n] {
			return nil, fmt.Errorf("conservation: duplicate variable name %q", n)
		}
		seenName[n] = true
	}
	rows := len(trajectory)
	for j, col := range X {
		if len(col) != rows {
			return nil, fmt.Errorf("conservation: variable %q has %d rows, trajectory labels have %d", names[j], len(col), rows)
		}
		for i, v := range col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("conservation: variable %q row %d is not finite", names[j], i)
			}
		}
	}
	index := make(map[string]int)
	var groups [][]int
	for i, label := range trajectory {
		g, ok := index[label]
		if !ok {
			g = len(groups)
			index[label] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	if len(groups) < 2 {
		return nil, fmt.Errorf("%w, got %d", ErrTooFewTrajectories, len(groups))
	}
	for _, rows := range groups {
		if len(rows) < minRowsPerTrajectory {
			return nil, fmt.Errorf("conservation: trajectory %q has %d rows, need at least %d",
				trajectory[rows[0]], len(rows), minRowsPerTrajectory)
		}
	}
	return groups, nil
}
