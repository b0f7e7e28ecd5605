package data

import (
	"fmt"
	"math"
)

// DType is the inferred type of a column.
type DType string

// The column types a Frame can hold.
const (
	Float64 DType = "float64"
	Int64   DType = "int64"
	Bool    DType = "bool"
	String  DType = "string"
)

// IsNumeric reports whether columns of this type carry Values.
func (t DType) IsNumeric() bool { return t == Float64 || t == Int64 || t == Bool }

// Column is one named column of a Frame.
//
// Numeric columns (Float64, Int64, Bool as 0/1) hold Values, with NaN
// marking a null cell; int64 values beyond ±2^53 lose precision, which no
// engine algorithm can notice. String columns hold Strings, with "" marking
// a null cell (an empty CSV cell is null, so the two cannot be told apart).
type Column struct {
	Name    string
	DType   DType
	Values  []float64
	Strings []string
	Nulls   int
}

// Len is the number of cells in the column.
func (c *Column) Len() int {
	if c.DType == String {
		return len(c.Strings)
	}
	return len(c.Values)
}

// IsNull reports whether cell i is null.
func (c *Column) IsNull(i int) bool {
	if c.DType == String {
		return c.Strings[i] == ""
	}
	return math.IsNaN(c.Values[i])
}

// countNulls recomputes Nulls from the cells.
func (c *Column) countNulls() {
	c.Nulls = 0
	for i := range c.Len() {
		if c.IsNull(i) {
			c.Nulls++
		}
	}
}

// Frame is a column-oriented table. All columns have Rows cells.
type Frame struct {
	Columns []Column
	Rows    int
}

// Names returns the column names in file order.
func (f *Frame) Names() []string {
	names := make([]string, len(f.Columns))
	for i := range f.Columns {
		names[i] = f.Columns[i].Name
	}
	return names
}

// Column returns the column with the given name.
func (f *Frame) Column(name string) (*Column, bool) {
	for i := range f.Columns {
		if f.Columns[i].Name == name {
			return &f.Columns[i], true
		}
	}
	return nil, false
}

// Numeric returns the names of the numeric columns (float64, int64 and
// bool) in file order.
func (f *Frame) Numeric() []string {
	var names []string
	for i := range f.Columns {
		if f.Columns[i].DType.IsNumeric() {
			names = append(names, f.Columns[i].Name)
		}
	}
	return names
}

// Matrix returns a column-major copy of the named numeric columns:
// m[j][i] is row i of names[j]. Callers may modify the result freely.
func (f *Frame) Matrix(names []string) ([][]float64, error) {
	m := make([][]float64, len(names))
	for j, name := range names {
		c, err := f.numericColumn(name)
		if err != nil {
			return nil, err
		}
		m[j] = append([]float64(nil), c.Values...)
	}
	return m, nil
}

// numericColumn looks a column up and insists that it is numeric.
func (f *Frame) numericColumn(name string) (*Column, error) {
	c, ok := f.Column(name)
	if !ok {
		return nil, &ValidationError{
			Code:    CodeColumnUnknown,
			Column:  name,
			Message: fmt.Sprintf("column %q does not exist in the dataset; available columns are %v", name, f.Names()),
		}
	}
	if !c.DType.IsNumeric() {
		return nil, &ValidationError{
			Code:    CodeColumnNonNumeric,
			Column:  name,
			Message: fmt.Sprintf("column %q holds %s values, not numbers; choose a numeric column or convert it", name, c.DType),
		}
	}
	return c, nil
}

// Slice returns a new Frame holding the given rows, in the given order;
// rows may repeat (bootstrap resampling). It panics if a row index is out
// of range, as slice indexing does.
func (f *Frame) Slice(rows []int) *Frame {
	out := &Frame{Columns: make([]Column, len(f.Columns)), Rows: len(rows)}
	for j := range f.Columns {
		src := &f.Columns[j]
		dst := Column{Name: src.Name, DType: src.DType}
		if src.DType == String {
			dst.Strings = make([]string, len(rows))
			for k, i := range rows {
				dst.Strings[k] = src.Strings[i]
			}
		} else {
			dst.Values = make([]float64, len(rows))
			for k, i := range rows {
				dst.Values[k] = src.Values[i]
			}
		}
		dst.countNulls()
		out.Columns[j] = dst
	}
	return out
}

// Head returns a new Frame holding the first n rows (all rows if n is
// larger), e.g. the observational rows at the top of a pooled dataset.
func (f *Frame) Head(n int) *Frame {
	n = min(max(n, 0), f.Rows)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return f.Slice(rows)
}
