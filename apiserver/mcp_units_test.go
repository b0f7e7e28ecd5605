package apiserver_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/apiserver/mcp"
)

// TestMCPUploadDatasetUnits (issue 18 item 2): the upload_dataset tool sends the CSV and
// its units through the REST upload, so the dataset shows the units, and a unit that does
// not parse is the REST 400, naming the column and the syntax, as a tool error.
func TestMCPUploadDatasetUnits(t *testing.T) {
	base, key := apiserver.LimitedFacade(t, 1000, 1000, apiserver.Timeouts{}, mcp.Facade)
	bearer := "Bearer " + key
	body, _ := json.Marshal(map[string]any{"name": "mcp units"})
	req, _ := http.NewRequest(http.MethodPost, base+"/projects", bytes.NewReader(body))
	req.Header.Set("Authorization", bearer)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var project map[string]any
	_ = json.NewDecoder(res.Body).Decode(&project)
	res.Body.Close()
	pid, _ := project["id"].(string)
	if res.StatusCode != http.StatusCreated || pid == "" {
		t.Fatalf("create project: %d %v", res.StatusCode, project)
	}
	upload := func(units map[string]any) (map[string]any, string) {
		t.Helper()
		a := mcpPost(t, base, bearer, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": map[string]any{
			"name": "upload_dataset", "arguments": map[string]any{"project_id": pid, "name": "newton",
				"csv": "F,m,a\n2,1,2\n6,2,3\n", "units": units}}})
		result, _ := a.body["result"].(map[string]any)
		if a.status != http.StatusOK || result == nil {
			t.Fatalf("tools/call upload_dataset: %d %s", a.status, a.raw)
		}
		content, _ := result["content"].([]any)
		text := ""
		if len(content) > 0 {
			text, _ = content[0].(map[string]any)["text"].(string)
		}
		if result["isError"] == true {
			return nil, text
		}
		ds, _ := result["structuredContent"].(map[string]any)
		return ds, ""
	}

	units := map[string]any{"F": "kg*m/s^2", "m": "kg", "a": "m/s^2"}
	ds, failed := upload(units)
	if failed != "" {
		t.Fatalf("upload_dataset failed: %s", failed)
	}
	got, _ := json.Marshal(ds["units"])
	want, _ := json.Marshal(units)
	if !bytes.Equal(got, want) || ds["format"] != "csv" || ds["status"] != "profiling" {
		t.Fatalf("upload_dataset answered %v, want units %s", ds, want)
	}

	_, failed = upload(map[string]any{"F": "kg*m/s^", "m": "kg"})
	for _, s := range []string{"validation_error", `column "F"`, "kg*m/s^2"} {
		if !strings.Contains(failed, s) {
			t.Errorf("a bad unit: tool error %q lacks %s", failed, s)
		}
	}
}
