package jsonshape

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

type inner struct {
	P *float64 `json:"p_value"`
}

type common struct {
	Passed bool `json:"passed"`
}

type outer struct {
	_ struct{}
	common
	Name    string           `json:"name,omitempty"`
	Rows    []inner          `json:"rows"`
	ByName  map[string]inner `json:"by_name"`
	At      time.Time        `json:"at"`
	Skipped int              `json:"-"`
	Blob    []byte           `json:"blob"`
	hidden  int
}

func TestPaths(t *testing.T) {
	got := Paths(reflect.TypeFor[outer](), nil)
	want := map[string]string{"passed": "boolean", "name": "string", "rows": "array", "rows[]": "object",
		"rows[].p_value": "number", "by_name": "object", "by_name{}": "object", "by_name{}.p_value": "number",
		"at": "string", "blob": "string"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Paths = %v, want %v", got, want)
	}
	_ = outer{}.hidden
}

func TestDiff(t *testing.T) {
	a := map[string]string{"x": "number", "y": "string", "meta": "object", "meta.id": "string"}
	b := map[string]string{"x": "integer", "z": "boolean"}
	if got, want := Diff(a, b, "meta"), []string{"+z", "-y", "x: number != integer"}; !slices.Equal(got, want) {
		t.Fatalf("Diff = %v, want %v", got, want)
	}
	if got := Diff(a, a); len(got) != 0 {
		t.Fatalf("Diff of a shape with itself = %v", got)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"runID": "run_id", "temporalScope": "temporal_scope",
		"ledgerEntryID": "ledger_entry_id", "score": "score"} {
		if got := Snake(in); got != want {
			t.Errorf("Snake(%q) = %q, want %q", in, got, want)
		}
	}
}
