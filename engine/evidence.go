package engine

import (
	"math"
	"slices"
)

// evidenceChunk is how many rows a streamed measurement predicts at once:
// predictions are made on views of the columns (no copy of the table), so
// memory stays bounded by the chunk whatever the rows.
const evidenceChunk = 4096

// isEvidenceRow reports whether row i is one the fit evidence is measured
// on: every row the search did not train on (issue 18, item 4). For
// time-ordered data these are the rows of the chronological hold-out
// only, so that the held-out fit stays a forecast.
func (d *dataset) isEvidenceRow(i int) bool {
	if i < d.evidenceFrom {
		return false
	}
	_, trained := slices.BinarySearch(d.train, i)
	return !trained
}

// fitSums accumulates R² = 1 - SSE/SST over a set of rows in two passes,
// as controls.RSquared does on a slice: the first sums the observed values
// for their mean, the second the squared errors and deviations.
type fitSums struct {
	n             int
	sum, sse, sst float64
}

func (s *fitSums) rSquared() float64 {
	switch {
	case s.n == 0:
		return math.NaN()
	case s.sst == 0 && s.sse == 0:
		return 1
	case s.sst == 0:
		return 0
	}
	return 1 - s.sse/s.sst
}

// rSquaredOn is the R² of law m on each of the given number of row sets,
// where in(k, i) says whether row i is in set k (nil: every row). It streams over the
// columns in chunks of evidenceChunk rows, reading the table twice and
// copying none of it.
func (d *dataset) rSquaredOn(m *lawModel, y []float64, sets int, in func(k, i int) bool) []float64 {
	view := make([][]float64, len(d.X))
	return rSquaredSets(y, sets, in, func(lo, hi int) []float64 {
		for j, col := range d.X {
			view[j] = col[lo:hi]
		}
		return m.predict(view)
	})
}

// rSquaredSets is rSquaredOn with the predictions of rows [lo, hi) given
// by predict, asked for in chunks of evidenceChunk rows.
func rSquaredSets(y []float64, sets int, in func(k, i int) bool, predict func(lo, hi int) []float64) []float64 {
	sums := make([]fitSums, sets)
	for i, v := range y {
		for k := range sums {
			if in == nil || in(k, i) {
				sums[k].n++
				sums[k].sum += v
			}
		}
	}
	means := make([]float64, sets)
	for k, s := range sums {
		means[k] = s.sum / float64(max(s.n, 1))
	}
	for lo := 0; lo < len(y); lo += evidenceChunk {
		hi := min(lo+evidenceChunk, len(y))
		for off, p := range predict(lo, hi) {
			i := lo + off
			for k := range sums {
				if in == nil || in(k, i) {
					e, dev := y[i]-p, y[i]-means[k]
					sums[k].sse += e * e
					sums[k].sst += dev * dev
				}
			}
		}
	}
	out := make([]float64, sets)
	for k := range sums {
		out[k] = sums[k].rSquared()
	}
	return out
}

// predictions is law m's prediction on every row, made in chunks of
// evidenceChunk rows on views of the columns: the law's r_squared, its
// held_out_r_squared and its predicted-against-observed plot all read
// them, so a law that is costly to evaluate (a neural surrogate) passes
// over the rows once.
func (d *dataset) predictions(m *lawModel) []float64 {
	rows := 0
	if len(d.X) > 0 {
		rows = len(d.X[0])
	}
	out := make([]float64, 0, rows)
	view := make([][]float64, len(d.X))
	for lo := 0; lo < rows; lo += evidenceChunk {
		hi := min(lo+evidenceChunk, rows)
		for j, col := range d.X {
			view[j] = col[lo:hi]
		}
		out = append(out, m.predict(view)...)
	}
	return out
}

// lawFit is a law's r_squared (every row) and held_out_r_squared (every
// evidence row, isEvidenceRow), from its predictions on every row.
func (d *dataset) lawFit(pred, y []float64) (all, heldOut float64) {
	r2 := rSquaredSets(y, 2, func(k, i int) bool { return k == 0 || d.isEvidenceRow(i) },
		func(lo, hi int) []float64 { return pred[lo:hi] })
	return r2[0], r2[1]
}
