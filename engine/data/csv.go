package data

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// readCSV reads delimited text in two streaming passes over r: the first
// checks the structure, counts rows and infers each column's type; the
// second parses cells straight into typed, preallocated columns. Reading
// twice costs CPU but keeps memory at the size of the parsed columns, with
// no copy of the raw text held while types are still unknown.
func readCSV(r io.ReaderAt, size int64) (*Frame, error) {
	delim, err := csvDelimiter(r, size)
	if err != nil {
		return nil, err
	}
	header, guesses, rows, err := scanCSV(r, size, delim, csvLimits{})
	if err != nil {
		return nil, err
	}
	types := columnTypes(guesses)
	frame := &Frame{Columns: make([]Column, len(header)), Rows: rows}
	for j, name := range header {
		c := Column{Name: name, DType: types[j]}
		if c.DType == String {
			c.Strings = make([]string, 0, rows)
		} else {
			c.Values = make([]float64, 0, rows)
		}
		frame.Columns[j] = c
	}
	err = csvRows(r, size, delim, types, csvLimits{})(func(row []cell) error {
		for j := range row {
			row[j].appendTo(&frame.Columns[j])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return frame, nil
}

// csvDelimiter checks that the file is UTF-8 text and sniffs its delimiter.
func csvDelimiter(r io.ReaderAt, size int64) (rune, error) {
	sample, whole, err := readSample(r, size)
	if err != nil {
		return 0, &ValidationError{Code: CodeDatasetUnreadable, Message: fmt.Sprintf("cannot read the dataset: %v", err), Err: err}
	}
	if looksBinary(sample, whole) {
		return 0, &ValidationError{Code: CodeDatasetUnreadable, Message: "the dataset is not UTF-8 text (it holds NUL bytes or invalid UTF-8); upload a CSV/TSV text file or a Parquet file"}
	}
	return sniffDelimiter(sample, whole), nil
}

// csvLimits bound what one pass may hold. Profiling sets them, because it
// must stay within bounded memory whatever the file (issue 17); the loader
// leaves them zero and takes any file.
type csvLimits struct {
	maxColumns     int   // 0: any width
	maxRecordBytes int64 // 0: any record length
}

// csvPass is one read of the file from the start.
type csvPass struct {
	cr    *csv.Reader
	limit *recordLimiter // nil without a record limit
}

// newCSVPass opens a fresh pass over the file.
func newCSVPass(r io.ReaderAt, size int64, delim rune, lim csvLimits) *csvPass {
	var src io.Reader = io.NewSectionReader(r, 0, size)
	p := &csvPass{}
	if lim.maxRecordBytes > 0 {
		p.limit = &recordLimiter{r: src, max: lim.maxRecordBytes, end: lim.maxRecordBytes}
		src = p.limit
	}
	cr := csv.NewReader(src)
	cr.Comma = delim
	cr.ReuseRecord = true
	cr.LazyQuotes = true // a stray " inside a field is data, not an error
	p.cr = cr
	return p
}

// read returns the next record; with a record limit, the next record may
// take at most maxRecordBytes more of the input.
func (p *csvPass) read() ([]string, error) {
	record, err := p.cr.Read()
	if p.limit != nil {
		p.limit.end = p.cr.InputOffset() + p.limit.max
	}
	return record, err
}

// header reads the pass's first record, the header, which every file must have.
func (p *csvPass) header() ([]string, error) {
	record, err := p.read()
	if err == io.EOF {
		return nil, &ValidationError{Code: CodeDatasetEmpty, Message: "the dataset has no header row and no data; upload a file whose first line names the columns"}
	}
	if err != nil {
		return nil, csvError(err, 0, len(record))
	}
	return record, nil
}

// errRecordTooLong ends a pass whose record outgrows csvLimits.maxRecordBytes.
var errRecordTooLong = errors.New("a row is longer than the limit of 4 MiB; split long text cells or store the data as Parquet")

// recordLimiter lets the CSV reader read no further than end, which the
// pass moves forward after each record, so one record cannot make the
// reader buffer more than max bytes.
type recordLimiter struct {
	r        io.Reader
	read     int64
	end, max int64
}

func (l *recordLimiter) Read(p []byte) (int, error) {
	room := l.end - l.read
	if room <= 0 {
		return 0, errRecordTooLong
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := l.r.Read(p)
	l.read += int64(n)
	return n, err
}

// scanCSV is the first pass: header, per-column type guesses, row count.
func scanCSV(r io.ReaderAt, size int64, delim rune, lim csvLimits) ([]string, []typeGuess, int, error) {
	p := newCSVPass(r, size, delim, lim)
	record, err := p.header()
	if err != nil {
		return nil, nil, 0, err
	}
	if lim.maxColumns > 0 && len(record) > lim.maxColumns {
		return nil, nil, 0, tooWide(len(record))
	}
	header, err := headerNames(record)
	if err != nil {
		return nil, nil, 0, err
	}
	guesses := make([]typeGuess, len(header))
	rows := 0
	for {
		record, err := p.read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, 0, csvError(err, len(header), len(record))
		}
		line, _ := p.cr.FieldPos(0)
		for j, cell := range record {
			if !utf8.ValidString(cell) || strings.IndexByte(cell, 0) >= 0 {
				return nil, nil, 0, &ValidationError{
					Code: CodeDatasetUnreadable, Column: header[j], Row: line,
					Message: fmt.Sprintf("line %d, column %q is not UTF-8 text; re-save the file as UTF-8", line, header[j]),
				}
			}
			guesses[j].observe(strings.TrimSpace(cell))
		}
		rows++
	}
	if rows == 0 {
		return nil, nil, 0, &ValidationError{Code: CodeDatasetEmpty, Message: "the dataset has a header row but no data rows; add at least one row of values"}
	}
	return header, guesses, rows, nil
}

// columnTypes is the type of each column, from the first pass's guesses.
func columnTypes(guesses []typeGuess) []DType {
	types := make([]DType, len(guesses))
	for j := range guesses {
		types[j] = guesses[j].dtype()
	}
	return types
}

// csvRows is a rowSource over delimited text whose column types are known:
// each pass after the first, which has already vetted the structure and the
// types, parses every cell by its column's type.
func csvRows(r io.ReaderAt, size int64, delim rune, types []DType, lim csvLimits) rowSource {
	return func(each func(row []cell) error) error {
		p := newCSVPass(r, size, delim, lim)
		if record, err := p.read(); err != nil { // header, already checked
			return csvError(err, 0, len(record))
		}
		row := make([]cell, len(types))
		for {
			record, err := p.read()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return csvError(err, len(types), len(record))
			}
			for j, raw := range record {
				s := strings.TrimSpace(raw)
				x := &row[j]
				x.null = isNullToken(s)
				switch {
				case x.null:
				case types[j] == String:
					x.text = s
				default:
					x.num = cellValue(types[j], s)
				}
			}
			if err := each(row); err != nil {
				return err
			}
		}
	}
}

// cellValue parses a non-null cell of a numeric column; the cell is known
// to fit the type.
func cellValue(t DType, cell string) float64 {
	switch t {
	case Int64:
		i, _ := strconv.ParseInt(cell, 10, 64)
		return float64(i)
	case Float64:
		v, _ := parseFloat(cell)
		return v
	case Bool:
		if b, _ := parseBool(cell); b {
			return 1
		}
	}
	return 0
}

// headerNames cleans the header: it drops a UTF-8 byte-order mark, trims
// spaces, names empty headers (e.g. an unnamed index column) column_<n>,
// and rejects duplicates, which would make column lookup ambiguous.
func headerNames(record []string) ([]string, error) {
	names := make([]string, len(record))
	seen := make(map[string]int, len(record))
	for j, raw := range record {
		if j == 0 {
			raw = strings.TrimPrefix(raw, "\uFEFF")
		}
		if !utf8.ValidString(raw) {
			return nil, &ValidationError{Code: CodeDatasetUnreadable, Row: 1, Message: fmt.Sprintf("the header name of column %d is not UTF-8 text; re-save the file as UTF-8", j+1)}
		}
		name := strings.TrimSpace(raw)
		if name == "" {
			name = fmt.Sprintf("column_%d", j+1)
		}
		if first, dup := seen[name]; dup {
			return nil, &ValidationError{
				Code: CodeColumnDuplicate, Column: name, Row: 1,
				Message: fmt.Sprintf("columns %d and %d are both named %q; give every column a distinct name", first+1, j+1, name),
			}
		}
		seen[name] = j
		names[j] = name
	}
	return names, nil
}

// csvError turns an encoding/csv error into a ValidationError naming the
// line. width is the header's field count (0 while reading the header) and
// got the field count of the offending record.
func csvError(err error, width, got int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return &ValidationError{Code: CodeDatasetUnreadable, Message: fmt.Sprintf("cannot read the dataset: %v", err), Err: err}
	}
	if errors.Is(pe.Err, csv.ErrFieldCount) {
		return &ValidationError{
			Code: CodeRowLengthMismatch, Row: pe.StartLine, Err: err,
			Message: fmt.Sprintf("line %d has %d fields but the header has %d; fix that row or quote values that contain the delimiter", pe.StartLine, got, width),
		}
	}
	return &ValidationError{
		Code: CodeDatasetUnreadable, Row: pe.StartLine, Err: err,
		Message: fmt.Sprintf("line %d cannot be parsed as delimited text: %v", pe.StartLine, pe.Err),
	}
}
