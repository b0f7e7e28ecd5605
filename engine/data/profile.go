package data

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Profile summarises a dataset for the REST "dataset profile" resource.
type Profile struct {
	RowCount    int             `json:"row_count"`
	ColumnCount int             `json:"column_count"`
	Columns     []ColumnProfile `json:"columns"`
	Quality     Quality         `json:"quality"`
}

// ColumnProfile summarises one column. Mean and Std are computed over the
// finite cells (nulls and ±Inf left out); Std is the sample standard
// deviation (n-1). Mean is nil for string columns and columns without a
// finite cell, Std also when there are fewer than two, so the JSON never
// holds NaN. Min and Max are the extremes of the finite cells, nil when Mean
// is. Histogram is the distribution of a numeric column's non-null cells,
// nil for string columns and columns without a non-null cell. A text column
// with few distinct values (see valueCounter) has them counted exactly:
// DistinctValues, and TopValues, its most frequent ones; both are nil for
// other columns.
type ColumnProfile struct {
	Name      string     `json:"name"`
	DType     string     `json:"dtype"`
	Mean      *float64   `json:"mean"`
	Std       *float64   `json:"std"`
	NullCount int        `json:"null_count"`
	Min       *float64   `json:"min"`
	Max       *float64   `json:"max"`
	Histogram *Histogram `json:"histogram"`

	DistinctValues *int         `json:"distinct_values"`
	TopValues      []ValueCount `json:"top_values"`
}

// Quality holds whole-dataset quality measures.
//
// Completeness is non-null cells / all cells (1 for a frame with no
// cells). DuplicateRows counts rows equal to an earlier row, nulls
// comparing equal, like pandas' DataFrame.duplicated().sum().
// OutlierFraction is, over the non-null cells of int64 and float64 columns,
// the fraction lying outside Tukey's fences [Q1 − 1.5·IQR, Q3 + 1.5·IQR] of
// their own column, where Q1 and Q3 are gonum's stat.Quantile with
// LinInterp (Hyndman–Fan type 4) over the column's finite cells and ±Inf
// always counts as an outlier. Bool columns are left out: with 0/1 values
// the fences would flag every minority value.
//
// ProfileReader computes the same numbers in bounded memory; on large
// files two of them are estimates (see ProfileReader).
type Quality struct {
	Completeness    float64 `json:"completeness"`
	DuplicateRows   int     `json:"duplicate_rows"`
	OutlierFraction float64 `json:"outlier_fraction"`
}

// ProfileOf computes the profile of a frame already in memory.
func ProfileOf(f *Frame) Profile {
	cols := make([]columnStats, len(f.Columns))
	for j := range f.Columns {
		c := &f.Columns[j]
		cols[j] = newColumnStats(c.Name, c.DType, true, len(c.Values))
		cols[j].nulls = c.Nulls
	}
	newValueCounters(cols)
	for j := range f.Columns {
		c := &f.Columns[j]
		for _, s := range c.Strings {
			if s != "" {
				cols[j].values.add(s)
			}
		}
		if c.DType != String {
			for _, v := range c.Values {
				cols[j].add(v)
			}
		}
	}
	return finishProfile(f.Rows, cols, countDuplicateRows(f))
}

// columnStats accumulates one column's profile from its cells, in any
// order. Mean and SD use Welford's online update (Welford 1962; Knuth,
// TAOCP vol. 2, 4.2.2) so nothing per row is kept, unless exact is set:
// then the finite values are kept and the result is what gonum computes
// over them, bit for bit.
type columnStats struct {
	name  string
	dtype DType
	nulls int

	n, nonNull int     // finite cells; non-null cells (finite and ±Inf)
	negInf     int     // -Inf cells (+Inf ones are nonNull − n − negInf)
	mean, m2   float64 // Welford's running mean and sum of squared deviations
	min, max   float64 // over finite cells

	exact  bool
	finite []float64 // every finite value when exact

	// Estimated quartiles for large files: a histogram pass fills hist,
	// then the outlier pass counts cells outside the fences.
	hist     *histogram
	lo, hi   float64 // Tukey's fences
	outliers int

	// shown is the Histogram of the profile, filled by the histogram pass
	// when the finite values are not kept.
	shown *Histogram

	values *valueCounter // a text column's distinct values
}

