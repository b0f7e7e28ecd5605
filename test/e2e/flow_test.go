package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/discolab/disco/internal/webhook"
)

// api is a tiny JSON client for the flow test.
type api struct {
	t    *testing.T
	base string
	key  string
}

func (a *api) do(method, path string, body any) (int, map[string]any) {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, a.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+a.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return a.send(req)
}

func (a *api) send(req *http.Request) (int, map[string]any) {
	a.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]any{}
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func (a *api) must(want int, method, path string, body any) map[string]any {
	a.t.Helper()
	code, out := a.do(method, path, body)
	if code != want {
		a.t.Fatalf("%s %s = %d, want %d: %v", method, path, code, want, out)
	}
	return out
}

func (a *api) upload(projectID, name string, csv []byte) map[string]any {
	a.t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	f, _ := w.CreateFormFile("file", name+".csv")
	f.Write(csv)
	w.WriteField("metadata", fmt.Sprintf(`{"name": %q, "format": "csv"}`, name))
	w.Close()
	req, _ := http.NewRequest("POST", a.base+"/projects/"+projectID+"/datasets", &buf)
	req.Header.Set("Authorization", "Bearer "+a.key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	code, out := a.send(req)
	if code != http.StatusCreated {
		a.t.Fatalf("upload = %d: %v", code, out)
	}
	return out
}

func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	t.Fatalf("timed out after %s waiting for %s", timeout, what)
}

// receiver collects webhook deliveries whose signatures verify.
type receiver struct {
	mu       sync.Mutex
	secret   string
	verified []map[string]any
	rejected int
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := webhook.Verify(r.secret, req.Header, body, time.Now(), 0); err != nil {
		r.rejected++
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	ev := map[string]any{}
	json.Unmarshal(body, &ev)
	r.verified = append(r.verified, ev)
	w.WriteHeader(http.StatusNoContent)
}

func (r *receiver) ofType(typ string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, ev := range r.verified {
		if ev["type"] == typ {
			out = append(out, ev)
		}
	}
	return out
}

func quadraticCSV(n int) []byte {
	var b strings.Builder
	b.WriteString("x,z,y\n")
	for i := 0; i < n; i++ {
		x := float64(i%41)/8 + 0.1
		fmt.Fprintf(&b, "%g,%g,%g\n", x, math.Sin(float64(i)*1.7), 3*x*x+1)
	}
	return []byte(b.String())
}

// TestDiscoveryFlow: upload → run → wait → claims → promote (refused above the ceiling with
// 403, allowed within it) → ledger verify → signed webhooks received.
func TestDiscoveryFlow(t *testing.T) {
	p := startDev(t, t.TempDir(), freeAddr(t))
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}

	recv := &receiver{secret: "s3cret-for-the-flow-test"}
	hook := httptest.NewServer(recv)
	defer hook.Close()

	project := a.must(201, "POST", "/projects", map[string]any{"name": "flow",
		"settings": map[string]any{"governance": map[string]any{"promotion_ceiling": "validate", "truth_dial_threshold": 0.5, "require_negative_controls": true}}})
	pid := project["id"].(string)
	a.must(201, "POST", "/webhooks", map[string]any{"url": hook.URL + "/hook", "project_id": pid, "secret": recv.secret,
		"events": []string{"dataset.profiled", "run.completed", "claim.created", "claim.promoted"}})
	campaign := a.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "c", "budget": map[string]any{"compute_units": 10000, "max_runs": 5}})
	cid := campaign["id"].(string)

	ds := a.upload(pid, "quadratic", quadraticCSV(240))
	did := ds["id"].(string)
	eventually(t, time.Minute, "dataset ready", func() bool {
		_, out := a.do("GET", "/projects/"+pid+"/datasets/"+did, nil)
		return out["status"] == "ready"
	})
	profile := a.must(200, "GET", "/projects/"+pid+"/datasets/"+did+"/profile", nil)
	if profile["row_count"].(float64) != 240 {
		t.Errorf("profile row_count = %v", profile["row_count"])
	}

	run := a.must(201, "POST", "/projects/"+pid+"/campaigns/"+cid+"/runs", map[string]any{"mode": "symbolic", "dataset_id": did,
		"parameters": map[string]any{"target_variables": []string{"y"}}, "governance": map[string]any{"negative_controls": []string{"shuffled_target", "noise_feature"}}})
	rid := run["id"].(string)
	if run["status"] != "queued" {
		t.Errorf("new run status = %v", run["status"])
	}
	runPath := "/projects/" + pid + "/campaigns/" + cid + "/runs/" + rid
	var status map[string]any
	eventually(t, 3*time.Minute, "run completed", func() bool {
		_, status = a.do("GET", runPath+"/status", nil)
		return status["status"] == "completed" || status["status"] == "failed"
	})
	if status["status"] != "completed" {
		t.Fatalf("run ended %v", status)
	}
	results := a.must(200, "GET", runPath+"/results", nil)
	if results["claims_count"].(float64) < 1 {
		t.Fatalf("results = %v", results)
	}
	best := results["summary"].(map[string]any)["best_claim_id"].(string)
	claim := a.must(200, "GET", "/projects/"+pid+"/claims/"+best, nil)
	if claim["tier"] != "explore" || !strings.Contains(claim["expression"].(string), "x") {
		t.Errorf("best claim = %v", claim)
	}

	code, refused := a.do("POST", "/projects/"+pid+"/claims/"+best+"/promote", map[string]any{"target_tier": "publish", "rationale": "too eager"})
	errBody, _ := refused["error"].(map[string]any)
	if code != 403 || errBody["code"] != "governance_policy_violation" || errBody["details"].(map[string]any)["constraint"] != "promotion_ceiling_exceeded" {
		t.Errorf("promotion above the ceiling = %d %v", code, refused)
	}
	promoted := a.must(200, "POST", "/projects/"+pid+"/claims/"+best+"/promote", map[string]any{"target_tier": "validate", "rationale": "replicated"})
	if promoted["tier"] != "validate" || promoted["previous_tier"] != "explore" {
		t.Errorf("promotion = %v", promoted)
	}

	verify := a.must(200, "GET", "/projects/"+pid+"/ledger/verify", nil)
	if verify["valid"] != true {
		t.Errorf("ledger verify = %v", verify)
	}
	entries := a.must(200, "GET", "/projects/"+pid+"/ledger?claim_id="+best+"&limit=100", nil)
	types := map[string]int{}
	for _, e := range entries["data"].([]any) {
		types[e.(map[string]any)["event_type"].(string)]++
	}
	if types["claim_created"] != 1 || types["claim_promoted"] != 1 || types["policy_evaluated"] < 1 {
		t.Errorf("ledger of the claim = %v", types)
	}

	eventually(t, time.Minute, "signed webhooks", func() bool {
		return len(recv.ofType("run.completed")) == 1 && len(recv.ofType("claim.promoted")) == 1 && len(recv.ofType("dataset.profiled")) == 1
	})
	done := recv.ofType("run.completed")[0]
	if !strings.HasPrefix(done["id"].(string), "evt_") || done["data"].(map[string]any)["run_id"] != rid {
		t.Errorf("run.completed event = %v", done)
	}
	if n := len(recv.ofType("claim.created")); n != int(results["claims_count"].(float64)) {
		t.Errorf("claim.created events = %d, claims = %v", n, results["claims_count"])
	}
	if recv.rejected != 0 {
		t.Errorf("%d deliveries failed signature verification", recv.rejected)
	}
}
