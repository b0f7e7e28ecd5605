package e2e

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/engine/dynamics/dynamicstest"
)

// Equations of motion over REST (issue 18 item 1): a symbolic run with time:,
// trajectory: and dynamics:x,y on Lotka–Volterra trajectories gives one law claim
// per state, dx/dt and dy/dt, each with its right-hand side; dynamics: without
// time: is refused with 422 before anything runs.
func TestDynamicsOverREST(t *testing.T) {
	p := startDev(t, t.TempDir(), freeAddr(t))
	a := &api{t: t, base: p.creds.BaseURL, key: p.creds.APIKey}
	pid := a.must(201, "POST", "/projects", map[string]any{"name": "dynamics"})["id"].(string)
	cid := a.must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": "lv", "budget": map[string]any{"compute_units": 10000, "max_runs": 5}})["id"].(string)
	lv, err := dynamicstest.LotkaVolterra(0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	did := a.readyDataset(pid, "lotka-volterra", lv.CSV())
	runs := "/projects/" + pid + "/campaigns/" + cid + "/runs"

	code, refused := a.do("POST", runs, map[string]any{"mode": "symbolic", "dataset_id": did,
		"parameters": map[string]any{"constraints": []string{"trajectory:traj", "dynamics:x,y"}}})
	errBody, _ := refused["error"].(map[string]any)
	if code != 422 || errBody["code"] != "constraint_invalid" || !strings.Contains(fmt.Sprint(errBody["message"]), "time:<column>") {
		t.Errorf("dynamics: without time: = %d %v, want 422 constraint_invalid saying to add time:<column>", code, refused)
	}

	run := a.must(201, "POST", runs, map[string]any{"mode": "symbolic", "dataset_id": did,
		"parameters": map[string]any{"constraints": []string{"time:t", "trajectory:traj", "dynamics:x,y"}}})
	runPath := runs + "/" + run["id"].(string)
	if status := a.runEnded(runPath, 3*time.Minute); status["status"] != "completed" {
		t.Fatalf("run ended %v", status)
	}
	plotted := false
	for _, art := range a.must(200, "GET", runPath+"/artifacts", nil)["data"].([]any) {
		art := art.(map[string]any)
		plotted = plotted || art["name"] == "dynamics-simulation.svg" && art["kind"] == "plot"
	}
	if !plotted {
		t.Error("no dynamics-simulation.svg plot among the run's artifacts")
	}
	list := a.must(200, "GET", "/projects/"+pid+"/claims?type=law&run_id="+run["id"].(string)+"&limit=100", nil)
	laws := map[string]map[string]any{}
	for _, c := range list["data"].([]any) {
		claim := c.(map[string]any)
		laws[fmt.Sprint(claim["target"])] = claim
	}
	want := map[string][]string{"dx/dt": {"x", "x*y"}, "dy/dt": {"x*y", "y"}}
	if len(laws) != len(want) {
		t.Fatalf("law claims by target: %v, want dx/dt and dy/dt", laws)
	}
	for target, terms := range want {
		claim, ok := laws[target]
		if !ok {
			t.Fatalf("no law claim with target %s: %v", target, laws)
		}
		expr := fmt.Sprint(claim["expression"])
		ev, _ := claim["evidence"].(map[string]any)
		inclusion, _ := ev["term_inclusion"].(map[string]any)
		if len(inclusion) != len(terms) {
			t.Errorf("%s = %s: terms %v, want %v", target, expr, inclusion, terms)
		}
		for _, term := range terms {
			if _, ok := inclusion[term]; !ok || !strings.Contains(expr, term) {
				t.Errorf("%s = %s: term %s missing (evidence %v)", target, expr, term, ev)
			}
		}
		if ev["negative_controls_passed"] != true || ev["simulation_horizon"] == nil {
			t.Errorf("%s = %s: evidence %v", target, expr, ev)
		}
		if score, _ := claim["score"].(float64); math.IsNaN(score) || score <= 0.5 {
			t.Errorf("%s = %s: score %v", target, expr, claim["score"])
		}
	}
}
