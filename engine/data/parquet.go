package data

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// readParquet reads a flat Parquet file column by column, one page at a
// time, so memory stays at the size of the decoded columns.
func readParquet(r io.ReaderAt, size int64) (*Frame, error) {
	// the metadata is bounded before parquet-go decodes it, as in profiling
	if _, _, err := parquetFooterSpan(r, size); err != nil {
		return nil, err
	}
	file, err := parquet.OpenFile(r, size)
	if err != nil {
		return nil, notParquet(err)
	}
	fields, convs, err := parquetColumns(file, 0)
	if err != nil {
		return nil, err
	}
	rows := file.NumRows()
	frame := &Frame{Columns: make([]Column, len(fields)), Rows: int(rows)}
	for j, field := range fields {
		col, err := readParquetColumn(file, field, convs[j], int(rows))
		if err != nil {
			return nil, err
		}
		frame.Columns[j] = col
	}
	return frame, nil
}

// notParquet is the error for a file parquet-go cannot open.
func notParquet(err error) error {
	return &ValidationError{Code: CodeDatasetUnreadable, Err: err,
		Message: fmt.Sprintf("the dataset is not a readable Parquet file: %v", err)}
}

// parquetColumns checks the file's top-level fields (at most maxColumns, 0
// for any; at least one, and one row; distinct names; readable types) and
// returns them with how to convert each one's values.
func parquetColumns(file *parquet.File, maxColumns int) ([]*parquet.Column, []converter, error) {
	fields := file.Root().Columns()
	if maxColumns > 0 && len(fields) > maxColumns {
		return nil, nil, tooWide(len(fields))
	}
	if len(fields) == 0 || file.NumRows() == 0 {
		return nil, nil, &ValidationError{Code: CodeDatasetEmpty, Message: "the Parquet file has no rows or no columns; upload a file with at least one row of values"}
	}
	convs := make([]converter, len(fields))
	seen := make(map[string]bool, len(fields))
	for j, field := range fields {
		if seen[field.Name()] {
			return nil, nil, &ValidationError{Code: CodeColumnDuplicate, Column: field.Name(),
				Message: fmt.Sprintf("more than one column is named %q; give every column a distinct name", field.Name())}
		}
		seen[field.Name()] = true
		conv, err := converterFor(field)
		if err != nil {
			return nil, nil, err
		}
		convs[j] = conv
	}
	return fields, convs, nil
}

// maxPrealloc bounds the column capacity trusted from Parquet metadata.
const maxPrealloc = 1 << 20

// converter turns one non-null Parquet value into a cell of its column.
type converter struct {
	dtype DType
	num   func(parquet.Value) float64 // numeric dtypes
}

// converterFor checks that a top-level field is a plain column disco can
// read and says how to convert its values.
func converterFor(field *parquet.Column) (converter, error) {
	name := field.Name()
	if !field.Leaf() || field.Repeated() {
		return converter{}, &ValidationError{Code: CodeDatasetFormatUnsupported, Column: name,
			Message: fmt.Sprintf("column %q is a nested or repeated Parquet field; flatten the file to one value per cell", name)}
	}
	typ := field.Type()
	var logical format.LogicalTypeValue
	if lt := typ.LogicalType(); lt != nil {
		logical = lt.Value
	}
	scale := 1.0
	if dec, ok := logical.(*format.DecimalType); ok {
		scale = math.Pow10(int(dec.Scale))
	}
	unsigned := false
	if it, ok := logical.(*format.IntType); ok {
		unsigned = !it.IsSigned
	}
	switch typ.Kind() {
	case parquet.Boolean:
		return converter{dtype: Bool, num: func(v parquet.Value) float64 {
			if v.Boolean() {
				return 1
			}
			return 0
		}}, nil
	case parquet.Int32:
		dtype := Int64
		if scale != 1 {
			dtype = Float64
		}
		return converter{dtype: dtype, num: func(v parquet.Value) float64 {
			if unsigned {
				return float64(uint32(v.Int32()))
			}
			return float64(v.Int32()) / scale
		}}, nil
	case parquet.Int64:
		dtype := Int64
		if scale != 1 {
			dtype = Float64
		}
		return converter{dtype: dtype, num: func(v parquet.Value) float64 {
			if unsigned {
				return float64(uint64(v.Int64()))
			}
			return float64(v.Int64()) / scale
		}}, nil
	case parquet.Float:
		return converter{dtype: Float64, num: func(v parquet.Value) float64 { return float64(v.Float()) }}, nil
	case parquet.Double:
		return converter{dtype: Float64, num: func(v parquet.Value) float64 { return v.Double() }}, nil
	case parquet.ByteArray:
		switch logical.(type) {
		case nil, *format.StringType, *format.EnumType, *format.JsonType:
			return converter{dtype: String}, nil
		}
	}
	return converter{}, &ValidationError{Code: CodeDatasetFormatUnsupported, Column: name,
		Message: fmt.Sprintf("column %q has Parquet type %s, which disco cannot read; store it as int32/int64/float/double, boolean or UTF-8 string", name, typ)}
}

// readParquetColumn decodes one column across all row groups.
func readParquetColumn(file *parquet.File, field *parquet.Column, conv converter, rows int) (Column, error) {
	col := Column{Name: field.Name(), DType: conv.dtype}
	// The row count comes from file metadata; cap what it may preallocate so
	// a corrupt footer cannot demand gigabytes before any value is decoded.
	capacity := min(rows, maxPrealloc)
	if conv.dtype == String {
		col.Strings = make([]string, 0, capacity)
	} else {
		col.Values = make([]float64, 0, capacity)
	}
	unreadable := func(err error) error {
		return &ValidationError{Code: CodeDatasetUnreadable, Column: col.Name, Err: err,
			Message: fmt.Sprintf("column %q of the Parquet file cannot be decoded: %v", col.Name, err)}
	}
	buf := make([]parquet.Value, 1024)
	for _, group := range file.RowGroups() {
		pages := group.ColumnChunks()[field.Index()].Pages()
		err := readPages(pages, buf, func(v parquet.Value) error {
			return appendParquetValue(&col, conv, v)
		})
		pages.Close()
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return Column{}, err
			}
			return Column{}, unreadable(err)
		}
	}
	if col.Len() != rows {
		return Column{}, unreadable(fmt.Errorf("found %d values for %d rows", col.Len(), rows))
	}
	return col, nil
}

// readPages feeds every value of every page to each, releasing pages as it
// goes so their buffers are reused.
func readPages(pages parquet.Pages, buf []parquet.Value, each func(parquet.Value) error) error {
	for {
		page, err := pages.ReadPage()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = readValues(page.Values(), buf, each)
		parquet.Release(page)
		if err != nil {
			return err
		}
	}
}

func readValues(values parquet.ValueReader, buf []parquet.Value, each func(parquet.Value) error) error {
	return readBatches(values.ReadValues, buf, each)
}

// readBatches calls read to fill buf until it reports io.EOF, and feeds every item it
// read to each.
func readBatches[T any](read func([]T) (int, error), buf []T, each func(T) error) error {
	for {
		n, err := read(buf)
		for _, v := range buf[:n] {
			if err := each(v); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// appendParquetValue appends one value, converted by parquetCell.
func appendParquetValue(col *Column, conv converter, v parquet.Value) error {
	var x cell
	if err := parquetCell(&x, conv, v, col.Name, int64(col.Len()+1)); err != nil {
		return err
	}
	x.appendTo(col)
	return nil
}
