package data

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Format names accepted by Load and Read.
const (
	FormatCSV     = "csv"
	FormatParquet = "parquet"
)

// parquetMagic starts and ends every Parquet file.
var parquetMagic = []byte("PAR1")

// Load reads the dataset at path. format is "csv", "parquet", or "" to
// choose by file extension: .csv, .tsv and .txt are delimited text (the
// delimiter is sniffed among , TAB ; and |), .parquet is Parquet.
func Load(path, format string) (*Frame, error) {
	if format == "" {
		format = formatOfExtension(path)
		if format == "" {
			return nil, &ValidationError{
				Code:    CodeDatasetFormatUnsupported,
				Message: fmt.Sprintf("cannot tell the format of %q from its extension %q; use .csv, .tsv, .txt or .parquet, or name the format", filepath.Base(path), filepath.Ext(path)),
			}
		}
	}
	if _, err := normalizeFormat(format); err != nil {
		return nil, err
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, &ValidationError{Code: CodeDatasetUnreadable, Message: fmt.Sprintf("cannot open dataset file: %v", err), Err: err}
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, &ValidationError{Code: CodeDatasetUnreadable, Message: fmt.Sprintf("cannot stat dataset file: %v", err), Err: err}
	}
	if info.IsDir() {
		return nil, &ValidationError{Code: CodeDatasetUnreadable, Message: fmt.Sprintf("dataset path %q is a directory, not a file", path)}
	}
	return Read(file, info.Size(), format)
}

// Read reads a dataset of the given size from r. format is "csv",
// "parquet", or "" to choose by content: a file starting with the Parquet
// magic bytes is Parquet, anything else is delimited text.
func Read(r io.ReaderAt, size int64, format string) (*Frame, error) {
	format, err := resolveFormat(r, size, format)
	if err != nil {
		return nil, err
	}
	if format == FormatParquet {
		return readParquet(r, size)
	}
	return readCSV(r, size)
}

// resolveFormat names the format of a non-empty file as Read does.
func resolveFormat(r io.ReaderAt, size int64, format string) (string, error) {
	if format == "" {
		format = sniffFormat(r, size)
	}
	format, err := normalizeFormat(format)
	if err != nil {
		return "", err
	}
	if size <= 0 {
		return "", &ValidationError{Code: CodeDatasetEmpty, Message: "the dataset file is empty; upload a file with a header row and at least one data row"}
	}
	return format, nil
}

// normalizeFormat maps accepted spellings onto FormatCSV or FormatParquet.
func normalizeFormat(format string) (string, error) {
	switch strings.ToLower(format) {
	case "csv", "tsv", "txt":
		return FormatCSV, nil
	case "parquet":
		return FormatParquet, nil
	}
	return "", &ValidationError{
		Code:    CodeDatasetFormatUnsupported,
		Message: fmt.Sprintf("dataset format %q is not supported; use \"csv\" or \"parquet\"", format),
	}
}

// formatOfExtension returns the format implied by a file name, or "".
func formatOfExtension(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".tsv", ".txt":
		return FormatCSV
	case ".parquet":
		return FormatParquet
	}
	return ""
}

// sniffFormat recognises Parquet by its leading magic bytes.
func sniffFormat(r io.ReaderAt, size int64) string {
	head := make([]byte, len(parquetMagic))
	if size >= int64(len(head)) {
		if n, _ := r.ReadAt(head, 0); n == len(head) && bytes.Equal(head, parquetMagic) {
			return FormatParquet
		}
	}
	return FormatCSV
}
