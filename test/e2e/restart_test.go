package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// TestKilledMidRun kills `disco dev` with SIGKILL while a run executes, restarts it on the
// same data dir, and checks the run completes with every claim created and ledgered once.
func TestKilledMidRun(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	p := startDev(t, dir, addr)
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}

	pid := a.must(201, "POST", "/projects", map[string]any{"name": "restart"})["id"].(string)
	cid := a.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "c", "budget": map[string]any{"compute_units": 100000, "max_runs": 5}})["id"].(string)
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for i := 0; i < 1500; i++ {
		x1, x2, x3 := float64(i%31)/10+0.5, float64(i%17)/6+0.5, math.Sin(float64(i)*0.37)
		fmt.Fprintf(&b, "%g,%g,%g,%g\n", x1, x2, x3, x1*x2+math.Exp(0.3*x3))
	}
	did := a.readyDataset(pid, "slow", []byte(b.String()))
	rid := a.must(201, "POST", "/projects/"+pid+"/campaigns/"+cid+"/runs", map[string]any{"mode": "neuro_symbolic", "dataset_id": did,
		"parameters": map[string]any{"target_variables": []string{"y"}, "epochs": 400}})["id"].(string)
	runPath := "/projects/" + pid + "/campaigns/" + cid + "/runs/" + rid
	eventually(t, time.Minute, "run running", func() bool {
		_, st := a.do("GET", runPath+"/status", nil)
		return st["status"] == "running"
	})

	if err := p.Kill(t); err == nil {
		t.Fatal("disco dev exited cleanly after SIGKILL")
	}

	p2 := startDev(t, dir, addr)
	a.base, a.key = p2.creds.BaseURL, p2.creds.APIKey
	if status := a.runEnded(runPath, 4*time.Minute); status["status"] != "completed" {
		t.Fatalf("run after restart: %v", status)
	}
	results := a.must(200, "GET", runPath+"/results", nil)
	claims := a.must(200, "GET", "/projects/"+pid+"/claims?run_id="+rid+"&limit=100", nil)
	n := len(claims["data"].([]any))
	if n == 0 || float64(n) != results["claims_count"].(float64) {
		t.Fatalf("claims listed = %d, results claims_count = %v", n, results["claims_count"])
	}
	ledger := a.must(200, "GET", "/projects/"+pid+"/ledger?limit=100", nil)
	created := map[string]int{}
	for _, e := range ledger["data"].([]any) {
		e := e.(map[string]any)
		if e["event_type"] == "claim_created" {
			created[e["claim_id"].(string)]++
		}
	}
	if len(created) != n {
		t.Errorf("claim_created entries for %d claims, %d claims exist", len(created), n)
	}
	for id, k := range created {
		if k != 1 {
			t.Errorf("claim %s ledgered %d times", id, k)
		}
	}
	if v := a.must(200, "GET", "/projects/"+pid+"/ledger/verify", nil); v["valid"] != true {
		t.Errorf("ledger verify after restart = %v", v)
	}
}
