package engine

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sort"
	"strings"

	"github.com/discolab/disco/engine/data"
)

// Split sizes: a quarter of the rows is held out. The search and every
// refit train on at most maxTrainRows rows of the rest, and the permutation
// controls test on at most maxHoldoutRows held-out rows, each subsample
// evenly spaced over its split in row order (thin), so run time stays
// bounded on large datasets and the subsample is the same for a seed. The
// fit evidence (lawFit) is measured on every row the search did not train
// on, streamed.
const (
	holdoutFraction = 0.25
	maxTrainRows    = 2000
	maxHoldoutRows  = 2000
)

// dataset is the run's view of the data: rows in analysis order (time order
// when a time column is declared), features column-major, and the split.
type dataset struct {
	frame    *data.Frame // rows in analysis order
	features []string
	X        [][]float64 // X[j][i], j over features
	train    []int       // sorted
	holdout  []int       // sorted
	timed    bool
	// evidenceFrom is the first row the fit evidence may use: the start of
	// the chronological hold-out for time-ordered data, else 0.
	evidenceFrom int
}

// prepare orders rows, extracts the feature matrix and splits the rows.
// Time-ordered data is split chronologically (the last quarter is held out)
// so the held-out rows stay contiguous for time_shift; other data is split
// by a seeded permutation.
func prepare(f *data.Frame, p *plan) (*dataset, error) {
	d := &dataset{frame: f, features: p.features}
	n := f.Rows
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if tc := p.constraints.Time; tc != "" {
		col, _ := f.Column(tc)
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(col.Values[a], col.Values[b]) })
		d.frame = f.Slice(order)
		d.timed = true
	}
	X, err := d.frame.Matrix(p.features)
	if err != nil {
		return nil, err
	}
	d.X = X
	nHold := int(math.Round(float64(n) * holdoutFraction))
	if nHold < 5 {
		nHold = 5
	}
	if d.timed {
		d.train = seq(0, n-nHold)
		d.holdout = seq(n-nHold, n)
		d.evidenceFrom = n - nHold
	} else {
		perm := rand.New(rand.NewSource(p.spec.Seed)).Perm(n)
		d.holdout = append([]int(nil), perm[:nHold]...)
		d.train = append([]int(nil), perm[nHold:]...)
		sort.Ints(d.holdout)
		sort.Ints(d.train)
	}
	d.train = thin(d.train, maxTrainRows)
	d.holdout = thin(d.holdout, maxHoldoutRows)
	return d, nil
}

// column returns a numeric column in analysis order.
func (d *dataset) column(name string) []float64 {
	col, _ := d.frame.Column(name)
	return col.Values
}

// thin keeps at most max rows, evenly spaced so order is preserved.
func thin(rows []int, max int) []int {
	if len(rows) <= max {
		return rows
	}
	out := make([]int, max)
	for k := range out {
		out[k] = rows[k*len(rows)/max]
	}
	return out
}

func seq(lo, hi int) []int {
	out := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// rowsOf returns the given rows of every column of X.
func rowsOf(X [][]float64, rows []int) [][]float64 {
	out := make([][]float64, len(X))
	for j, col := range X {
		out[j] = pickRows(col, rows)
	}
	return out
}

// pickRows returns the given rows of v.
func pickRows[T any](v []T, rows []int) []T {
	out := make([]T, len(rows))
	for k, i := range rows {
		out[k] = v[i]
	}
	return out
}

// domain renders the observed range of each variable, e.g.
// "raf∈[1, 552]; mek∈[0.2, 1.01e+03]", with 4 significant digits.
func (d *dataset) domain(vars []string) string {
	parts := make([]string, 0, len(vars))
	for _, v := range vars {
		col, ok := d.frame.Column(v)
		if !ok || !col.DType.IsNumeric() {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range col.Values {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		parts = append(parts, fmt.Sprintf("%s∈[%.4g, %.4g]", v, lo, hi))
	}
	return strings.Join(parts, "; ")
}

// interventionMarkers lists the numeric columns, other than the ones named
// in skip, that look like intervention indicators: every value is 0 or 1
// and both values occur. Such columns mark which rows were perturbed (as in
// pooled experimental datasets); the list may be empty.
func (d *dataset) interventionMarkers(skip ...string) []string {
	out := []string{}
	for _, col := range d.frame.Columns {
		if !col.DType.IsNumeric() || contains(skip, col.Name) {
			continue
		}
		zeros, ones := 0, 0
		for _, v := range col.Values {
			switch v {
			case 0:
				zeros++
			case 1:
				ones++
			}
		}
		if zeros > 0 && ones > 0 && zeros+ones == len(col.Values) {
			out = append(out, col.Name)
		}
	}
	return out
}
