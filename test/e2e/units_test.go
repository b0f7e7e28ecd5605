package e2e

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/test/live"
)

// Units declared with a dataset (issue 18 item 2), over REST against a real `disco dev`:
// the upload's units show on the dataset; a symbolic run without a units: constraint
// uses them, so its law claims carry dimensionally_consistent and name the units in
// scope.constraints_satisfied; a run with its own units: constraint keeps its own; a
// unit that does not parse is a 400 naming the column.
func TestDatasetUnitsReachTheRun(t *testing.T) {
	p := startDev(t, t.TempDir(), freeAddr(t))
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}
	pid := a.must(201, "POST", "/projects", map[string]any{"name": "units"})["id"].(string)
	cid := a.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "newton", "budget": map[string]any{"compute_units": 10000, "max_runs": 5}})["id"].(string)

	// F = m·a, with m in kg and a in m/s².
	var csv strings.Builder
	csv.WriteString("m,a,F\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		m, acc := 0.5+4*rng.Float64(), -3+6*rng.Float64()
		fmt.Fprintf(&csv, "%.6f,%.6f,%.6f\n", m, acc, m*acc)
	}
	units := map[string]any{"F": "N", "m": "kg", "a": "m/s^2"}

	code, bad := uploadWithUnits(a, pid, `{"name":"bad","format":"csv","units":{"F":"kg*m/s^","m":"kg"}}`, []byte(csv.String()))
	if msg := fmt.Sprint(bad["error"]); code != 400 || !strings.Contains(msg, `column "F"`) || !strings.Contains(msg, "kg*m/s^2") {
		t.Errorf("a bad unit = %d %v, want 400 naming column F and the syntax", code, bad)
	}

	code, ds := uploadWithUnits(a, pid, `{"name":"newton","format":"csv","units":{"F":"N","m":"kg","a":"m/s^2"}}`, []byte(csv.String()))
	if code != 201 {
		t.Fatalf("upload = %d %v", code, ds)
	}
	did := ds["id"].(string)
	live.Eventually(t, time.Minute, "dataset ready", func() bool {
		_, ds = a.do("GET", "/projects/"+pid+"/datasets/"+did, nil)
		if ds["status"] == "failed" {
			t.Fatalf("dataset failed: %v", ds)
		}
		return ds["status"] == "ready"
	})
	if !reflect.DeepEqual(ds["units"], units) {
		t.Fatalf("dataset units = %v, want %v", ds["units"], units)
	}

	runs := "/projects/" + pid + "/campaigns/" + cid + "/runs"
	laws := func(constraints []string) []map[string]any {
		t.Helper()
		run := a.must(201, "POST", runs, map[string]any{"mode": "symbolic", "dataset_id": did,
			"parameters": map[string]any{"target_variables": []string{"F"}, "constraints": constraints}})
		if st := a.runEnded(runs+"/"+run["id"].(string), 3*time.Minute); st["status"] != "completed" {
			t.Fatalf("run with constraints %q ended %v", constraints, st)
		}
		list := a.must(200, "GET", "/projects/"+pid+"/claims?type=law&limit=100&run_id="+run["id"].(string), nil)
		var out []map[string]any
		for _, c := range list["data"].([]any) {
			out = append(out, c.(map[string]any))
		}
		if len(out) == 0 {
			t.Fatalf("run with constraints %q made no law claim", constraints)
		}
		return out
	}
	satisfied := func(c map[string]any) []any {
		scope, _ := c["scope"].(map[string]any)
		s, _ := scope["constraints_satisfied"].([]any)
		return s
	}

	consistent := false
	for _, c := range laws(nil) {
		ev, _ := c["evidence"].(map[string]any)
		if _, ok := ev["dimensionally_consistent"]; !ok {
			t.Errorf("law %v = %v lacks dimensionally_consistent: %v", c["target"], c["expression"], ev)
		}
		consistent = consistent || ev["dimensionally_consistent"] == true
		if s := satisfied(c); !reflect.DeepEqual(s, []any{"units:F=N,a=m/s^2,m=kg"}) {
			t.Errorf("law %v: constraints_satisfied %v, want the dataset's units", c["expression"], s)
		}
	}
	if !consistent {
		t.Error("no law claim is dimensionally consistent")
	}

	// The run's own units: wins whole: only m has a unit, so no law can be checked.
	for _, c := range laws([]string{"units:m=kg"}) {
		ev, _ := c["evidence"].(map[string]any)
		if _, ok := ev["dimensionally_consistent"]; ok {
			t.Errorf("law %v with the run's own units:m=kg has dimensionally_consistent: %v", c["expression"], ev)
		}
		if s := satisfied(c); !reflect.DeepEqual(s, []any{"units:m=kg"}) {
			t.Errorf("law %v: constraints_satisfied %v, want only the run's units:m=kg", c["expression"], s)
		}
	}
}

// uploadWithUnits uploads csv with the metadata part meta and returns the answer.
func uploadWithUnits(a *api, projectID, meta string, csv []byte) (int, map[string]any) {
	a.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("metadata", meta)
	f, _ := w.CreateFormFile("file", "data.csv")
	_, _ = f.Write(csv)
	_ = w.Close()
	req, err := http.NewRequest("POST", a.base+"/projects/"+projectID+"/datasets", &buf)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+a.key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	return a.send(req)
}
