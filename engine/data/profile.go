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
// holds NaN.
type ColumnProfile struct {
	Name      string   `json:"name"`
	DType     string   `json:"dtype"`
	Mean      *float64 `json:"mean"`
	Std       *float64 `json:"std"`
	NullCount int      `json:"null_count"`
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
type Quality struct {
	Completeness    float64 `json:"completeness"`
	DuplicateRows   int     `json:"duplicate_rows"`
	OutlierFraction float64 `json:"outlier_fraction"`
}

// ProfileOf computes the profile of f.
func ProfileOf(f *Frame) Profile {
	p := Profile{RowCount: f.Rows, ColumnCount: len(f.Columns), Columns: make([]ColumnProfile, len(f.Columns))}
	nulls, outliers, outlierCells := 0, 0, 0
	for j := range f.Columns {
		c := &f.Columns[j]
		p.Columns[j] = profileColumn(c)
		nulls += c.Nulls
		if c.DType == Int64 || c.DType == Float64 {
			out, cells := countOutliers(c.Values)
			outliers += out
			outlierCells += cells
		}
	}
	p.Quality.Completeness = 1
	if cells := f.Rows * len(f.Columns); cells > 0 {
		p.Quality.Completeness = float64(cells-nulls) / float64(cells)
	}
	if outlierCells > 0 {
		p.Quality.OutlierFraction = float64(outliers) / float64(outlierCells)
	}
	p.Quality.DuplicateRows = countDuplicateRows(f)
	return p
}

func profileColumn(c *Column) ColumnProfile {
	cp := ColumnProfile{Name: c.Name, DType: string(c.DType), NullCount: c.Nulls}
	if c.DType == String {
		return cp
	}
	finite := finiteValues(c.Values)
	switch {
	case len(finite) >= 2:
		mean, std := stat.MeanStdDev(finite, nil)
		cp.Mean, cp.Std = &mean, &std
	case len(finite) == 1:
		mean := finite[0]
		cp.Mean = &mean
	}
	return cp
}

// finiteValues returns a new slice of the values that are neither NaN nor ±Inf.
func finiteValues(values []float64) []float64 {
	out := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

// countOutliers returns how many non-null values lie outside the Tukey
// fences of the finite values, and how many non-null values there are.
func countOutliers(values []float64) (outliers, cells int) {
	finite := finiteValues(values)
	for _, v := range values {
		if !math.IsNaN(v) {
			cells++
		}
	}
	infinite := cells - len(finite)
	if len(finite) == 0 {
		return infinite, cells
	}
	slices.Sort(finite)
	q1 := stat.Quantile(0.25, stat.LinInterp, finite, nil)
	q3 := stat.Quantile(0.75, stat.LinInterp, finite, nil)
	lo, hi := q1-1.5*(q3-q1), q3+1.5*(q3-q1)
	outliers = infinite
	for _, v := range finite {
		if v < lo || v > hi {
			outliers++
		}
	}
	return outliers, cells
}
