package data

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// memoryChildEnv names the file the child process profiles.
const memoryChildEnv = "DISCO_PROFILE_MEMORY_FILE"

// openSized opens path for the rest of the test and returns it with its size.
func openSized(t *testing.T, path string) (*os.File, int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return f, info.Size()
}

// TestProfileMemoryChild is the child of TestProfileMemoryBound: it only
// profiles the file it is given, so its peak RSS is the profiler's.
func TestProfileMemoryChild(t *testing.T) {
	path := os.Getenv(memoryChildEnv)
	if path == "" {
		t.Skip("run by TestProfileMemoryBound")
	}
	f, size := openSized(t, path)
	p, err := ProfileReader(f, size, "") // CSV or Parquet, by content
	if err != nil {
		t.Fatal(err)
	}
	// The peak resident set of this process image: VmHWM counts from the
	// exec, unlike getrusage's ru_maxrss, which also holds the size of the
	// parent this child was forked from.
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if kib, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Printf("profiled %d rows, %d columns\npeak-rss-kib=%s\n", p.RowCount, p.ColumnCount, strings.TrimSpace(strings.TrimSuffix(kib, "kB")))
		}
	}
}

// peakRSS profiles path in a child process and returns the child's peak
// resident set size in bytes.
func peakRSS(t *testing.T, path string) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestProfileMemoryChild$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), memoryChildEnv+"="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "peak-rss-kib="); ok {
			kib, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("child output %q: %v", line, err)
			}
			return kib << 10
		}
	}
	t.Skipf("the child could not read its peak RSS:\n%s", out)
	return 0
}

