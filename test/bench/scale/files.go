package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/discolab/disco/engine/data"
)

// filePoint is one file of the -files sweep: how long writing it took, and
// the profiling and upload-validation children's measurements.
type filePoint struct {
	Format     string  `json:"format"`
	Rows       int     `json:"rows"`
	Cols       int     `json:"cols"`
	SizeMB     float64 `json:"size_mb"`
	RowGroup   int     `json:"row_group_rows,omitempty"`
	WriteS     float64 `json:"write_s"`
	Profile    point   `json:"profile"`
	Validate   point   `json:"validate"`
	LoadBefore string  `json:"load_before"`
	Error      string  `json:"error,omitempty"`
}

// parquetRowGroup is the row-group length of the written Parquet files;
// the default is pyarrow's (pyarrow.parquet.write_table's row_group_size,
// 1Mi rows).
var parquetRowGroup = 1 << 20

// keepFiles keeps the files of -files for another look.
var keepFiles bool

// fileSweep writes each file of spec (format:ROWSxCOLS,... with format
// parquet or csv) under dir, measures profiling and validation in child
// processes, and deletes the file.
func fileSweep(spec, dir, out, self string) error {
	items, err := parseGrid(spec)
	if err != nil {
		return err
	}
	var done []filePoint
	for _, it := range items {
		fp := filePoint{Format: it.Mode, Rows: it.Rows, Cols: it.Cols, LoadBefore: loadAvg()}
		path := filepath.Join(dir, fmt.Sprintf("scale-%dx%d.%s", it.Rows, it.Cols, it.Mode))
		start := time.Now()
		switch it.Mode {
		case "parquet":
			fp.RowGroup = parquetRowGroup
			err = writeParquet(path, it.Rows, it.Cols)
		case "csv":
			err = writeCSV(path, it.Rows, it.Cols)
		default:
			err = fmt.Errorf("format %q: want parquet or csv", it.Mode)
		}
		fp.WriteS = time.Since(start).Seconds()
		if err != nil {
			fp.Error = err.Error()
		} else {
			if info, serr := os.Stat(path); serr == nil {
				fp.SizeMB = float64(info.Size()) / (1 << 20)
			}
			fp.Profile = measureFile(self, "profile", path)
			fp.Validate = measureFile(self, "validate", path)
		}
		if !keepFiles {
			_ = os.Remove(path)
		}
		done = append(done, fp)
		if err := report(fp, done, out); err != nil {
			return err
		}
	}
	return nil
}

// measureFile runs the child mode (profile or validate) on path.
func measureFile(self, mode, path string) point {
	return runChild(self, point{Mode: mode}, "-child", "-mode", mode, "-file", path)
}

// runFile is the child of measureFile: "profile" is data.ProfileReader,
// what the dataset controller runs on a stored file; "validate" is what an
// upload does to the file before storing it (apiserver/datasets): one pass
// through SHA-256 and the 64 KiB format sniffer as it is spooled, then
// data.Width and data.Header (the column limit and the declared units).
func runFile(mode, path string) point {
	p := point{Mode: mode, LoadAvg: loadAvg(), Extra: map[string]float64{}}
	f, err := os.Open(path)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		p.Error = err.Error()
		return p
	}
	size := info.Size()
	start := time.Now()
	switch mode {
	case "profile":
		prof, perr := data.ProfileReader(f, size, "")
		err = perr
		p.Rows, p.Cols = prof.RowCount, prof.ColumnCount
	case "validate":
		h := sha256.New()
		head := &headSniffer{}
		if _, err = io.Copy(io.MultiWriter(h, head), io.NewSectionReader(f, 0, size)); err != nil {
			break
		}
		var n int
		if n, err = data.Width(f, size, ""); err != nil {
			break
		}
		var names []string
		if names, err = data.Header(f, size, ""); err != nil {
			break
		}
		p.Cols = n
		p.Extra["header_names"] = float64(len(names))
	}
	p.WallS = time.Since(start).Seconds()
	if err != nil {
		p.Error = err.Error()
	}
	p.Extra["file_mb"] = float64(size) / (1 << 20)
	return p
}

// headSniffer keeps the first 64 KiB written to it, as the upload's format
// sniffer does.
type headSniffer struct{ head []byte }

func (s *headSniffer) Write(p []byte) (int, error) {
	if room := 64<<10 - len(s.head); room > 0 {
		s.head = append(s.head, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

// vmHWM is this process's peak resident set in MiB from /proc/self/status:
// unlike ru_maxrss it does not count the parent the child was started from.
func vmHWM() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if kib, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			v, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(string(kib), "kB")), 64)
			return v / 1024
		}
	}
	return 0
}

// writeParquet writes rows × cols N(0, 1) doubles (columns c000, c001, …)
// uncompressed, in row groups of parquetRowGroup rows.
func writeParquet(path string, rows, cols int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	fields := parquet.Group{}
	for j := range cols {
		fields[fmt.Sprintf("c%03d", j)] = parquet.Leaf(parquet.DoubleType)
	}
	w := parquet.NewWriter(f, parquet.NewSchema("scale", fields), parquet.MaxRowsPerRowGroup(int64(parquetRowGroup)))
	r := rand.New(rand.NewPCG(21, 22))
	batch := make([]parquet.Row, 1024)
	for i := range batch {
		batch[i] = make(parquet.Row, cols)
	}
	for written := 0; written < rows; {
		n := min(len(batch), rows-written)
		for _, row := range batch[:n] {
			for j := range row {
				row[j] = parquet.DoubleValue(r.NormFloat64()).Level(0, 0, j)
			}
		}
		if _, err := w.WriteRows(batch[:n]); err != nil {
			f.Close()
			return err
		}
		written += n
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeCSV writes rows × cols N(0, 1) numbers with a header row, each at
// float32's shortest round-trip precision (about 10 characters).
func writeCSV(path string, rows, cols int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for j := range cols {
		if j > 0 {
			_ = w.WriteByte(',')
		}
		fmt.Fprintf(w, "c%03d", j)
	}
	_ = w.WriteByte('\n')
	r := rand.New(rand.NewPCG(21, 22))
	var buf []byte
	for range rows {
		buf = buf[:0]
		for j := range cols {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, float64(float32(r.NormFloat64())), 'g', -1, 32)
		}
		buf = append(buf, '\n')
		_, _ = w.Write(buf)
	}
	if err := w.Flush(); err != nil { // a bufio.Writer keeps its first error
		f.Close()
		return err
	}
	return f.Close()
}
