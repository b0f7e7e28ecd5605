package data

import (
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
)

// MaxColumns is the widest dataset the service profiles. A dataset's status
// lists every column, and the Dataset CRD caps that list at 4096 items, so a
// wider file could never be marked profiled (issue 17).
const MaxColumns = 4096

// CodeDatasetTooWide is the ValidationError code of a file with more than
// MaxColumns columns.
const CodeDatasetTooWide = "dataset_too_wide"

// What profiling may hold in memory, whatever the file (issue 17). They are
// variables so tests can make small files take the large-file path.
var (
	// exactCellBudget is how many finite numeric cells are kept to give
	// exact quartiles; beyond it quartiles are estimated.
	exactCellBudget = 1 << 20
	// histogramBinBudget is the number of histogram bins shared by the
	// numeric columns when quartiles are estimated.
	histogramBinBudget = 1 << 16
	// duplicateRowLimit is how many distinct row hashes duplicate counting
	// keeps before it samples.
	duplicateRowLimit = 1 << 18
)

const (
	// maxRecordBytes bounds one CSV record while profiling.
	maxRecordBytes = 4 << 20
	// maxParquetFooter bounds the Parquet metadata read before any row.
	maxParquetFooter = 32 << 20
	// Histogram bins per column, before and after sharing the budget.
	minBins, maxBins = 16, 1024
)

// profileLimits are the CSV limits of every profiling pass.
var profileLimits = csvLimits{maxColumns: MaxColumns, maxRecordBytes: maxRecordBytes}

// tooWide is the error for a file with n > MaxColumns columns.
func tooWide(n int) error {
	return &ValidationError{Code: CodeDatasetTooWide,
		Message: fmt.Sprintf("the dataset has %d columns, more than the limit of %d; split it into files of at most %d columns", n, MaxColumns, MaxColumns)}
}

// ProfileReader profiles the dataset in r (format as for Read) without
// loading it: it reads the file a few times from the start and holds
// per-column accumulators, never a column. It checks what Read checks and
// also refuses files wider than MaxColumns and, for CSV, rows longer than
// 4 MiB.
//
// The profile equals ProfileOf(Read(...)) when the file has at most 2^20
// finite numeric cells and 2^18 distinct rows. Beyond that, two numbers
// are estimates: the quartiles behind OutlierFraction come from a histogram
// of each column (the outliers are then counted exactly against those
// fences), and DuplicateRows is scaled up from a hash sample of the rows
// (see duplicateSampler). Mean and SD then come from Welford's update,
// equal to gonum's to rounding.
func ProfileReader(r io.ReaderAt, size int64, format string) (Profile, error) {
	format, err := resolveFormat(r, size, format)
	if err != nil {
		return Profile{}, err
	}
	if format == FormatParquet {
		return profileParquet(r, size)
	}
	return profileText(r, size)
}

// Width returns the number of columns of the dataset in r (format as for
// Read), reading only the CSV header line or the Parquet footer.
func Width(r io.ReaderAt, size int64, format string) (int, error) {
	format, err := resolveFormat(r, size, format)
	if err != nil {
		return 0, err
	}
	if format == FormatParquet {
		file, err := openParquetSchema(r, size)
		if err != nil {
			return 0, err
		}
		return len(file.Root().Columns()), nil
	}
	delim, err := csvDelimiter(r, size)
	if err != nil {
		return 0, err
	}
	record, err := newCSVPass(r, size, delim, csvLimits{maxRecordBytes: maxRecordBytes}).header()
	if err != nil {
		return 0, err
	}
	return len(record), nil
}

// cell is one value of a row during a profiling pass.
type cell struct {
	null bool
	num  float64 // numeric columns
	text string  // string columns
}

// appendTo appends x to c, a column of x's type; a null is "" or NaN.
func (x *cell) appendTo(c *Column) {
	if x.null {
		c.Nulls++
	}
	switch {
	case c.DType == String && x.null:
		c.Strings = append(c.Strings, "")
	case c.DType == String:
		c.Strings = append(c.Strings, x.text)
	case x.null:
		c.Values = append(c.Values, math.NaN())
	default:
		c.Values = append(c.Values, x.num)
	}
}

