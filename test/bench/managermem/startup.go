package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// startupResult is one start of the real `disco manager` over the stage's objects, with
// every controller running, from its start until its work queues have been empty for
// drainQuiet: the startup peak that the cache-only children do not see (each informer's
// initial list queues a reconcile of every object).
type startupResult struct {
	Binary          string   `json:"binary"`
	Env             []string `json:"env"`
	PeakRSS         float64  `json:"peak_rss"`
	RSSDrained      float64  `json:"rss_drained"`
	SecondsToDrain  float64  `json:"seconds_to_drain"`
	Drained         bool     `json:"drained"`
	Reconciles      float64  `json:"reconciles"`
	ReconcileErrors float64  `json:"reconcile_errors"`
}

// drainQuiet is how long every work queue must stay empty, with no reconcile running, for
// the startup to count as done.
const drainQuiet = 10 * time.Second

// measureStartup runs bin/disco manager against the envtest control plane, as the
// manager's Deployment does (config/manager: GOMEMLIMIT in env), without leader election
// or webhooks, with a local executor, a fresh SQLite store and a file blob store. It samples
// the process's resident set and reads controller-runtime's work queue metrics until the
// queues drain or timeout passes.
func measureStartup(ctx context.Context, disco, kubeconfig string, env []string, timeout time.Duration) (startupResult, error) {
	res := startupResult{Env: env}
	dir, err := os.MkdirTemp("", "disco-bench-startup-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	metricsAddr, err := freeAddr()
	if err != nil {
		return res, err
	}
	probeAddr, err := freeAddr()
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, disco, "manager", "--leader-elect=false", "--webhooks=false", "--executor=local",
		"--blob-url=file://"+filepath.Join(dir, "blobs"), "--store-dsn=sqlite://"+filepath.Join(dir, "disco.db"),
		"--ledger-key="+filepath.Join(dir, "ledger.key"), "--metrics-bind-address="+metricsAddr, "--health-probe-bind-address="+probeAddr)
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+kubeconfig), env...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("start %s manager: %w", disco, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cancel()
		<-exited //nolint:errcheck // stopped by this benchmark: its exit status says nothing
	}()

	var quietSince time.Time
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			exited <- err
			return res, fmt.Errorf("the manager exited during the startup: %v", err)
		case <-tick.C:
		}
		pid := cmd.Process.Pid
		res.PeakRSS = max(res.PeakRSS, procStatusBytes(strconv.Itoa(pid), "VmHWM"))
		busy, reconciles, errs, err := queues("http://" + metricsAddr + "/metrics")
		if err != nil {
			if time.Since(start) > timeout {
				return res, fmt.Errorf("metrics never answered: %w", err)
			}
			continue // not serving yet
		}
		res.Reconciles, res.ReconcileErrors = reconciles, errs
		switch {
		case busy || reconciles == 0:
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = time.Now()
		case time.Since(quietSince) >= drainQuiet:
			res.Drained = true
			res.SecondsToDrain = quietSince.Sub(start).Seconds()
			res.RSSDrained = procStatusBytes(strconv.Itoa(pid), "VmRSS")
			return res, nil
		}
		if time.Since(start) > timeout {
			res.SecondsToDrain = time.Since(start).Seconds()
			res.RSSDrained = procStatusBytes(strconv.Itoa(pid), "VmRSS")
			return res, nil
		}
	}
}

// metricsClient bounds each metrics read: a manager that stops answering ends the read,
// not the measurement.
var metricsClient = &http.Client{Timeout: 5 * time.Second}

// queues reads the manager's metrics: whether any work queue holds or works on an item,
// and the reconciles so far (all results) and those that ended in an error.
func queues(url string) (busy bool, reconciles, errs float64, err error) {
	resp, err := metricsClient.Get(url) //nolint:noctx // the manager this benchmark started, on 127.0.0.1
	if err != nil {
		return false, 0, 0, err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return false, 0, 0, err
	}
	sum := func(name string, keep func(*dto.Metric) bool) float64 {
		total := 0.0
		if f := families[name]; f != nil {
			for _, m := range f.GetMetric() {
				if keep != nil && !keep(m) {
					continue
				}
				switch {
				case m.GetGauge() != nil:
					total += m.GetGauge().GetValue()
				case m.GetCounter() != nil:
					total += m.GetCounter().GetValue()
				}
			}
		}
		return total
	}
	isError := func(m *dto.Metric) bool {
		for _, l := range m.GetLabel() {
			if l.GetName() == "result" {
				return l.GetValue() == "error"
			}
		}
		return false
	}
	busy = sum("workqueue_depth", nil) > 0 || sum("workqueue_unfinished_work_seconds", nil) > 0 ||
		sum("controller_runtime_active_workers", nil) > 0
	return busy, sum("controller_runtime_reconcile_total", nil), sum("controller_runtime_reconcile_total", isError), nil
}

// procStatusBytes reads a "kB" field of /proc/<pid>/status (pid "self": this process).
func procStatusBytes(pid, field string) float64 {
	raw, _ := os.ReadFile("/proc/" + pid + "/status")
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			if f := strings.Fields(v); len(f) > 0 {
				n, _ := strconv.ParseFloat(f[0], 64)
				return n * 1024
			}
		}
	}
	return 0
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
