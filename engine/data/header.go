package data

import "io"

// Header returns the column names of the dataset in r (format as for Read),
// as profiling names them (a CSV header is cleaned as Read cleans it),
// reading only the CSV header line or the Parquet footer.
func Header(r io.ReaderAt, size int64, format string) ([]string, error) {
	format, err := resolveFormat(r, size, format)
	if err != nil {
		return nil, err
	}
	if format == FormatParquet {
		file, err := openParquetSchema(r, size)
		if err != nil {
			return nil, err
		}
		fields := file.Root().Columns()
		names := make([]string, len(fields))
		for j, f := range fields {
			names[j] = f.Name()
		}
		return names, nil
	}
	delim, err := csvDelimiter(r, size)
	if err != nil {
		return nil, err
	}
	record, err := newCSVPass(r, size, delim, csvLimits{maxRecordBytes: maxRecordBytes}).header()
	if err != nil {
		return nil, err
	}
	return headerNames(record)
}

// Names returns the profiled column names, in file order.
func (p Profile) Names() []string {
	names := make([]string, len(p.Columns))
	for j, c := range p.Columns {
		names[j] = c.Name
	}
	return names
}
