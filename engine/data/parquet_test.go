package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type sample struct {
	ID     int64    `parquet:"id"`
	Count  int32    `parquet:"count"`
	Temp   *float64 `parquet:"temp,optional"`
	Ratio  *float32 `parquet:"ratio,optional"`
	Alive  *bool    `parquet:"alive,optional"`
	Label  *string  `parquet:"label,optional,dict"`
	Weight float64  `parquet:"weight"`
}

func ptr[T any](v T) *T { return &v }

// writeParquet encodes rows with parquet-go's writer; small row groups and
// pages make the reader cross page and row-group boundaries, and zstd plus
// the dictionary-encoded label exercise decoding.
func writeParquet[T any](t *testing.T, rows []T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, parquet.MaxRowsPerRowGroup(3), parquet.PageBufferSize(64), parquet.Compression(&parquet.Zstd))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestParquetRoundTrip(t *testing.T) {
	rows := []sample{
		{ID: 1, Count: 10, Temp: ptr(20.5), Ratio: ptr(float32(0.5)), Alive: ptr(true), Label: ptr("a"), Weight: 1},
		{ID: 2, Count: -3, Temp: nil, Ratio: ptr(float32(1.25)), Alive: ptr(false), Label: nil, Weight: 2},
		{ID: 3, Count: 7, Temp: ptr(-1.0), Ratio: nil, Alive: nil, Label: ptr("ß"), Weight: 3},
		{ID: 4, Count: 0, Temp: ptr(3.0), Ratio: ptr(float32(2)), Alive: ptr(true), Label: ptr("c"), Weight: 4},
		{ID: 5, Count: 1, Temp: nil, Ratio: ptr(float32(4)), Alive: ptr(true), Label: ptr("a"), Weight: 5},
	}
	data := writeParquet(t, rows)
	if pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data))); err != nil || len(pf.RowGroups()) < 2 {
		t.Fatalf("test file should span several row groups: %v", err)
	}
	for _, format := range []string{"parquet", ""} {
		f, err := Read(bytes.NewReader(data), int64(len(data)), format)
		if err != nil {
			t.Fatalf("Read(%q): %v", format, err)
		}
		if f.Rows != 5 || !slices.Equal(f.Names(), []string{"id", "count", "temp", "ratio", "alive", "label", "weight"}) {
			t.Fatalf("Rows = %d, Names = %v", f.Rows, f.Names())
		}
		check := func(name string, dtype DType, want []float64, nulls int) {
			t.Helper()
			c, _ := f.Column(name)
			if c.DType != dtype || c.Nulls != nulls || len(c.Values) != len(want) {
				t.Fatalf("%s: dtype %s nulls %d values %v; want %s %d %v", name, c.DType, c.Nulls, c.Values, dtype, nulls, want)
			}
			for i := range want {
				if c.Values[i] != want[i] && !(math.IsNaN(want[i]) && math.IsNaN(c.Values[i])) {
					t.Errorf("%s[%d] = %v, want %v", name, i, c.Values[i], want[i])
				}
			}
		}
		nan := math.NaN()
		check("id", Int64, []float64{1, 2, 3, 4, 5}, 0)
		check("count", Int64, []float64{10, -3, 7, 0, 1}, 0)
		check("temp", Float64, []float64{20.5, nan, -1, 3, nan}, 2)
		check("ratio", Float64, []float64{0.5, 1.25, nan, 2, 4}, 1)
		check("alive", Bool, []float64{1, 0, nan, 1, 1}, 1)
		check("weight", Float64, []float64{1, 2, 3, 4, 5}, 0)
		label, _ := f.Column("label")
		if label.DType != String || !slices.Equal(label.Strings, []string{"a", "", "ß", "c", "a"}) || label.Nulls != 1 {
			t.Errorf("label = %s %q nulls %d", label.DType, label.Strings, label.Nulls)
		}
	}
}

type nested struct {
	ID   int64   `parquet:"id"`
	Tags []int64 `parquet:"tags,list"`
}

