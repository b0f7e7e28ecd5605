package data

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// histogramCSV: x is a float column spanning [0, 10] with two nulls, an
// Inf and a -Inf; k is an int column of 3 distinct integers; c is
// constant; e is empty; s is text; b is bool.
const histogramCSV = `x,k,c,e,s,b
0,1,2.5,,a,true
10,3,2.5,,b,false
5,2,2.5,,c,true
NA,1,2.5,,d,true
inf,1,2.5,,e,false
-inf,2,2.5,,f,true
2.4,3,2.5,,g,true
,1,2.5,,h,false
`

func column(t *testing.T, p Profile, name string) ColumnProfile {
	t.Helper()
	for _, c := range p.Columns {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no column %q in %+v", name, p.Columns)
	return ColumnProfile{}
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

func TestHistogramPerColumn(t *testing.T) {
	for _, path := range []string{"loaded", "streamed", "streamed-large"} {
		t.Run(path, func(t *testing.T) {
			var p Profile
			switch path {
			case "loaded":
				p = loadedProfile(t, []byte(histogramCSV), "csv")
			case "streamed":
				p = streamProfile(t, []byte(histogramCSV), "csv")
			default:
				withBudgets(t, 2, 4*minBins, 1024)
				p = streamProfile(t, []byte(histogramCSV), "csv")
			}
			x := column(t, p, "x")
			h := x.Histogram
			if h == nil || x.Min == nil || *x.Min != 0 || *x.Max != 10 {
				t.Fatalf("x = %+v, want min 0, max 10 and a histogram", x)
			}
			if len(h.Counts) != HistogramBins || h.Low != 0 || h.High != 10 {
				t.Errorf("x bins = %d over [%v, %v], want %d over [0, 10]", len(h.Counts), h.Low, h.High, HistogramBins)
			}
			// 8 rows, 2 nulls: 4 finite values in bins, one each of ±Inf.
			if sum(h.Counts)+h.NegInf+h.PosInf != p.RowCount-x.NullCount || h.NegInf != 1 || h.PosInf != 1 {
				t.Errorf("x counts %v, -Inf %d, +Inf %d, want 4 in bins, 1 and 1", h.Counts, h.NegInf, h.PosInf)
			}
			// Width 0.5: 0 in bin 0, 2.4 in bin 4, 5 in bin 10, the maximum in the last bin.
			if h.Counts[0] != 1 || h.Counts[4] != 1 || h.Counts[10] != 1 || h.Counts[HistogramBins-1] != 1 {
				t.Errorf("x counts %v, want one in bins 0, 4, 10 and 19", h.Counts)
			}

			k := column(t, p, "k").Histogram
			if want := []int{4, 2, 2}; k == nil || !reflect.DeepEqual(k.Counts, want) || k.Low != 0.5 || k.High != 3.5 {
				t.Errorf("k = %+v, want one bin per integer [0.5, 3.5] with %v", k, want)
			}
			c := column(t, p, "c").Histogram
			if c == nil || len(c.Counts) != 1 || c.Counts[0] != 8 || c.Low != 2.5 || c.High != 2.5 {
				t.Errorf("constant c = %+v, want one bin [2.5, 2.5] of 8", c)
			}
			b := column(t, p, "b").Histogram
			if want := []int{3, 5}; b == nil || !reflect.DeepEqual(b.Counts, want) || b.Low != -0.5 || b.High != 1.5 {
				t.Errorf("bool b = %+v, want bins for false and true with %v", b, want)
			}
			for _, name := range []string{"e", "s"} {
				if c := column(t, p, name); c.Histogram != nil || c.Min != nil || c.Max != nil {
					t.Errorf("%s = %+v, want no histogram, min or max", name, c)
				}
			}
			if _, err := json.Marshal(p); err != nil {
				t.Errorf("the profile does not encode: %v", err)
			}
		})
	}
}

func TestHistogramOfInfinitiesOnly(t *testing.T) {
	p := streamProfile(t, []byte("v\ninf\n-inf\ninf\n\n"), "csv")
	v := column(t, p, "v")
	if h := v.Histogram; h == nil || len(h.Counts) != 0 || h.NegInf != 1 || h.PosInf != 2 || v.Min != nil {
		t.Errorf("v = %+v %+v, want no bins, 1 -Inf and 2 +Inf", v, v.Histogram)
	}
}

func TestHistogramExtremeRange(t *testing.T) {
	// max − min overflows float64; the bins must still split the range.
	p := streamProfile(t, []byte("v\n-1.7e308\n1.7e308\n0\n"), "csv")
	h := column(t, p, "v").Histogram
	if h == nil || h.Counts[0] != 1 || h.Counts[HistogramBins/2] != 1 || h.Counts[HistogramBins-1] != 1 {
		t.Errorf("histogram = %+v, want the values in the first, middle and last bins", h)
	}
}

func ExampleProfileOf_histogram() {
	text := "age\n21\n35\n38\n62\n"
	f, err := Read(strings.NewReader(text), int64(len(text)), "csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	h := ProfileOf(f).Columns[0].Histogram
	fmt.Printf("%d bins of width %g from %g: %v\n", len(h.Counts), (h.High-h.Low)/float64(len(h.Counts)), h.Low, h.Counts)
	// Output: 20 bins of width 2.05 from 21: [1 0 0 0 0 0 1 0 1 0 0 0 0 0 0 0 0 0 0 1]
}

func TestTopValuesOfTextColumns(t *testing.T) {
	var b strings.Builder
	b.WriteString("kind,id,note\n")
	for i := range 100 {
		kind := []string{"b", "a", "c", "a", "<b>x</b>"}[i%5]
		note := "short"
		if i == 50 {
			note = strings.Repeat("long ", 40)
		}
		fmt.Fprintf(&b, "%s,id%d,%s\n", kind, i, note)
	}
	b.WriteString(",id100,NA\n")
	text := []byte(b.String())
	withBudgets(t, 2, 4*minBins, 1024) // the streamed profile takes the large-file path
	budget := distinctValueBudget
	distinctValueBudget = 3 * 50 // 50 distinct values per text column
	t.Cleanup(func() { distinctValueBudget = budget })
	for name, p := range map[string]Profile{"loaded": loadedProfile(t, text, "csv"), "streamed": streamProfile(t, text, "csv")} {
		kind := column(t, p, "kind")
		want := []ValueCount{{"a", 40}, {"<b>x</b>", 20}, {"b", 20}, {"c", 20}}
		if !reflect.DeepEqual(kind.TopValues, want) || kind.DistinctValues == nil || *kind.DistinctValues != 4 {
			t.Errorf("%s: kind top values %v (%v distinct), want %v", name, kind.TopValues, kind.DistinctValues, want)
		}
		// 101 distinct ids exceed the column's share of 50; a value over 128 bytes is not a category.
		for _, c := range []string{"id", "note"} {
			if col := column(t, p, c); col.TopValues != nil || col.DistinctValues != nil {
				t.Errorf("%s: %s has top values %v", name, c, col.TopValues)
			}
		}
	}
}

func TestTopValuesListsAtMostTen(t *testing.T) {
	var b strings.Builder
	b.WriteString("k\n")
	for i := range 30 {
		for range i + 1 {
			fmt.Fprintf(&b, "v%02d\n", i)
		}
	}
	k := column(t, streamProfile(t, []byte(b.String()), "csv"), "k")
	if len(k.TopValues) != TopValuesShown || k.TopValues[0] != (ValueCount{"v29", 30}) || k.TopValues[9] != (ValueCount{"v20", 21}) || *k.DistinctValues != 30 {
		t.Errorf("top values %v, %v distinct", k.TopValues, *k.DistinctValues)
	}
}