// rowSource makes one pass over a file, handing each row to each; the row
// is only valid during the call.
type rowSource func(each func(row []cell) error) error

// profileRows profiles the rows of a source whose columns are set up in
// cols (keeping their finite values if exact): one pass for everything but
// the outliers, and when the numeric cells do not fit exactCellBudget, two
// more to estimate the quartiles and count the outliers.
func profileRows(rows int, cols []columnStats, exact bool, pass rowSource) (Profile, error) {
	dups := newDuplicateSampler(duplicateRowLimit)
	newValueCounters(cols)
	var h rowHasher
	kept := 0
	err := pass(func(row []cell) error {
		h.reset()
		for j := range row {
			c, x := &cols[j], &row[j]
			switch {
			case c.dtype == String && x.null:
				c.nulls++
				h.text("")
			case c.dtype == String:
				h.text(x.text)
				c.values.add(x.text)
			case x.null:
				c.nulls++
				h.number(math.NaN())
			default:
				c.add(x.num)
				h.number(x.num)
				if exact && !math.IsInf(x.num, 0) && !math.IsNaN(x.num) {
					kept++
				}
			}
		}
		dups.add(h.sum())
		if exact && kept > exactCellBudget {
			exact = false
			for j := range cols {
				cols[j].exact, cols[j].finite = false, nil
			}
		}
		return nil
	})
	if err != nil {
		return Profile{}, err
	}
	if !exact {
		if err := estimateOutliers(cols, pass); err != nil {
			return Profile{}, err
		}
	}
	return finishProfile(rows, cols, dups.duplicates()), nil
}

// estimateOutliers sets each outlier column's fences from a histogram pass
// and counts its outliers in another. The histogram pass, which knows each
// column's range from the first, also counts every numeric column's
// Histogram, so the profile's distributions cost no pass of their own.
func estimateOutliers(cols []columnStats, pass rowSource) error {
	var binned, shown []int
	for j := range cols {
		c := &cols[j]
		if c.dtype != String && c.n > 0 {
			shown = append(shown, j)
			c.shown = newHistogramFor(c.dtype, c.min, c.max)
		}
		switch {
		case !c.outlierColumn():
		case c.n == 0:
			c.outliers = c.nonNull // only ±Inf
		default:
			binned = append(binned, j)
		}
	}
	if len(shown) == 0 {
		return nil
	}
	if len(binned) > 0 {
		bins := min(maxBins, max(minBins, histogramBinBudget/len(binned)))
		for _, j := range binned {
			cols[j].hist = newHistogram(cols[j].min, cols[j].max, bins)
		}
	}
	err := pass(func(row []cell) error {
		for _, j := range shown {
			if v := row[j].num; !row[j].null && !math.IsInf(v, 0) && !math.IsNaN(v) {
				cols[j].shown.add(v)
				if cols[j].hist != nil {
					cols[j].hist.add(v)
				}
			}
		}
		return nil
	})
	if err != nil || len(binned) == 0 {
		return err
	}
	for _, j := range binned {
		cols[j].fences()
		cols[j].hist = nil
	}
	return pass(func(row []cell) error {
		for _, j := range binned {
			if !row[j].null {
				cols[j].countOutlier(row[j].num)
			}
		}
		return nil
	})
}

// profileText profiles delimited text: a first pass checks the structure and
// infers the types, as Read does, then profileRows reads it again.
func profileText(r io.ReaderAt, size int64) (Profile, error) {
	delim, err := csvDelimiter(r, size)
	if err != nil {
		return Profile{}, err
	}
	header, guesses, rows, err := scanCSV(r, size, delim, profileLimits)
	if err != nil {
		return Profile{}, err
	}
	// The first pass counted the non-null cells, so whether they fit
	// exactCellBudget is known before any is kept.
	types := columnTypes(guesses)
	numeric := 0
	for j := range guesses {
		if types[j] != String {
			numeric += guesses[j].nonNull
		}
	}
	exact := numeric <= exactCellBudget
	cols := make([]columnStats, len(header))
	for j, name := range header {
		cols[j] = newColumnStats(name, types[j], exact, guesses[j].nonNull)
	}
	return profileRows(rows, cols, exact, csvRows(r, size, delim, types, profileLimits))
}