func newColumnStats(name string, dtype DType, exact bool, capacity int) columnStats {
	c := columnStats{name: name, dtype: dtype, exact: exact, min: math.Inf(1), max: math.Inf(-1)}
	if exact && dtype != String {
		c.finite = make([]float64, 0, capacity)
	}
	return c
}

// add observes one non-string cell; NaN is a null.
func (c *columnStats) add(v float64) {
	switch {
	case math.IsNaN(v):
		return
	case math.IsInf(v, 0):
		c.nonNull++
		if v < 0 {
			c.negInf++
		}
		return
	}
	c.nonNull++
	c.n++
	d := v - c.mean
	c.mean += d / float64(c.n)
	c.m2 += d * (v - c.mean)
	c.min, c.max = min(c.min, v), max(c.max, v)
	if c.exact {
		c.finite = append(c.finite, v)
	}
}

// outlierColumn reports whether the column takes part in OutlierFraction.
func (c *columnStats) outlierColumn() bool { return c.dtype == Int64 || c.dtype == Float64 }

// profile is the column's entry in the Profile.
func (c *columnStats) profile() ColumnProfile {
	cp := ColumnProfile{Name: c.name, DType: string(c.dtype), NullCount: c.nulls}
	if top, distinct := c.values.top(); top != nil {
		cp.TopValues, cp.DistinctValues = top, &distinct
	}
	if c.dtype == String || c.nonNull == 0 {
		return cp
	}
	cp.Histogram = c.histogram()
	if c.n == 0 {
		return cp
	}
	lo, hi := c.min, c.max
	cp.Min, cp.Max = &lo, &hi
	var mean, std float64
	switch {
	case c.exact && c.n >= 2:
		mean, std = stat.MeanStdDev(c.finite, nil)
	case c.exact:
		mean = c.finite[0]
	default:
		mean, std = c.mean, math.Sqrt(c.m2/float64(c.n-1))
	}
	cp.Mean = &mean
	if c.n >= 2 {
		cp.Std = &std
	}
	return cp
}

// histogram is the column's Histogram: counted from the kept values, or the
// one the histogram pass filled. A column of ±Inf cells only has no bins.
func (c *columnStats) histogram() *Histogram {
	h := c.shown
	switch {
	case c.n == 0:
		h = &Histogram{Counts: []int{}}
	case c.exact:
		h = newHistogramFor(c.dtype, c.min, c.max)
		for _, v := range c.finite {
			h.add(v)
		}
	}
	h.NegInf, h.PosInf = c.negInf, c.nonNull-c.n-c.negInf
	return h
}

// fences sets Tukey's fences from the quartiles of the finite values:
// gonum's over the kept values, or estimated from the histogram.
func (c *columnStats) fences() {
	var q1, q3 float64
	if c.exact {
		slices.Sort(c.finite)
		q1 = stat.Quantile(0.25, stat.LinInterp, c.finite, nil)
		q3 = stat.Quantile(0.75, stat.LinInterp, c.finite, nil)
	} else {
		q1 = linInterpQuantile(0.25, c.n, c.hist.orderStat)
		q3 = linInterpQuantile(0.75, c.n, c.hist.orderStat)
	}
	c.lo, c.hi = q1-1.5*(q3-q1), q3+1.5*(q3-q1)
}

// countOutlier counts one non-null cell against the fences (±Inf always
// counts); fences must have been set.
func (c *columnStats) countOutlier(v float64) {
	if !math.IsNaN(v) && (math.IsInf(v, 0) || v < c.lo || v > c.hi) {
		c.outliers++
	}
}

