package data

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// memoryChildEnv names the file the child process profiles.
const memoryChildEnv = "DISCO_PROFILE_MEMORY_FILE"

// TestProfileMemoryChild is the child of TestProfileMemoryBound: it only
// profiles the file it is given, so its peak RSS is the profiler's.
func TestProfileMemoryChild(t *testing.T) {
	path := os.Getenv(memoryChildEnv)
	if path == "" {
		t.Skip("run by TestProfileMemoryBound")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	p, err := ProfileReader(f, info.Size(), "") // CSV or Parquet, by content
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
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fields := parquet.Group{}
	for j := range cols {
		fields[fmt.Sprintf("c%02d", j)] = parquet.Leaf(parquet.DoubleType)
	}
	w := parquet.NewWriter(f, parquet.NewSchema("doubles", fields))
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