// openParquetSchema opens the Parquet file in r for its schema and row
// count only (see parquetFooter).
func openParquetSchema(r io.ReaderAt, size int64) (*parquet.File, error) {
	footer, err := readParquetFooter(r, size)
	if err != nil {
		return nil, err
	}
	return footer.schemaFile()
}

// profileParquet profiles a flat Parquet file; the schema gives the types.
func profileParquet(r io.ReaderAt, size int64) (Profile, error) {
	footer, err := readParquetFooter(r, size)
	if err != nil {
		return Profile{}, err
	}
	file, err := footer.schemaFile()
	if err != nil {
		return Profile{}, err
	}
	fields, convs, err := parquetColumns(file, MaxColumns)
	if err != nil {
		return Profile{}, err
	}
	// The row count comes from the metadata, so the kept cells are not
	// preallocated; profileRows stops keeping them past exactCellBudget.
	cols := make([]columnStats, len(fields))
	for j, field := range fields {
		cols[j] = newColumnStats(field.Name(), convs[j].dtype, true, 0)
	}
	return profileRows(int(file.NumRows()), cols, true, parquetRows(footer, file.NumRows(), cols, convs))
}

// parquetRows is a rowSource over a flat Parquet file of numRows rows: it
// opens one row group at a time and reads it row by row, a batch of at
// most 2^16 values at a time, so only the current page of each column is
// decoded.
func parquetRows(footer *parquetFooter, numRows int64, cols []columnStats, convs []converter) rowSource {
	return func(each func(row []cell) error) error {
		width := len(convs)
		batch := make([]parquet.Row, max(1, min(1024, (1<<16)/width)))
		row := make([]cell, width)
		n := int64(0)
		unreadable := func(err error) error {
			return &ValidationError{Code: CodeDatasetUnreadable, Err: err,
				Message: fmt.Sprintf("the Parquet file cannot be decoded: %v", err)}
		}
		for i := range footer.groups() {
			file, err := footer.groupFile(i)
			if err != nil {
				return err
			}
			rows := file.RowGroups()[0].Rows()
			err = readBatches(rows.ReadRows, batch, func(values parquet.Row) error {
				n++
				if len(values) != width {
					return unreadable(fmt.Errorf("row %d has %d values for %d columns", n, len(values), width))
				}
				for _, v := range values {
					j := v.Column()
					if j < 0 || j >= width {
						return unreadable(fmt.Errorf("row %d has a value for column %d", n, j))
					}
					if err := parquetCell(&row[j], convs[j], v, cols[j].name, n); err != nil {
						return err
					}
				}
				return each(row)
			})
			rows.Close()
			if err != nil {
				if _, ok := err.(*ValidationError); ok {
					return err
				}
				return unreadable(err)
			}
		}
		if n != numRows {
			return unreadable(fmt.Errorf("found %d rows, the metadata says %d", n, numRows))
		}
		return nil
	}
}

// parquetCell converts one Parquet value of row (1-based) of a column: an
// empty byte array and a NaN are nulls, and text must be UTF-8. Text is
// copied, because the page it points into is released after reading.
func parquetCell(x *cell, conv converter, v parquet.Value, column string, row int64) error {
	if conv.dtype == String {
		b := v.ByteArray()
		x.null = v.IsNull() || len(b) == 0
		if x.null {
			return nil
		}
		if !utf8.Valid(b) {
			return &ValidationError{Code: CodeDatasetUnreadable, Column: column, Row: int(row),
				Message: fmt.Sprintf("column %q holds bytes that are not UTF-8 text at row %d; store text as UTF-8", column, row)}
		}
		x.text = string(b)
		return nil
	}
	x.num = math.NaN()
	if !v.IsNull() {
		x.num = conv.num(v)
	}
	x.null = math.IsNaN(x.num)
	return nil
}
