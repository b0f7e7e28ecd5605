package data

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const sachsPath = "/work/shared/data/sachs-2005-continuous.tsv"

func TestLoadSachsTSV(t *testing.T) {
	if _, err := os.Stat(sachsPath); err != nil {
		t.Skipf("Sachs data not available: %v", err)
	}
	f, err := Load(sachsPath, "")
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows != 7466 {
		t.Errorf("Rows = %d, want 7466", f.Rows)
	}
	want := []string{"raf", "mek", "plc", "pip2", "pip3", "erk", "akt", "pka", "pkc", "p38", "jnk"}
	if got := f.Names(); !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	if got := f.Numeric(); !slices.Equal(got, want) {
		t.Errorf("Numeric = %v, want %v", got, want)
	}
	for _, c := range f.Columns {
		if c.DType != Float64 || len(c.Values) != 7466 || c.Nulls != 0 {
			t.Errorf("column %s: dtype %s, %d values, %d nulls; want float64, 7466, 0", c.Name, c.DType, len(c.Values), c.Nulls)
		}
	}
	// First data row: 26.4000 13.2000 8.8200 ... 40.0000
	raf, _ := f.Column("raf")
	jnk, _ := f.Column("jnk")
	if raf.Values[0] != 26.4 || jnk.Values[0] != 40 || raf.Values[1] != 35.9 {
		t.Errorf("first values raf=%v,%v jnk=%v; want 26.4,35.9 and 40", raf.Values[0], raf.Values[1], jnk.Values[0])
	}
	if err := f.Validate(Requirements{}); err != nil {
		t.Errorf("Validate: %v", err)
	}
	if obs := f.Head(853); obs.Rows != 853 || obs.Columns[0].Values[0] != 26.4 {
		t.Errorf("Head(853) has %d rows", obs.Rows)
	}
}

func TestCSVTypeInference(t *testing.T) {
	f := mustRead(t, "i,f,b,s,empty\n1,1.5,true,x,\n-2,NA,FALSE,y,NaN\n3,1e3,True,,null\n", "csv")
	if f.Rows != 3 {
		t.Fatalf("Rows = %d, want 3", f.Rows)
	}
	want := map[string]DType{"i": Int64, "f": Float64, "b": Bool, "s": String, "empty": Float64}
	for name, dtype := range want {
		c, ok := f.Column(name)
		if !ok || c.DType != dtype {
			t.Errorf("column %s: found %v, dtype %v; want %v", name, ok, c.DType, dtype)
		}
	}
	i, _ := f.Column("i")
	if !slices.Equal(i.Values, []float64{1, -2, 3}) {
		t.Errorf("i = %v", i.Values)
	}
	fl, _ := f.Column("f")
	if fl.Values[0] != 1.5 || !math.IsNaN(fl.Values[1]) || fl.Values[2] != 1000 || fl.Nulls != 1 {
		t.Errorf("f = %v nulls %d", fl.Values, fl.Nulls)
	}
	b, _ := f.Column("b")
	if !slices.Equal(b.Values, []float64{1, 0, 1}) {
		t.Errorf("b = %v", b.Values)
	}
	s, _ := f.Column("s")
	if !slices.Equal(s.Strings, []string{"x", "y", ""}) || s.Nulls != 1 || s.Values != nil {
		t.Errorf("s = %q nulls %d values %v", s.Strings, s.Nulls, s.Values)
	}
	e, _ := f.Column("empty")
	if e.Nulls != 3 {
		t.Errorf("empty column nulls = %d, want 3", e.Nulls)
	}
	if got := f.Numeric(); !slices.Equal(got, []string{"i", "f", "b", "empty"}) {
		t.Errorf("Numeric = %v", got)
	}
}

func TestCSVMixedIntAndFloatIsFloat(t *testing.T) {
	f := mustRead(t, "a\n1\n2.5\n", "csv")
	if f.Columns[0].DType != Float64 {
		t.Errorf("dtype = %s, want float64", f.Columns[0].DType)
	}
	f = mustRead(t, "a\n1\nabc\n", "csv")
	if c := f.Columns[0]; c.DType != String || !slices.Equal(c.Strings, []string{"1", "abc"}) {
		t.Errorf("column = %+v, want string column keeping the original text", c)
	}
}

func TestCSVDelimiterSniffing(t *testing.T) {
	cases := map[string]string{
		"comma":         "a,b\n1,2\n3,4\n",
		"tab":           "a\tb\n1\t2\n3\t4\n",
		"semicolon":     "a;b\n1,5;2\n3;4\n", // decimal comma makes ',' inconsistent
		"pipe":          "a|b\n1|2\n3|4\n",
		"quoted":        "\"a,x\";b\n\"1,5\";2\n",
		"crlf and BOM":  "\uFEFFa,b\r\n1,2\r\n",
		"spaces":        "a , b\n 1 , 2 \n",
		"no final line": "a,b\n1,2",
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			f := mustRead(t, text, "")
			if len(f.Columns) != 2 {
				t.Fatalf("got columns %q, want 2", f.Names())
			}
			if name != "quoted" && !slices.Equal(f.Names(), []string{"a", "b"}) {
				t.Errorf("Names = %q, want [a b]", f.Names())
			}
		})
	}
}

func TestCSVSingleColumn(t *testing.T) {
	f := mustRead(t, "x\n1\n2\n", "csv")
	if len(f.Columns) != 1 || f.Rows != 2 {
		t.Errorf("got %d columns, %d rows; want 1, 2", len(f.Columns), f.Rows)
	}
}

func TestCSVEmptyHeaderNamed(t *testing.T) {
	f := mustRead(t, ",a\n0,1\n", "csv")
	if !slices.Equal(f.Names(), []string{"column_1", "a"}) {
		t.Errorf("Names = %q", f.Names())
	}
}

func TestCSVLargerThanSniffSample(t *testing.T) {
	var b strings.Builder
	b.WriteString("x;y\n")
	for i := range 20000 {
		b.WriteString("1;")
		b.WriteString(strings.Repeat("7", i%5+1))
		b.WriteString("\n")
	}
	f := mustRead(t, b.String(), "csv")
	if f.Rows != 20000 || f.Columns[1].Values[4] != 77777 {
		t.Errorf("Rows = %d, y[4] = %v", f.Rows, f.Columns[1].Values[4])
	}
}

func TestLoadByExtension(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.txt")
	if err := os.WriteFile(path, []byte("a|b\n1|2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path, "")
	if err != nil || f.Rows != 1 || len(f.Columns) != 2 {
		t.Fatalf("Load = %v, %v", f, err)
	}
}
