package cluster

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/live"
)

// longRun is a run that takes tens of seconds on this node: time to break something under it.
type longRun struct {
	pid, cid, rid string
	// pod is the engine pod that was running when startLongRun returned.
	pod string
}

// startLongRun submits a neural run on a larger dataset in a campaign of its own and waits
// until its engine container runs and the run reports a stage past data validation.
func startLongRun(t *testing.T, e *env, a *api, name string) longRun {
	t.Helper()
	ctx := ctxFor(t)
	var r longRun
	r.pid, r.cid = a.project(name, 100000)
	did := a.ReadyDataset(r.pid, "quadratic", live.QuadraticCSV(2000), 2*time.Minute)
	r.rid = a.submit(r.pid, r.cid, did, "neural", map[string]any{"epochs": 5000})
	live.Eventually(t, 5*time.Minute, "the engine container of "+r.rid+" running", func() bool {
		pods := &corev1.PodList{}
		if err := e.kube.List(ctx, pods, client.InNamespace(e.creds.Namespace), client.MatchingLabels{discov1.LabelRun: r.rid}); err != nil {
			return false
		}
		for _, p := range pods.Items {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.State.Running != nil {
					r.pod = p.Name
				}
			}
		}
		return r.pod != ""
	})
	live.Eventually(t, time.Minute, "the engine past data validation", func() bool {
		_, st := a.Do("GET", runPath(r.pid, r.cid, r.rid)+"/status", nil)
		p, _ := st["pipeline"].(map[string]any)
		s, _ := p["current_stage"].(string)
		return st["status"] == "running" && s != "" && s != "data_validation"
	})
	return r
}

// claimsOnce: the run's claims are those its results count, each once, each with one
// claim_created ledger entry; and its campaign is charged what the run used, once.
func claimsOnce(t *testing.T, a *api, r longRun) {
	t.Helper()
	res := a.Must(200, "GET", runPath(r.pid, r.cid, r.rid)+"/results", nil)
	n := int(res["claims_count"].(float64))
	claims := a.Must(200, "GET", "/projects/"+r.pid+"/claims?run_id="+r.rid+"&limit=100", nil)["data"].([]any)
	seen := map[string]bool{}
	for _, c := range claims {
		cl := c.(map[string]any)
		key := cl["type"].(string) + " " + cl["summary"].(string)
		if seen[key] {
			t.Errorf("claim %q written twice", key)
		}
		seen[key] = true
	}
	claimsLedgeredOnce(t, a, r.pid, claims)
	if n < 1 || len(claims) != n {
		t.Errorf("results count %d claims, the list has %d", n, len(claims))
	}
	// The campaign folds its runs' usage in asynchronously: it reaches the run's and stays.
	used := int(res["compute_units_used"].(float64))
	charged := func() int {
		camp := a.Must(200, "GET", "/projects/"+r.pid+"/campaigns/"+r.cid, nil)
		return int(camp["budget"].(map[string]any)["compute_units_used"].(float64))
	}
	got := 0
	deadline := time.Now().Add(time.Minute)
	for got = charged(); got != used && time.Now().Before(deadline); got = charged() {
		time.Sleep(500 * time.Millisecond)
	}
	if got != used {
		t.Errorf("campaign charged %d units for its one run, which used %d", got, used)
		return
	}
	time.Sleep(3 * time.Second)
	if got := charged(); got != used {
		t.Errorf("campaign charged %d units for its one run, which used %d", got, used)
	}
}

// Kill the engine pod mid-run: the Job retries it in a new pod and the run completes, or it
// fails with a reason naming the pod; either way no claim is written twice.
func TestEnginePodKilled(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)
	done := phase(t, "long run to engine running")
	r := startLongRun(t, e, a, "engine-killed")
	done()

	done = phase(t, "engine pod killed to run finished")
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name = e.creds.Namespace, r.pod
	if err := e.kube.Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	st := a.RunEnded(runPath(r.pid, r.cid, r.rid), 10*time.Minute)
	done()
	job := &batchv1.Job{}
	_ = e.kube.Get(ctx, client.ObjectKey{Namespace: e.creds.Namespace, Name: ids.ToName(r.rid)}, job)
	t.Logf("run %s ended %v (%v); Job: %d failed, %d succeeded pods", r.rid, st["status"], st["message"], job.Status.Failed, job.Status.Succeeded)
	switch st["status"] {
	case "completed":
		claimsOnce(t, a, r)
	case "failed":
		if msg, _ := st["message"].(string); !strings.Contains(msg, r.pod) {
			t.Errorf("the run failed with %q, which does not name the killed pod %s", msg, r.pod)
		}
	default:
		t.Errorf("run ended %v", st)
	}
}

// leader is the manager pod holding the leader lease.
func leader(t *testing.T, e *env) string {
	t.Helper()
	lease := &coordinationv1.Lease{}
	if err := e.kube.Get(ctxFor(t), client.ObjectKey{Namespace: "disco-system", Name: "disco-manager.discovery.disco.dev"}, lease); err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil {
		return ""
	}
	name, _, _ := strings.Cut(*lease.Spec.HolderIdentity, "_")
	return name
}

// waitManagers waits until both manager replicas are Ready again.
func waitManagers(t *testing.T, e *env) {
	t.Helper()
	live.Eventually(t, 5*time.Minute, "2 Ready manager replicas", func() bool {
		d := &appsv1.Deployment{}
		return e.kube.Get(ctxFor(t), client.ObjectKey{Namespace: "disco-system", Name: "disco-manager"}, d) == nil &&
			d.Status.ReadyReplicas == 2 && d.Status.UpdatedReplicas == 2 && d.Status.Replicas == 2
	})
}

