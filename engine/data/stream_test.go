package data

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"gonum.org/v1/gonum/stat"
)

// streamProfile profiles an in-memory file with ProfileReader.
func streamProfile(t *testing.T, text []byte, format string) Profile {
	t.Helper()
	p, err := ProfileReader(bytes.NewReader(text), int64(len(text)), format)
	if err != nil {
		t.Fatalf("ProfileReader: %v", err)
	}
	return p
}

// loadedProfile is ProfileOf over the loaded frame, the reference.
func loadedProfile(t *testing.T, text []byte, format string) Profile {
	t.Helper()
	f, err := Read(bytes.NewReader(text), int64(len(text)), format)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return ProfileOf(f)
}

// randomCSV mixes int, float (with nulls and ±Inf), bool, text and
// all-null columns, and repeats some rows.
func randomCSV(rng *rand.Rand, rows int) []byte {
	var b strings.Builder
	b.WriteString("i,f,b,s,empty,g\n")
	var prev string
	for r := range rows {
		if r > 0 && rng.IntN(5) == 0 {
			b.WriteString(prev)
			continue
		}
		f := fmt.Sprintf("%.3f", rng.NormFloat64()*10)
		switch rng.IntN(20) {
		case 0:
			f = "NA"
		case 1:
			f = "inf"
		case 2:
			f = ""
		}
		line := fmt.Sprintf("%d,%s,%t,w%d,,%g\n", rng.IntN(7)-3, f, rng.IntN(2) == 0, rng.IntN(4), math.Exp(rng.NormFloat64()*3))
		b.WriteString(line)
		prev = line
	}
	return []byte(b.String())
}

func TestProfileReaderEqualsProfileOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := map[string][]byte{
		"hand":       []byte(profileCSV),
		"json":       []byte("a,b,c\n1,Inf,\n1,2,\n"),
		"duplicates": []byte("a,b,s\n0,NA,x\n-0.0,,x\n0,1,x\n0,NA,\n0,NA,\n"),
		"tsv":        []byte("x\ty\n1\t2\n3\t4\n"),
		"random":     randomCSV(rng, 500),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			got, want := streamProfile(t, text, "csv"), loadedProfile(t, text, "csv")
			if !reflect.DeepEqual(got, want) {
				t.Errorf("ProfileReader = %+v\nProfileOf     = %+v", got, want)
			}
		})
	}
	t.Run("parquet", func(t *testing.T) {
		var rows []sample
		for i := range 200 {
			s := sample{ID: int64(i % 50), Count: int32(rng.IntN(9)), Weight: rng.NormFloat64()}
			if i%3 != 0 {
				s.Temp = ptr(rng.NormFloat64())
			}
			if i%4 != 0 {
				s.Label = ptr([]string{"a", "b", "ß"}[i%3])
				s.Alive = ptr(i%5 == 0)
			}
			rows = append(rows, s)
		}
		rows = append(rows, rows[:20]...)
		text := writeParquet(t, rows)
		got, want := streamProfile(t, text, ""), loadedProfile(t, text, "")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("ProfileReader = %+v\nProfileOf     = %+v", got, want)
		}
		if got.Quality.DuplicateRows < 20 {
			t.Errorf("duplicates = %d, want at least the 20 repeated rows", got.Quality.DuplicateRows)
		}
	})
}

// withBudgets makes small files take the large-file path.
func withBudgets(t *testing.T, cells, bins, rows int) {
	t.Helper()
	c, b, r := exactCellBudget, histogramBinBudget, duplicateRowLimit
	exactCellBudget, histogramBinBudget, duplicateRowLimit = cells, bins, rows
	t.Cleanup(func() { exactCellBudget, histogramBinBudget, duplicateRowLimit = c, b, r })
}

