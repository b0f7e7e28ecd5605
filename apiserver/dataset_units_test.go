package apiserver

import (
	"reflect"
	"strings"
	"testing"
)

// An upload may declare its columns' units (issue 18 item 2): the Dataset shows them, a
// unit that does not parse or names a column the file lacks is refused with 400 and a
// message naming the column, and a dataset without units has no units field.
func TestDatasetUnits(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	data := csvData(30) // columns t, x, y

	r := upload(t, key, pid, "units.csv", data, `{"name": "units", "format": "csv", "units": {"t": "s", "x": "m", "y": "m^2"}}`).expect(t, 201)
	did := r.str("id")
	want := map[string]any{"t": "s", "x": "m", "y": "m^2"}
	if units, _ := r.JSON["units"].(map[string]any); !reflect.DeepEqual(units, want) {
		t.Fatalf("upload answered units %v, want %v: %s", r.JSON["units"], want, r.Raw)
	}
	g := call(t, "GET", "/v1/projects/"+pid+"/datasets/"+did, key, nil).expect(t, 200)
	if units, _ := g.JSON["units"].(map[string]any); !reflect.DeepEqual(units, want) {
		t.Fatalf("GET answered units %v, want %v", g.JSON["units"], want)
	}

	plain := upload(t, key, pid, "plain.csv", data, `{"name": "plain", "format": "csv"}`).expect(t, 201)
	if _, ok := plain.JSON["units"]; ok {
		t.Fatalf("a dataset without units has a units field: %s", plain.Raw)
	}

	bad := upload(t, key, pid, "bad.csv", data, `{"name": "bad", "format": "csv", "units": {"t": "s", "x": "kg*m/s^"}}`).expect(t, 400, "validation_error")
	msg := bad.JSON["error"].(map[string]any)["message"].(string)
	for _, s := range []string{`column "x"`, `"kg*m/s^"`, "kg*m/s^2"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q lacks %q", msg, s)
		}
	}
	if !strings.Contains(string(bad.Raw), `"field":"body.metadata.units.x"`) {
		t.Errorf("details.fields does not name body.metadata.units.x: %s", bad.Raw)
	}

	missing := upload(t, key, pid, "missing.csv", data, `{"name": "missing", "format": "csv", "units": {"t": "s", "F": "N"}}`).expect(t, 400, "validation_error")
	if msg := missing.JSON["error"].(map[string]any)["message"].(string); !strings.Contains(msg, `"F"`) || !strings.Contains(msg, "which the file does not have") {
		t.Errorf("message %q does not name the missing column", msg)
	}
	if !strings.Contains(string(missing.Raw), `"missing_columns":["F"]`) {
		t.Errorf("details lack missing_columns: %s", missing.Raw)
	}

	long := upload(t, key, pid, "long.csv", data, `{"name": "long", "format": "csv", "units": {"t": "`+strings.Repeat("m*", 40)+`m"}}`).expect(t, 400, "validation_error")
	if msg := long.JSON["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "longer than 64 bytes") {
		t.Errorf("an over-long unit: message %q", msg)
	}
}
