package data

import (
	"fmt"
	"math"
	"slices"
)

// DefaultMinRows is the fewest rows Validate accepts when Requirements
// leaves MinRows at zero.
const DefaultMinRows = 10

// Requirements says which columns a discovery run will use.
type Requirements struct {
	Targets  []string
	Features []string // empty means every numeric column that is not a target
	MinRows  int      // 0 means DefaultMinRows
}

// FeatureNames resolves req.Features: the listed names, or when none are
// listed every numeric column that is not a target, in file order.
func (f *Frame) FeatureNames(req Requirements) []string {
	if len(req.Features) > 0 {
		return slices.Clone(req.Features)
	}
	var names []string
	for _, name := range f.Numeric() {
		if !slices.Contains(req.Targets, name) {
			names = append(names, name)
		}
	}
	return names
}

// Validate checks that the frame can feed a run with the given
// requirements and returns a *ValidationError for the first problem found,
// checking in this order: the frame has rows; every target and feature
// exists and is numeric; there is something to use; there are enough rows;
// every used cell is finite (not null, NaN or ±Inf); no used column is
// constant.
func (f *Frame) Validate(req Requirements) error {
	if f.Rows == 0 || len(f.Columns) == 0 {
		return &ValidationError{Code: CodeDatasetEmpty, Message: "the dataset has no data rows; upload a file with a header row and rows of values"}
	}
	features := f.FeatureNames(req)
	used := append(slices.Clone(req.Targets), features...)
	var columns []*Column
	for _, name := range used {
		c, err := f.numericColumn(name)
		if err != nil {
			return err
		}
		columns = append(columns, c)
	}
	if len(features) == 0 {
		msg := "the dataset has no numeric columns to analyse; include at least one numeric column"
		if len(req.Targets) > 0 {
			msg = fmt.Sprintf("the dataset has no numeric feature columns besides the target(s) %v; add at least one numeric input column", req.Targets)
		}
		return &ValidationError{Code: CodeColumnNonNumeric, Message: msg}
	}
	minRows := req.MinRows
	if minRows <= 0 {
		minRows = DefaultMinRows
	}
	if f.Rows < minRows {
		return &ValidationError{Code: CodeTooFewRows,
			Message: fmt.Sprintf("the dataset has %d rows but at least %d are needed; add more observations", f.Rows, minRows)}
	}
	for _, c := range columns {
		for i, v := range c.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				what := "a missing value"
				if math.IsInf(v, 0) {
					what = "an infinite value"
				}
				return &ValidationError{Code: CodeValueNotFinite, Column: c.Name, Row: i + 1,
					Message: fmt.Sprintf("column %q has %s in data row %d; drop or fill rows with missing values before running", c.Name, what, i+1)}
			}
		}
	}
	for _, c := range columns {
		if isConstant(c.Values) {
			return &ValidationError{Code: CodeColumnConstant, Column: c.Name,
				Message: fmt.Sprintf("column %q has the same value %g in every row, so it carries no information; remove it from the run", c.Name, c.Values[0])}
		}
	}
	return nil
}

// isConstant reports whether all values are equal (values are finite here).
func isConstant(values []float64) bool {
	for _, v := range values[1:] {
		if v != values[0] {
			return false
		}
	}
	return true
}