func TestProfileReaderEstimates(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	text := randomCSV(rng, 20000)
	want := loadedProfile(t, text, "csv")
	withBudgets(t, 100, 4*minBins, 1024)
	got := streamProfile(t, text, "csv")

	if got.RowCount != want.RowCount || got.Quality.Completeness != want.Quality.Completeness {
		t.Errorf("counts: %+v, want %+v", got, want)
	}
	for j, w := range want.Columns {
		g := got.Columns[j]
		if g.Name != w.Name || g.DType != w.DType || g.NullCount != w.NullCount || (g.Mean == nil) != (w.Mean == nil) || (g.Std == nil) != (w.Std == nil) {
			t.Fatalf("column %d = %+v, want %+v", j, g, w)
		}
		if w.Mean != nil && math.Abs(*g.Mean-*w.Mean) > 1e-9*math.Max(1, math.Abs(*w.Mean)) {
			t.Errorf("%s mean %v, want %v", w.Name, *g.Mean, *w.Mean)
		}
		if w.Std != nil && math.Abs(*g.Std-*w.Std) > 1e-9*math.Max(1, *w.Std) {
			t.Errorf("%s std %v, want %v", w.Name, *g.Std, *w.Std)
		}
		// The histogram pass counts the same Histogram as the loaded column.
		if !reflect.DeepEqual(g.Histogram, w.Histogram) || !reflect.DeepEqual(g.Min, w.Min) || !reflect.DeepEqual(g.Max, w.Max) {
			t.Errorf("%s: streamed %+v [%v, %v], loaded %+v", w.Name, g.Histogram, g.Min, g.Max, w.Histogram)
		}
		if h := w.Histogram; h != nil && sum(h.Counts)+h.NegInf+h.PosInf != want.RowCount-w.NullCount {
			t.Errorf("%s: %d counted, %d non-null", w.Name, sum(h.Counts)+h.NegInf+h.PosInf, want.RowCount-w.NullCount)
		}
	}
	// About a fifth of the rows repeat the row before; the sample is
	// scaled up from 1/2^level of the distinct rows.
	if d, w := got.Quality.DuplicateRows, want.Quality.DuplicateRows; math.Abs(float64(d-w)) > 0.25*float64(w) {
		t.Errorf("duplicates estimate %d, exact %d", d, w)
	}
	if o, w := got.Quality.OutlierFraction, want.Quality.OutlierFraction; math.Abs(o-w) > 0.01 {
		t.Errorf("outlier fraction estimate %v, exact %v", o, w)
	}
}

func TestProfileReaderEstimatesExactCases(t *testing.T) {
	// Few distinct values: every histogram bin holds one value, so the
	// quartiles and the outliers are exact. No row repeats, so the sampled
	// duplicate count is exactly 0.
	var b strings.Builder
	b.WriteString("id,k\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "%d,%d\n", i, []int{1, 2, 2, 3, 3, 3, 50}[i%7])
	}
	text := []byte(b.String())
	want := loadedProfile(t, text, "csv")
	withBudgets(t, 10, 4*minBins, 16)
	got := streamProfile(t, text, "csv")
	if got.Quality.DuplicateRows != 0 || got.Quality.OutlierFraction != want.Quality.OutlierFraction || want.Quality.OutlierFraction == 0 {
		t.Errorf("quality %+v, want %+v", got.Quality, want.Quality)
	}
}

func TestLinInterpQuantileIsGonums(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 1; n < 60; n++ {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		slices.Sort(x)
		for _, p := range []float64{0, 0.25, 0.5, 0.75, 1, 1.0 / 3, rng.Float64()} {
			if got, want := linInterpQuantile(p, n, func(k int) float64 { return x[k] }), stat.Quantile(p, stat.LinInterp, x, nil); got != want {
				t.Fatalf("n=%d p=%v: %v, gonum %v", n, p, got, want)
			}
		}
	}
}

func TestDuplicateSamplerBounded(t *testing.T) {
	d := newDuplicateSampler(1000)
	rng := rand.New(rand.NewPCG(7, 8))
	for range 100000 {
		h := rng.Uint64()
		d.add(h)
		d.add(h) // every row twice
	}
	if len(d.counts) > 1000 || d.level == 0 {
		t.Fatalf("sampler holds %d hashes at level %d", len(d.counts), d.level)
	}
	if got := d.duplicates(); math.Abs(float64(got)-100000) > 10000 {
		t.Errorf("duplicates = %d, want about 100000", got)
	}
}

