package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/discolab/disco/internal/webhook"
	"github.com/discolab/disco/test/live"
)

// api is live.Client under the names this package's tests use.
type api struct {
	t         *testing.T
	base, key string
}

func (a *api) client() *live.Client { return &live.Client{T: a.t, Base: a.base, Key: a.key} }

func (a *api) do(method, path string, body any) (int, map[string]any) {
	a.t.Helper()
	return a.client().Do(method, path, body)
}

func (a *api) send(req *http.Request) (int, map[string]any) {
	a.t.Helper()
	return a.client().Send(req)
}

func (a *api) must(want int, method, path string, body any) map[string]any {
	a.t.Helper()
	return a.client().Must(want, method, path, body)
}

var (
	eventually   = live.Eventually
	quadraticCSV = live.QuadraticCSV
)

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
	if err := json.Unmarshal(body, &ev); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
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

	did := a.readyDataset(pid, "quadratic", quadraticCSV(240))
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
	if status := a.runEnded(runPath, 3*time.Minute); status["status"] != "completed" {
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