// linInterpQuantile is gonum's stat.Quantile(p, stat.LinInterp, x, nil)
// for n sorted values x[k] = at(k), with the same arithmetic, so it can run
// over order statistics that are not held in a slice (gonum's takes only a
// slice).
func linInterpQuantile(p float64, n int, at func(k int) float64) float64 {
	fidx := p * float64(n)
	// The first index i with i+1 >= fidx.
	i := max(int(math.Ceil(fidx))-1, 0)
	if i == 0 {
		return at(0)
	}
	t := float64(i+1) - fidx
	return t*at(i-1) + (1-t)*at(i)
}

// finishProfile assembles the profile once every cell was seen and, for
// estimated columns, the outlier pass has run.
func finishProfile(rows int, cols []columnStats, duplicates int) Profile {
	p := Profile{RowCount: rows, ColumnCount: len(cols), Columns: make([]ColumnProfile, len(cols))}
	nulls, outliers, outlierCells := 0, 0, 0
	for j := range cols {
		c := &cols[j]
		p.Columns[j] = c.profile()
		nulls += c.nulls
		if !c.outlierColumn() {
			continue
		}
		outlierCells += c.nonNull
		if c.exact {
			if c.n > 0 {
				c.fences()
				for _, v := range c.finite {
					c.countOutlier(v)
				}
			}
			c.outliers += c.nonNull - c.n // ±Inf
		}
		outliers += c.outliers
	}
	p.Quality.Completeness = 1
	if cells := rows * len(cols); cells > 0 {
		p.Quality.Completeness = float64(cells-nulls) / float64(cells)
	}
	if outlierCells > 0 {
		p.Quality.OutlierFraction = float64(outliers) / float64(outlierCells)
	}
	p.Quality.DuplicateRows = duplicates
	return p
}

// histogram counts a column's finite values in bins over [min, max],
// keeping each bin's smallest and largest value. It estimates order
// statistics for columns too long to keep (Munro and Paterson, "Selection
// and sorting with limited storage", 1980: select by counting in buckets;
// here one counting pass, then interpolation inside a bucket). The bins are
// equal in the order-preserving integer image of the float64 bits, so
// their width is relative to the values' magnitude (as in HdrHistogram)
// and a column spanning many orders of magnitude is still resolved.
type histogram struct {
	lo, width uint64 // in orderedBits
	count     []int
	bmin      []float64
	bmax      []float64
}

func newHistogram(lo, hi float64, bins int) *histogram {
	h := &histogram{lo: orderedBits(lo), width: (orderedBits(hi)-orderedBits(lo))/uint64(bins) + 1,
		count: make([]int, bins), bmin: make([]float64, bins), bmax: make([]float64, bins)}
	for b := range bins {
		h.bmin[b], h.bmax[b] = math.Inf(1), math.Inf(-1)
	}
	return h
}

// orderedBits maps float64s to uint64s of the same order (IEEE 754 total
// order for non-NaN values): negative values have all bits flipped,
// positive ones the sign bit.
func orderedBits(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// add counts a finite value within [lo, hi].
func (h *histogram) add(v float64) {
	b := min(int((orderedBits(v)-h.lo)/h.width), len(h.count)-1)
	h.count[b]++
	h.bmin[b], h.bmax[b] = min(h.bmin[b], v), max(h.bmax[b], v)
}

// orderStat estimates the k-th smallest value (0-based). It is exact when
// k is the first or last value of its bin or the bin holds one distinct
// value, and otherwise interpolates linearly between the bin's extremes.
func (h *histogram) orderStat(k int) float64 {
	below := 0
	for b, n := range h.count {
		if k >= below+n {
			below += n
			continue
		}
		if n == 1 || h.bmin[b] == h.bmax[b] {
			return h.bmin[b]
		}
		return h.bmin[b] + (h.bmax[b]-h.bmin[b])*float64(k-below)/float64(n-1)
	}
	return math.NaN() // k out of range; callers ask only for k < n
}