// wideCSV has n columns and two rows.
func wideCSV(n int) []byte {
	var b strings.Builder
	for row := range 3 {
		for j := range n {
			if j > 0 {
				b.WriteByte(',')
			}
			if row == 0 {
				fmt.Fprintf(&b, "c%d", j)
			} else {
				b.WriteByte('1')
			}
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// wideParquet has n int64 columns and one row.
func wideParquet(t *testing.T, n int) []byte {
	t.Helper()
	group := parquet.Group{}
	for j := range n {
		group[fmt.Sprintf("c%d", j)] = parquet.Leaf(parquet.Int64Type)
	}
	schema := parquet.NewSchema("wide", group)
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, schema)
	row := make(parquet.Row, n)
	for j := range row {
		row[j] = parquet.Int64Value(int64(j)).Level(0, 0, j)
	}
	if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestProfileReaderRefusesWideFiles(t *testing.T) {
	for _, c := range []struct {
		format string
		file   func(n int) []byte
	}{
		{"csv", wideCSV},
		{"parquet", func(n int) []byte { return wideParquet(t, n) }},
	} {
		ok, wide := c.file(MaxColumns), c.file(MaxColumns+1)
		if n, err := Width(bytes.NewReader(wide), int64(len(wide)), c.format); err != nil || n != MaxColumns+1 {
			t.Errorf("%s Width = %d, %v; want %d", c.format, n, err, MaxColumns+1)
		}
		_, err := ProfileReader(bytes.NewReader(wide), int64(len(wide)), c.format)
		if ve := wantValidation(t, err, CodeDatasetTooWide); !strings.Contains(ve.Message, "4097 columns") || !strings.Contains(ve.Message, "4096") {
			t.Errorf("%s message %q names neither the width nor the limit", c.format, ve.Message)
		}
		if p := streamProfile(t, ok, c.format); p.ColumnCount != MaxColumns {
			t.Errorf("%s: %d columns profiled, want %d", c.format, p.ColumnCount, MaxColumns)
		}
	}
}

func TestProfileReaderBoundsRecordsAndFooters(t *testing.T) {
	long := []byte("a,b\n1," + strings.Repeat("x", maxRecordBytes+10) + "\n2,y\n")
	if _, err := Read(bytes.NewReader(long), int64(len(long)), "csv"); err != nil {
		t.Fatalf("the loader takes any row length: %v", err)
	}
	_, err := ProfileReader(bytes.NewReader(long), int64(len(long)), "csv")
	if ve := wantValidation(t, err, CodeDatasetUnreadable); !strings.Contains(ve.Message, "4 MiB") {
		t.Errorf("message %q does not name the limit", ve.Message)
	}
	// A footer length of 2^31 is refused before anything is decoded.
	huge := append([]byte("PAR1 not read "), 0, 0, 0, 0x80, 'P', 'A', 'R', '1')
	_, err = ProfileReader(bytes.NewReader(huge), int64(len(huge)), "parquet")
	if ve := wantValidation(t, err, CodeDatasetUnreadable); !strings.Contains(ve.Message, "metadata") {
		t.Errorf("message %q", ve.Message)
	}
}

func TestProfileReaderSameErrorsAsRead(t *testing.T) {
	bad := map[string][]byte{
		"ragged":    []byte("a,b\n1,2\n3\n"),
		"dup":       []byte("a,a\n1,2\n"),
		"binary":    {0, 1, 2},
		"no rows":   []byte("a,b\n"),
		"bad utf8":  append([]byte("a,b\n1,"), 0xff, '\n'),
		"not pq":    []byte("PAR1 nope PAR1"),
		"bad bytes": writeParquet(t, []rawBytes{{Blob: []byte("ok")}, {Blob: []byte{0xff, 0xfe}}}),
	}
	for name, text := range bad {
		_, rerr := Read(bytes.NewReader(text), int64(len(text)), "")
		_, perr := ProfileReader(bytes.NewReader(text), int64(len(text)), "")
		var rv, pv *ValidationError
		if !asValidation(rerr, &rv) || !asValidation(perr, &pv) || rv.Code != pv.Code || rv.Column != pv.Column || rv.Row != pv.Row {
			t.Errorf("%s: Read %v, ProfileReader %v", name, rerr, perr)
		}
	}
}

func asValidation(err error, ve **ValidationError) bool {
	v, ok := err.(*ValidationError)
	*ve = v
	return ok
}

func TestProfileSachsStreams(t *testing.T) {
	text, err := os.ReadFile(sachsPath)
	if err != nil {
		t.Skipf("Sachs data not available: %v", err)
	}
	if got, want := streamProfile(t, text, "csv"), loadedProfile(t, text, "csv"); !reflect.DeepEqual(got, want) {
		t.Errorf("ProfileReader = %+v\nProfileOf     = %+v", got, want)
	}
}