// writeOneCharCells writes rows × cols one-character cells, the shape that
// made profiling take nine times a file's size (issue 17): digits, except
// that the last column is text.
func writeOneCharCells(t *testing.T, path string, rows, cols int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A bufio.Writer keeps its first error and Flush returns it, so only
	// Flush is checked.
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(9, 10))
	for j := range cols {
		if j > 0 {
			_ = w.WriteByte(',')
		}
		fmt.Fprintf(w, "c%d", j)
	}
	_ = w.WriteByte('\n')
	for range rows {
		for j := range cols {
			if j > 0 {
				_ = w.WriteByte(',')
			}
			if j == cols-1 {
				_ = w.WriteByte('a' + byte(rng.IntN(26)))
			} else {
				_ = w.WriteByte('0' + byte(rng.IntN(10)))
			}
		}
		_ = w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// requireBoundedProfile writes a tiny and a 64 MiB file with write(path,
// rows), profiles each in a child process, and fails when the large one's
// peak RSS exceeds the tiny one's by more than 64 MiB (issue 17).
func requireBoundedProfile(t *testing.T, ext string, tinyRows, largeRows int, write func(t *testing.T, path string, rows int)) {
	t.Helper()
	if testing.Short() {
		t.Skip("writes and profiles a 64 MiB file")
	}
	const bound = 64 << 20
	dir := t.TempDir()
	tiny, large := filepath.Join(dir, "tiny"+ext), filepath.Join(dir, "large"+ext)
	write(t, tiny, tinyRows)
	write(t, large, largeRows)
	if info, err := os.Stat(large); err != nil || info.Size() < 64<<20 {
		t.Fatalf("test file: %v, %v", info, err)
	}
	base, peak := peakRSS(t, tiny), peakRSS(t, large)
	t.Logf("peak RSS %d MiB, base %d MiB", peak>>20, base>>20)
	if peak-base > bound {
		t.Fatalf("profiling a 64 MiB %s file took %d MiB above the base %d MiB; the bound is %d MiB", ext, (peak-base)>>20, base>>20, bound>>20)
	}
}

// TestProfileMemoryBound profiles a 64 MiB CSV of one-character cells (2^20
// rows, more distinct rows than duplicate counting keeps, and 32 columns,
// far more cells than are kept for exact quartiles) within 64 MiB. Loading
// the file instead holds 2^25 float64 cells, 256 MiB.
func TestProfileMemoryBound(t *testing.T) {
	requireBoundedProfile(t, ".csv", 10, 1<<20, func(t *testing.T, path string, rows int) { writeOneCharCells(t, path, rows, 32) })
}

// writeDoubles writes a Parquet file of rows × cols random doubles in one
// row group, a batch of rows at a time.
func writeDoubles(t *testing.T, path string, rows, cols int) {
	t.Helper()
	writeDoubleGroups(t, path, rows, cols, rows)
}

// writeDoubleGroups writes what writeDoubles does in row groups of at most
// group rows.
func writeDoubleGroups(t *testing.T, path string, rows, cols, group int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fields := parquet.Group{}
	for j := range cols {
		fields[fmt.Sprintf("c%02d", j)] = parquet.Leaf(parquet.DoubleType)
	}
	w := parquet.NewWriter(f, parquet.NewSchema("doubles", fields), parquet.MaxRowsPerRowGroup(int64(group)))
	rng := rand.New(rand.NewPCG(11, 12))
	batch := make([]parquet.Row, 1024)
	for i := range batch {
		batch[i] = make(parquet.Row, cols)
	}
	for written := 0; written < rows; written += len(batch) {
		for _, row := range batch {
			for j := range row {
				row[j] = parquet.DoubleValue(rng.NormFloat64()).Level(0, 0, j)
			}
		}
		if _, err := w.WriteRows(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestProfileMemoryBoundParquet profiles a 64 MiB Parquet file of 2^18 rows
// × 32 doubles in a single row group within 64 MiB: it is read a page per
// column at a time. Loading it holds 64 MiB of cells.
func TestProfileMemoryBoundParquet(t *testing.T) {
	requireBoundedProfile(t, ".parquet", 1024, 1<<18, func(t *testing.T, path string, rows int) { writeDoubles(t, path, rows, 32) })
}

// lastGroupReader is a Parquet file that, when the data of its last row
// group is first read, collects garbage and records the heap then in use.
type lastGroupReader struct {
	*os.File
	from, to int64 // the last row group's data
	inUse    uint64
}

func (r *lastGroupReader) ReadAt(p []byte, off int64) (int, error) {
	if r.inUse == 0 && off >= r.from && off < r.to {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		r.inUse = m.HeapAlloc
	}
	return r.File.ReadAt(p, off)
}

// parquetMemory profiles the Parquet file at path and returns the heap in
// use when its last row group is read, the bytes allocated to validate the
// file as an upload does (Width, then Header), and the size of the file's
// metadata.
func parquetMemory(t *testing.T, path string) (inUse, validation uint64, footer int64) {
	t.Helper()
	f, size := openSized(t, path)
	r := &lastGroupReader{File: f}
	file, err := parquet.OpenFile(f, size)
	if err != nil {
		t.Fatal(err)
	}
	groups := file.Metadata().RowGroups
	r.from = groups[len(groups)-1].Columns[0].MetaData.DataPageOffset
	if off := groups[len(groups)-1].Columns[0].MetaData.DictionaryPageOffset; off > 0 {
		r.from = min(r.from, off)
	}
	var tail [8]byte
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		t.Fatal(err)
	}
	footer = int64(binary.LittleEndian.Uint32(tail[:4]))
	r.to = size - 8 - footer
	if _, err := ProfileReader(r, size, ""); err != nil {
		t.Fatal(err)
	}
	if r.inUse == 0 {
		t.Fatal("the last row group was not read")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Width(f, size, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := Header(f, size, ""); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return r.inUse, after.TotalAlloc - before.TotalAlloc, footer
}

// TestParquetMemoryFlatInRowGroups profiles and validates the same 2^13
// rows × 8 doubles written in 64 and in 1024 row groups (issue 18: memory
// bounded by a constant, not by the file). While the last row group is
// profiled, the heap in use with 1024 row groups may not exceed that with
// 64 by more than 1 MiB; validation may allocate the metadata's bytes once
// for Width and once for Header, and 1 MiB more. parquet.OpenFile keeps the
// decoded metadata of every column chunk while the file is open, so the
// file is opened one row group at a time (see parquetFooter).
func TestParquetMemoryFlatInRowGroups(t *testing.T) {
	const rows, cols, slack = 1 << 13, 8, 1 << 20
	dir := t.TempDir()
	few, many := filepath.Join(dir, "few.parquet"), filepath.Join(dir, "many.parquet")
	writeDoubleGroups(t, few, rows, cols, rows/64)
	writeDoubleGroups(t, many, rows, cols, rows/1024)
	base, _, _ := parquetMemory(t, few)
	inUse, validation, footer := parquetMemory(t, many)
	t.Logf("in use at the last row group: %d KiB in 1024 row groups, %d KiB in 64; validation allocated %d KiB for %d KiB of metadata",
		inUse>>10, base>>10, validation>>10, footer>>10)
	if inUse > base+slack {
		t.Errorf("profiling 1024 row groups holds %d KiB more than 64 row groups of the same rows; the bound is %d KiB", (inUse-base)>>10, slack>>10)
	}
	if validation > uint64(2*footer)+slack {
		t.Errorf("validating 1024 row groups allocated %d KiB for %d KiB of metadata; the bound is twice that and %d KiB", validation>>10, footer>>10, slack>>10)
	}
}
