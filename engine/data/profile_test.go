package data

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// profileCSV is small enough to profile by hand:
//
//	x (int64):  1 2 3 4 100 1 -> mean 18.5, sample var 7977.5/5 = 1595.5;
//	            sorted 1 1 2 3 4 100, type-4 quartiles Q1 = 1, Q3 = 3.5,
//	            fences [-2.75, 7.25] -> 100 is the only outlier.
//	y (float):  2.5 _ 4.5 _ 2.5 2.5 -> mean 3, sample var 3/3 = 1;
//	            Q1 = Q3 = 2.5 -> 4.5 is an outlier.
//	s (string): one null.  b (bool): 1 0 1 1 0 1 -> mean 2/3, var 4/15.
//	Row 6 repeats row 1; 3 null cells of 24; outliers 2 of 10 cells.
const profileCSV = `x,y,s,b
1,2.5,a,true
2,,b,false
3,4.5,c,true
4,NA,,true
100,2.5,a,false
1,2.5,a,true
`

func TestProfileOf(t *testing.T) {
	p := ProfileOf(mustRead(t, profileCSV, "csv"))
	if p.RowCount != 6 || p.ColumnCount != 4 {
		t.Fatalf("counts = %d rows, %d columns", p.RowCount, p.ColumnCount)
	}
	want := []struct {
		name, dtype string
		mean, std   float64 // NaN: expect nil
		nulls       int
	}{
		{"x", "int64", 18.5, math.Sqrt(1595.5), 0},
		{"y", "float64", 3, 1, 2},
		{"s", "string", math.NaN(), math.NaN(), 1},
		{"b", "bool", 2.0 / 3, math.Sqrt(4.0 / 15), 0},
	}
	for i, w := range want {
		c := p.Columns[i]
		if c.Name != w.name || c.DType != w.dtype || c.NullCount != w.nulls {
			t.Errorf("column %d = %+v, want %s %s nulls %d", i, c, w.name, w.dtype, w.nulls)
		}
		checkStat(t, w.name+" mean", c.Mean, w.mean)
		checkStat(t, w.name+" std", c.Std, w.std)
	}
	q := p.Quality
	if q.Completeness != 21.0/24 || q.DuplicateRows != 1 || math.Abs(q.OutlierFraction-0.2) > 1e-12 {
		t.Errorf("quality = %+v, want completeness 0.875, 1 duplicate, outliers 0.2", q)
	}
}

func checkStat(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	switch {
	case math.IsNaN(want) && got != nil:
		t.Errorf("%s = %v, want nil", what, *got)
	case !math.IsNaN(want) && got == nil:
		t.Errorf("%s = nil, want %v", what, want)
	case got != nil && math.Abs(*got-want) > 1e-9:
		t.Errorf("%s = %v, want %v", what, *got, want)
	}
}

func TestProfileJSON(t *testing.T) {
	// A single value and an infinity must not put NaN or Inf into the JSON.
	f := mustRead(t, "a,b,c\n1,Inf,\n1,2,\n", "csv")
	p := ProfileOf(f)
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	for _, key := range []string{`"row_count":2`, `"column_count":3`, `"null_count":2`, `"duplicate_rows":0`, `"completeness":`, `"outlier_fraction":`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("JSON %s lacks %s", raw, key)
		}
	}
	b := p.Columns[1]
	if b.Mean == nil || *b.Mean != 2 || b.Std != nil {
		t.Errorf("b profile = %+v, want mean 2 over finite cells, std nil", b)
	}
	if c := p.Columns[2]; c.Mean != nil || c.Std != nil || c.NullCount != 2 {
		t.Errorf("all-null column profile = %+v", c)
	}
	// Column a is constant (no outliers); b's Inf counts as an outlier.
	if got := p.Quality.OutlierFraction; got != 1.0/4 {
		t.Errorf("outlier fraction = %v, want 1/4", got)
	}
}

func TestDuplicateRowsTreatsNullsAndSignedZeroAsEqual(t *testing.T) {
	f := mustRead(t, "a,b,s\n0,NA,x\n-0.0,,x\n0,1,x\n0,NA,\n0,NA,\n", "csv")
	if got := ProfileOf(f).Quality.DuplicateRows; got != 2 {
		t.Errorf("duplicates = %d, want 2 (row 2 = row 1, row 5 = row 4)", got)
	}
}

func TestDuplicateRowsSurviveHashCollisions(t *testing.T) {
	f := mustRead(t, "a,s\n1,x\n2,x\n1,x\n2,x\n3,y\n2,x\n", "csv")
	collide := func(int) uint64 { return 7 } // every row in one bucket
	if got := countDuplicateRowsBy(f, collide); got != 3 {
		t.Errorf("duplicates with colliding hashes = %d, want 3", got)
	}
	if got := countDuplicateRows(f); got != 3 {
		t.Errorf("duplicates = %d, want 3", got)
	}
}
