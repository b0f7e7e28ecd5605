package data

import (
	"math"
	"slices"
	"testing"
)

func TestMatrixIsColumnMajorCopy(t *testing.T) {
	f := mustRead(t, "a,b,s\n1,10,x\n2,20,y\n3,NA,z\n", "csv")
	m, err := f.Matrix([]string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m[0][0] != 10 || m[0][1] != 20 || !math.IsNaN(m[0][2]) || !slices.Equal(m[1], []float64{1, 2, 3}) {
		t.Fatalf("Matrix = %v", m)
	}
	m[1][0] = 99
	if a, _ := f.Column("a"); a.Values[0] != 1 {
		t.Error("Matrix shares memory with the frame")
	}
	_, err = f.Matrix([]string{"a", "nope"})
	if ve := wantValidation(t, err, CodeColumnUnknown); ve.Column != "nope" {
		t.Errorf("Column = %q", ve.Column)
	}
	_, err = f.Matrix([]string{"s"})
	wantCode(t, err, CodeColumnNonNumeric)
}

func TestSliceAndHead(t *testing.T) {
	f := mustRead(t, "a,s\n1,x\nNA,y\n3,\n", "csv")
	g := f.Slice([]int{2, 1, 1})
	if g.Rows != 3 {
		t.Fatalf("Rows = %d", g.Rows)
	}
	a, _ := g.Column("a")
	s, _ := g.Column("s")
	if a.Values[0] != 3 || !math.IsNaN(a.Values[1]) || a.Nulls != 2 {
		t.Errorf("a = %v nulls %d", a.Values, a.Nulls)
	}
	if !slices.Equal(s.Strings, []string{"", "y", "y"}) || s.Nulls != 1 {
		t.Errorf("s = %q nulls %d", s.Strings, s.Nulls)
	}
	g.Columns[0].Values[0] = 42
	if f.Columns[0].Values[2] != 3 {
		t.Error("Slice shares memory with the frame")
	}
	if h := f.Head(2); h.Rows != 2 || h.Columns[0].Nulls != 1 {
		t.Errorf("Head(2) = %d rows, %d nulls", h.Rows, h.Columns[0].Nulls)
	}
	if h := f.Head(10); h.Rows != 3 {
		t.Errorf("Head(10) = %d rows, want 3", h.Rows)
	}
}
