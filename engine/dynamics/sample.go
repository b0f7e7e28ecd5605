package dynamics

// The row rule (issue 18, item 4): Discover fits and simulates on at most
// Settings.MaxRows rows (default DefaultMaxRows), so that its cost stops
// growing with the data, and measures the discovered equations on every
// other row (Equation.HeldOutR2).
//
// When the trajectories hold more rows than that, each trajectory longer
// than sampleWindow rows is cut into consecutive windows of near-equal
// length, at most sampleWindow rows each, and whole pieces (trajectories
// or windows) are kept evenly spaced in the data's order (trajectories in
// order of first appearance, windows in time) until the next would pass
// MaxRows. The weak form needs consecutive samples, so the rule keeps
// pieces, never single rows; the pieces left out join the held-out pieces
// of the held-out fit. Below MaxRows nothing is cut and nothing changes.

const (
	// DefaultMaxRows is the default of Settings.MaxRows.
	DefaultMaxRows = 100_000
	// sampleWindow is the longest piece the rule cuts a trajectory into:
	// long enough for test functions of the widest radius (2·maxRadius+1
	// samples) many times over, and for the held-out simulation's horizon.
	sampleWindow = 2_000
)

// samplePieces splits groups into the pieces fitted and simulated on
// (kept) and those only measured (rest), following the row rule with at
// most maxRows rows kept. Without more rows than maxRows, kept is groups
// and rest is empty.
func samplePieces(groups []group, maxRows int) (kept, rest []group) {
	total := 0
	for _, g := range groups {
		total += len(g.rows)
	}
	if total <= maxRows {
		return groups, nil
	}
	var pieces []group
	for _, g := range groups {
		k := (len(g.rows) + sampleWindow - 1) / sampleWindow
		for w := range k {
			from, to := w*len(g.rows)/k, (w+1)*len(g.rows)/k
			pieces = append(pieces, group{label: g.label, rows: g.rows[from:to]})
		}
	}
	// keep a piece when the rows kept so far, plus half of it, reach the
	// share maxRows/total of the rows seen up to its end: every k-th piece
	// of equal ones, centred, and the same share of rows of unequal ones
	share := float64(maxRows) / float64(total)
	seen, taken := 0, 0
	for _, p := range pieces {
		seen += len(p.rows)
		if float64(taken)+float64(len(p.rows))/2 <= share*float64(seen) && taken+len(p.rows) <= maxRows {
			kept = append(kept, p)
			taken += len(p.rows)
		} else {
			rest = append(rest, p)
		}
	}
	return kept, rest
}