// Delete the leader manager pod mid-run: the other replica takes over, and the run
// completes once.
func TestLeaderDeleted(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)
	waitManagers(t, e)
	done := phase(t, "long run to engine running")
	r := startLongRun(t, e, a, "leader-deleted")
	done()

	done = phase(t, "leader deleted to a new leader")
	old := leader(t, e)
	if old == "" {
		t.Fatal("no manager holds the lease")
	}
	pod := &corev1.Pod{}
	pod.Namespace, pod.Name = "disco-system", old
	if err := e.kube.Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	live.Eventually(t, 3*time.Minute, "another manager leading", func() bool {
		l := leader(t, e)
		return l != "" && l != old
	})
	done()

	done = phase(t, "new leader to run completed")
	st := a.RunEnded(runPath(r.pid, r.cid, r.rid), 10*time.Minute)
	done()
	if st["status"] != "completed" {
		t.Fatalf("run ended %v", st)
	}
	claimsOnce(t, a, r)
	done = phase(t, "deleted manager replaced")
	waitManagers(t, e)
	done()
}

// Restart the kubelet mid-run (SIGKILL, then hack/cluster.sh up starts it again): the run
// completes once and the node is Ready again.
func TestKubeletRestarted(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)
	script, err := filepath.Abs(filepath.Join("..", "..", "hack", "cluster.sh"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(e.dir, "run", "kubelet.pid"))
	if err != nil {
		t.Skipf("the kubelet's pid file: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	done := phase(t, "long run to engine running")
	r := startLongRun(t, e, a, "kubelet-restarted")
	done()

	done = phase(t, "kubelet killed and started again")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the kubelet (pid %d): %v", pid, err)
	}
	time.Sleep(3 * time.Second)
	cmd := exec.CommandContext(ctx, script, "up")
	cmd.Env = append(os.Environ(), "CLUSTER_DIR="+e.dir, "CLUSTER_INSTALL=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hack/cluster.sh up: %v\n%s", err, out)
	}
	done()

	done = phase(t, "kubelet back to run completed")
	st := a.RunEnded(runPath(r.pid, r.cid, r.rid), 10*time.Minute)
	done()
	if st["status"] != "completed" {
		t.Fatalf("run ended %v", st)
	}
	claimsOnce(t, a, r)
	node := &corev1.Node{}
	live.Eventually(t, 2*time.Minute, "the node Ready", func() bool {
		if e.kube.Get(ctx, client.ObjectKey{Name: "disco-node"}, node) != nil {
			return false
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	})
}

// A tenant's concurrent-run limit holds on the node: with 3× the limit submitted at once,
// never more than the limit of engine pods exist, every run completes, and they start in
// submission order.
func TestConcurrencyLimit(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)
	const limit = 2
	e.changeTenant(t, func(t *discov1.Tenant) { t.Spec.ConcurrentRuns = ptr.To[int32](limit) })
	pid, cid := a.project("concurrency", 100000)
	did := a.ReadyDataset(pid, "quadratic", live.QuadraticCSV(240), 2*time.Minute)

	done := phase(t, "3x the limit submitted to all completed")
	var rids []string
	for i := range 3 * limit {
		// Distinct parameters: the facade refuses a duplicate of a queued run. A second
		// apart: the queue orders runs by creationTimestamp, which has one-second
		// resolution, and runs created within one second by name.
		if i > 0 {
			time.Sleep(1100 * time.Millisecond)
		}
		rids = append(rids, a.submit(pid, cid, did, "symbolic", map[string]any{"max_complexity": 10 + i}))
	}
	mine := map[string]bool{}
	for _, rid := range rids {
		mine[rid] = true
	}
	most := 0
	finished := map[string]bool{}
	live.Eventually(t, 10*time.Minute, "every run finished", func() bool {
		pods := &corev1.PodList{}
		if err := e.kube.List(ctx, pods, client.InNamespace(e.creds.Namespace), client.HasLabels{discov1.LabelRun}); err == nil {
			n := 0
			for _, p := range pods.Items {
				if mine[p.Labels[discov1.LabelRun]] && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
					n++
				}
			}
			most = max(most, n)
		}
		for _, rid := range rids {
			if !finished[rid] {
				_, st := a.Do("GET", runPath(pid, cid, rid)+"/status", nil)
				if live.Ended(st) {
					finished[rid] = true
					if st["status"] != "completed" {
						t.Errorf("run %s ended %v", rid, st)
					}
				}
			}
		}
		return len(finished) == len(rids)
	})
	done()
	t.Logf("at most %d engine pods at once (limit %d)", most, limit)
	if most > limit {
		t.Errorf("%d engine pods existed at once; the tenant's limit is %d", most, limit)
	}
	// Admitted in submission order (first in, first out per tenant): each run's Job was made
	// no earlier than the Job of the run submitted before it.
	admitted := make([]time.Time, len(rids))
	for i, rid := range rids {
		job := &batchv1.Job{}
		if err := e.kube.Get(ctx, client.ObjectKey{Namespace: e.creds.Namespace, Name: ids.ToName(rid)}, job); err != nil {
			t.Fatalf("run %s: its Job: %v", rid, err)
		}
		admitted[i] = job.CreationTimestamp.Time
	}
	if !slices.IsSortedFunc(admitted, func(a, b time.Time) int { return a.Compare(b) }) {
		t.Errorf("runs admitted out of submission order: %v", admitted)
	}
}
