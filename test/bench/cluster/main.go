// Command cluster measures disco on the single-node cluster of `make cluster-up` (issue 13,
// item 7): submit-to-pod-running latency, a burst of runs under a ResourceQuota of a few
// pods, and the manager's memory with many Runs and Claims in the cluster. It is a
// benchmark, not a test: it prints figures (and the machine's load beside each) and writes
// them as JSON with -out. test/bench/README.md says how to run it and keeps the results.
//
//	go run ./test/bench/cluster -scenarios latency,burst,memory
//
// It drives the facade as users do (the admin key of .cluster/credentials.json) and watches
// pods with the cluster's admin kubeconfig. The memory scenario writes Runs and Claims
// directly through the Kubernetes API as the manager's service account, the only identity
// the claim admission webhook lets create claims (admission/claim.go).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type options struct {
	creds        string
	scenarios    string
	out          string
	latencyN     int
	burstN       int
	burstPods    int
	memRuns      int
	memClaims    int
	memBudget    time.Duration
	workers      int
	timeout      time.Duration
	managerNS    string
	managerSA    string
	deleteTenant bool
	claimStatus  bool
}

// result is one measured figure, with the load it was measured under.
type result struct {
	Scenario string         `json:"scenario"`
	Started  time.Time      `json:"started"`
	Took     float64        `json:"took_seconds"`
	LoadAvg  [2]string      `json:"loadavg_before_after"`
	Figures  map[string]any `json:"figures"`
}

func main() {
	var o options
	flag.StringVar(&o.creds, "creds", filepath.Join(".cluster", "credentials.json"), "the cluster's credentials.json (hack/cluster.sh writes it)")
	flag.StringVar(&o.scenarios, "scenarios", "latency,burst", "comma-separated: latency, burst, memory")
	flag.StringVar(&o.out, "out", "", "write the results as JSON to this file")
	flag.IntVar(&o.latencyN, "latency-runs", 50, "runs submitted one after another for the latency figures")
	flag.IntVar(&o.burstN, "burst-runs", 200, "runs submitted at once in the burst")
	flag.IntVar(&o.burstPods, "burst-pods", 4, "the tenant's ResourceQuota of pods during the burst (spec.quota.pods)")
	flag.IntVar(&o.memRuns, "memory-runs", 10000, "Runs created for the memory figure")
	flag.IntVar(&o.memClaims, "memory-claims", 100000, "Claims created for the memory figure")
	flag.DurationVar(&o.memBudget, "memory-budget", time.Hour, "stop writing the memory scenario's objects after this long, and measure what is there")
	flag.IntVar(&o.workers, "workers", 32, "concurrent API writers in the memory scenario")
	flag.DurationVar(&o.timeout, "timeout", 90*time.Minute, "give up after this long")
	flag.StringVar(&o.managerNS, "manager-namespace", "disco-system", "the manager's namespace")
	flag.StringVar(&o.managerSA, "manager-service-account", "disco-manager", "the manager's service account (a component identity of the webhooks)")
	flag.BoolVar(&o.claimStatus, "claim-status", false, "write each claim's status too, as the claim reconciler would (twice the writes)")
	flag.BoolVar(&o.deleteTenant, "delete", false, "delete the memory scenario's tenant at the end (the manager then ledgers and unblocks every claim's deletion, which takes long); by default it stays")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	b, err := connect(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-cluster:", err)
		os.Exit(2)
	}
	var results []result
	failed := false
	for _, s := range strings.Split(o.scenarios, ",") {
		s = strings.TrimSpace(s)
		run := map[string]func(context.Context) (map[string]any, error){
			"latency": b.latency, "burst": b.burst, "memory": b.memory,
		}[s]
		if run == nil {
			fmt.Fprintf(os.Stderr, "bench-cluster: unknown scenario %q\n", s)
			os.Exit(2)
		}
		r := result{Scenario: s, Started: time.Now().UTC()}
		r.LoadAvg[0] = loadavg()
		fmt.Printf("== %s (load %s)\n", s, r.LoadAvg[0])
		figures, err := run(ctx)
		r.Took = time.Since(r.Started).Seconds()
		r.LoadAvg[1] = loadavg()
		r.Figures = figures
		if err != nil {
			failed = true
			r.Figures["error"] = err.Error()
			fmt.Fprintf(os.Stderr, "bench-cluster: %s: %v\n", s, err)
		}
		out, _ := json.MarshalIndent(r, "", "  ")
		fmt.Println(string(out))
		results = append(results, r)
	}
	if o.out != "" {
		raw, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(o.out, append(raw, '\n'), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench-cluster:", err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

// loadavg is the first three fields of /proc/loadavg: the machine is shared, and a figure
// means little without the load it was measured under.
func loadavg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(raw))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