func TestParquetNestedUnsupported(t *testing.T) {
	data := writeParquet(t, []nested{{ID: 1, Tags: []int64{1, 2}}})
	_, err := Read(bytes.NewReader(data), int64(len(data)), "parquet")
	if ve := wantValidation(t, err, CodeDatasetFormatUnsupported); ve.Column != "tags" {
		t.Errorf("Column = %q, want tags", ve.Column)
	}
}

type onlyID struct {
	ID int64 `parquet:"id"`
}

func TestParquetEmpty(t *testing.T) {
	data := writeParquet(t, []onlyID{})
	_, err := Read(bytes.NewReader(data), int64(len(data)), "parquet")
	wantCode(t, err, CodeDatasetEmpty)
}

func TestParquetGarbageUnreadable(t *testing.T) {
	_, err := readText("a,b\n1,2\n", "parquet")
	wantCode(t, err, CodeDatasetUnreadable)
	// Right magic, wrong insides.
	_, err = readText("PAR1 this is not really parquet PAR1", "parquet")
	wantCode(t, err, CodeDatasetUnreadable)
}

type fixedBytes struct {
	ID   int64    `parquet:"id"`
	UUID [16]byte `parquet:"uuid"`
}

func TestParquetUnsupportedType(t *testing.T) {
	data := writeParquet(t, []fixedBytes{{ID: 1}})
	_, err := Read(bytes.NewReader(data), int64(len(data)), "parquet")
	if ve := wantValidation(t, err, CodeDatasetFormatUnsupported); ve.Column != "uuid" {
		t.Errorf("Column = %q, want uuid", ve.Column)
	}
}

type rawBytes struct {
	Blob []byte `parquet:"blob"`
	Big  uint32 `parquet:"big"`
}

func TestParquetUnsignedAndRawBytes(t *testing.T) {
	data := writeParquet(t, []rawBytes{{Blob: []byte("ok"), Big: 4_000_000_000}})
	f, err := Read(bytes.NewReader(data), int64(len(data)), "parquet")
	if err != nil {
		t.Fatal(err)
	}
	if blob, _ := f.Column("blob"); blob.DType != String || blob.Strings[0] != "ok" {
		t.Errorf("blob = %+v", blob)
	}
	if big, _ := f.Column("big"); big.DType != Int64 || big.Values[0] != 4e9 {
		t.Errorf("big = %+v, want 4e9 read as unsigned", big)
	}
	data = writeParquet(t, []rawBytes{{Blob: []byte("ok")}, {Blob: []byte{0xff, 0xfe}}})
	_, err = Read(bytes.NewReader(data), int64(len(data)), "parquet")
	if ve := wantValidation(t, err, CodeDatasetUnreadable); ve.Column != "blob" || ve.Row != 2 {
		t.Errorf("error = %+v, want column blob row 2", ve)
	}
}

func TestLoadParquetByExtension(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.parquet")
	if err := os.WriteFile(path, writeParquet(t, []onlyID{{1}, {2}}), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, "")
	if err != nil || f.Rows != 2 || f.Columns[0].Values[1] != 2 {
		t.Fatalf("Load = %+v, %v", f, err)
	}
}

// Reading a whole Parquet file refuses metadata over maxParquetFooter
// before decoding it, as profiling and validation do.
func TestReadRefusesOversizedParquetMetadata(t *testing.T) {
	n := maxParquetFooter + 1
	file := make([]byte, 4+n+8)
	copy(file, "PAR1")
	binary.LittleEndian.PutUint32(file[4+n:], uint32(n))
	copy(file[4+n+4:], "PAR1")
	_, err := Read(bytes.NewReader(file), int64(len(file)), "parquet")
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Code != CodeDatasetUnreadable || !strings.Contains(ve.Message, "more than the limit") {
		t.Fatalf("err = %v, want dataset_unreadable naming the metadata limit", err)
	}
}
