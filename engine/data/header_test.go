package data

import (
	"bytes"
	"slices"
	"testing"
)

// Header names the columns as profiling does, from the header line or the footer alone.
func TestHeaderNamesColumnsAsProfilingDoes(t *testing.T) {
	csv := []byte("\uFEFF t , x,,y\n1,2,3,4\n5,6,7,8\n")
	pq := writeParquet(t, []sample{{ID: 1, Weight: 1}})
	for _, c := range []struct {
		format string
		file   []byte
	}{{"csv", csv}, {"parquet", pq}} {
		names, err := Header(bytes.NewReader(c.file), int64(len(c.file)), c.format)
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		p := streamProfile(t, c.file, c.format)
		var want []string
		for _, col := range p.Columns {
			want = append(want, col.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: Header = %q, profile names %q", c.format, names, want)
		}
	}
	dup := []byte("a,a\n1,2\n")
	if _, err := Header(bytes.NewReader(dup), int64(len(dup)), "csv"); err == nil {
		t.Error("duplicate column names gave no error")
	}
}
