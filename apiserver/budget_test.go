package apiserver

import (
	"context"
	"strings"
	"sync"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/internal/runspec"
)

// replica starts a second facade over the same API server and store, as another replica
// of the deployment would be: its own in-process locks, the same objects.
func replica(t *testing.T) string {
	return strings.TrimSuffix(replicaWith(t, func(*Options) {}), "/v1")
}

// TestBudgetNeverOverspent submits many runs at once, each different (no duplicates), to
// campaigns whose budget allows exactly a few, through one replica and through two.
func TestBudgetNeverOverspent(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	did := readyDataset(t, key, pid) // 100 rows, 3 columns
	// The compute-unit budget fits exactly three of these runs.
	est := engine.EstimateComputeUnits(100, 3, engine.Spec{Mode: engine.ModeSymbolic})
	hosts := map[string][]string{
		"one replica":  {strings.TrimSuffix(env.url, "/v1")},
		"two replicas": {strings.TrimSuffix(env.url, "/v1"), replica(t)},
	}
	for name, bases := range hosts {
		for _, tc := range []struct {
			constraint string
			budget     map[string]any
			want       int
		}{
			{"max_runs", map[string]any{"compute_units": 100000, "max_runs": 5}, 5},
			{"compute_units", map[string]any{"compute_units": 3*est + est/2, "max_runs": 50}, 3},
		} {
			t.Run(name+"/"+tc.constraint, func(t *testing.T) {
				cid := mustCampaign(t, key, pid, tc.budget, nil)
				path := "/v1/projects/" + pid + "/campaigns/" + cid + "/runs"
				const n = 20
				results := make([]*response, n)
				var wg sync.WaitGroup
				for i := 0; i < n; i++ {
					wg.Add(1)
					go func(i int) {
						defer wg.Done()
						body := map[string]any{"mode": "symbolic", "dataset_id": did,
							"parameters": map[string]any{"max_complexity": i + 1}}
						results[i] = call(t, "POST", bases[i%len(bases)]+path, key, body)
					}(i)
				}
				wg.Wait()
				created := 0
				for _, r := range results {
					switch r.Status {
					case 201:
						created++
					case 403:
						if r.errCode() != "budget_exhausted" || r.errDetails()["constraint"] != tc.constraint {
							t.Errorf("refusal: %s", r.Raw)
						}
					default:
						t.Errorf("status %d: %s", r.Status, r.Raw)
					}
				}
				if created != tc.want {
					t.Fatalf("%d runs created, want exactly %d", created, tc.want)
				}
				var runs discov1.RunList
				if err := env.direct.List(context.Background(), &runs, client.InNamespace(nsA()),
					client.MatchingLabels{discov1.LabelCampaign: cid}); err != nil {
					t.Fatal(err)
				}
				var units int64
				for _, r := range runs.Items {
					units += r.Spec.ComputeUnitsEstimated
				}
				if len(runs.Items) != tc.want {
					t.Fatalf("%d runs stored, want %d", len(runs.Items), tc.want)
				}
				if b := tc.budget["compute_units"].(int); units > int64(b) {
					t.Fatalf("%d units reserved of a budget of %d", units, b)
				}
				// Once exhausted, a further submission is refused naming the constraint.
				r := call(t, "POST", bases[0]+path, key, map[string]any{"mode": "symbolic", "dataset_id": did,
					"parameters": map[string]any{"max_complexity": 100}}).expect(t, 403, "budget_exhausted")
				if r.errDetails()["constraint"] != tc.constraint {
					t.Fatalf("details: %s", r.Raw)
				}
			})
		}
	}
}

// TestRunEstimate prices a symbolic run by the engine's formula, capped by the run time
// limit: a run cannot use more time than that, whatever its epochs ask for.
func TestRunEstimate(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, nil)
	did := readyDataset(t, key, pid) // 100 rows, 3 columns
	cid := mustCampaign(t, key, pid, map[string]any{"compute_units": 100000, "max_runs": 5}, nil)
	path := "/v1/projects/" + pid + "/campaigns/" + cid + "/runs"
	for _, c := range []struct {
		epochs int
		want   int
	}{
		{0, engine.EstimateComputeUnits(100, 3, engine.Spec{Mode: engine.ModeSymbolic})},
		{100000, int(runspec.DefaultTimeLimit.Seconds())},
	} {
		params := map[string]any{"max_complexity": 10 + c.epochs%7}
		if c.epochs > 0 {
			params["epochs"] = c.epochs
		}
		r := call(t, "POST", path, key, map[string]any{"mode": "symbolic", "dataset_id": did, "parameters": params}).expect(t, 201)
		if got := r.JSON["compute_units_estimated"].(float64); int(got) != c.want {
			t.Errorf("epochs %d: estimate %v, want %d", c.epochs, got, c.want)
		}
	}
}
