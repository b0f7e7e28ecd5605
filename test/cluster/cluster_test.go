package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/runexec"
	"github.com/discolab/disco/test/live"
)

// The install: every pod Ready, two manager replicas of which one leads, and the facade
// answering both on 127.0.0.1 and through the kube-apiserver's aggregation layer.
func TestInstalled(t *testing.T) {
	e := cluster(t)
	ctx := ctxFor(t)
	done := phase(t, "pods and deployments Ready")
	pods := &corev1.PodList{}
	if err := e.kube.List(ctx, pods); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		ready := false
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = true
			}
		}
		if p.Status.Phase != corev1.PodRunning || !ready {
			t.Errorf("pod %s/%s is %s, Ready %v", p.Namespace, p.Name, p.Status.Phase, ready)
		}
	}
	for name, want := range map[string]int32{"disco-manager": 2, "disco-apiserver": 2} {
		d := &appsv1.Deployment{}
		if err := e.kube.Get(ctx, client.ObjectKey{Namespace: "disco-system", Name: name}, d); err != nil {
			t.Fatal(err)
		}
		if d.Status.ReadyReplicas != want {
			t.Errorf("deployment %s: %d Ready replicas, want %d", name, d.Status.ReadyReplicas, want)
		}
	}
	if l := leader(t, e); !strings.HasPrefix(l, "disco-manager-") {
		t.Errorf("leader lease held by %q, want a manager pod", l)
	}
	// The images are imported, not pulled: the kubelet must never garbage-collect them,
	// or a full disk leaves every later pod without its sandbox image (hack/cluster.sh).
	nodes := &corev1.NodeList{}
	if err := e.kube.List(ctx, nodes); err != nil || len(nodes.Items) == 0 {
		t.Fatalf("nodes: %v", err)
	}
	raw, err := e.cs.RESTClient().Get().AbsPath("/api/v1/nodes/" + nodes.Items[0].Name + "/proxy/configz").DoRaw(ctx)
	var configz struct {
		KubeletConfig struct {
			ImageGCHighThresholdPercent *int32 `json:"imageGCHighThresholdPercent"`
		} `json:"kubeletconfig"`
	}
	if err != nil || json.Unmarshal(raw, &configz) != nil || configz.KubeletConfig.ImageGCHighThresholdPercent == nil ||
		*configz.KubeletConfig.ImageGCHighThresholdPercent != 100 {
		t.Errorf("the kubelet's image garbage collection threshold: %v %s; want 100 (off)", err, raw)
	}
	done()

	done = phase(t, "aggregated API and REST")
	raw, err = e.cs.RESTClient().Get().AbsPath("/apis/api.disco.dev/v1").DoRaw(ctx)
	if err != nil || !bytes.Contains(raw, []byte(`"APIResourceList"`)) {
		t.Errorf("discovery through the aggregation layer: %v %s", err, raw)
	}
	a := e.api(t)
	pid := a.Must(201, "POST", "/projects", map[string]any{"name": "installed"})["id"].(string)
	raw, err = e.cs.RESTClient().Get().AbsPath("/apis/api.disco.dev/v1/projects/" + pid).DoRaw(ctx)
	var got map[string]any
	if err != nil || json.Unmarshal(raw, &got) != nil || got["id"] != pid {
		t.Errorf("GET /apis/api.disco.dev/v1/projects/%s: %v %s", pid, err, raw)
	}
	done()
}

// observed is what the test saw of a run on the cluster.
type observed struct {
	submitted time.Time
	// podRunning is when its engine container was first seen running (or finished).
	podRunning time.Time
	stages     []string
}

// watchRun polls the run's pod and pipeline stage until the run finishes.
func watchRun(t *testing.T, e *env, a *api, pid, cid, rid string, submitted time.Time, timeout time.Duration) (map[string]any, *observed) {
	t.Helper()
	ctx := ctxFor(t)
	o := &observed{submitted: submitted}
	ns := e.creds.Namespace
	var st map[string]any
	live.Eventually(t, timeout, "run "+rid+" finished", func() bool {
		if o.podRunning.IsZero() {
			pods := &corev1.PodList{}
			if err := e.kube.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{discov1.LabelRun: rid}); err == nil {
				for _, p := range pods.Items {
					for _, cs := range p.Status.ContainerStatuses {
						if cs.State.Running != nil || cs.State.Terminated != nil {
							o.podRunning = time.Now()
						}
					}
				}
			}
		}
		_, st = a.Do("GET", runPath(pid, cid, rid)+"/status", nil)
		if p, ok := st["pipeline"].(map[string]any); ok {
			if s, _ := p["current_stage"].(string); s != "" && (len(o.stages) == 0 || o.stages[len(o.stages)-1] != s) {
				o.stages = append(o.stages, s)
			}
		}
		return live.Ended(st)
	})
	return st, o
}

// checkEnginePod: the run's Job ran `disco engine run` in a pod as non-root, with a read-only
// root file system, no privilege escalation and no capabilities, as the run's own service
// account, and the pod succeeded.
func checkEnginePod(t *testing.T, e *env, run *discov1.Run) {
	t.Helper()
	ctx := ctxFor(t)
	job := &batchv1.Job{}
	if err := e.kube.Get(ctx, client.ObjectKeyFromObject(run), job); err != nil {
		t.Errorf("run %s: its Job: %v", run.Name, err)
		return
	}
	if owner := metav1.GetControllerOf(job); owner == nil || owner.Kind != "Run" || owner.UID != run.UID {
		t.Errorf("Job %s is not owned by its Run: %v", job.Name, owner)
	}
	pods := &corev1.PodList{}
	if err := e.kube.List(ctx, pods, client.InNamespace(run.Namespace), client.MatchingLabels{"job-name": job.Name}); err != nil || len(pods.Items) == 0 {
		t.Errorf("Job %s has no pod: %v", job.Name, err)
		return
	}
	// The engine exits just after storing its results: its pod may still be finishing.
	p := pods.Items[0]
	live.Eventually(t, time.Minute, "pod "+p.Name+" finished", func() bool {
		return e.kube.Get(ctx, client.ObjectKeyFromObject(&p), &p) == nil && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed)
	})
	c := p.Spec.Containers[0]
	sc := c.SecurityContext
	if p.Spec.SecurityContext == nil || p.Spec.SecurityContext.RunAsNonRoot == nil || !*p.Spec.SecurityContext.RunAsNonRoot {
		t.Errorf("pod %s: runAsNonRoot is not set", p.Name)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("pod %s: container security context %+v", p.Name, sc)
	}
	if len(c.Args) < 2 || c.Args[0] != "engine" || c.Args[1] != "run" {
		t.Errorf("pod %s runs %v, want disco engine run", p.Name, c.Args)
	}
	if p.Spec.ServiceAccountName != runexec.EngineIdentity(run.Name) {
		t.Errorf("pod %s runs as %s, want the run's own identity", p.Name, p.Spec.ServiceAccountName)
	}
	// The kubelet refuses to start a runAsNonRoot container whose user is root, so a pod
	// that ran to exit 0 ran as non-root.
	if p.Status.Phase != corev1.PodSucceeded {
		t.Errorf("pod %s is %s, want Succeeded", p.Name, p.Status.Phase)
	}
}

// Upload, then a run in each of the four modes through the facade: each becomes a Job whose
// pod runs the engine, its claims and their ledger entries appear, and they are the claims
// the in-process (local) executor finds for the same run, same seed, same data.
func TestRunsInAllModes(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)

	done := phase(t, "project, campaign, upload to dataset ready")
	pid, cid := a.project("modes", 100000)
	did := a.ReadyDataset(pid, "quadratic", live.QuadraticCSV(240), 2*time.Minute)
	done()

	// The first run alone, to time submission to a running engine pod.
	done = phase(t, "symbolic run: submit to completed")
	t0 := time.Now()
	first := a.submit(pid, cid, did, "symbolic", nil)
	st, o := watchRun(t, e, a, pid, cid, first, t0, 5*time.Minute)
	done()
	if st["status"] != "completed" {
		t.Fatalf("symbolic run ended %v", st)
	}
	if !o.podRunning.IsZero() {
		t.Logf("submit to engine pod running: %.1fs (stages seen: %v)", o.podRunning.Sub(t0).Seconds(), o.stages)
	}
	runs := map[string]string{"symbolic": first}

	done = phase(t, "neural, neuro_symbolic, causal runs: submit to all completed")
	submitted := map[string]time.Time{}
	for _, mode := range []string{"neural", "neuro_symbolic", "causal"} {
		submitted[mode] = time.Now()
		runs[mode] = a.submit(pid, cid, did, mode, nil)
	}
	for _, mode := range []string{"neural", "neuro_symbolic", "causal"} {
		st, o := watchRun(t, e, a, pid, cid, runs[mode], submitted[mode], 10*time.Minute)
		if st["status"] != "completed" {
			t.Errorf("%s run ended %v", mode, st)
		}
		t.Logf("%s: stages seen %v", mode, o.stages)
	}
	done()

	for _, mode := range []string{"symbolic", "neural", "neuro_symbolic", "causal"} {
		rid := runs[mode]
		t.Run(mode, func(t *testing.T) {
			a := e.api(t)
			run := &discov1.Run{}
			if err := e.kube.Get(ctx, client.ObjectKey{Namespace: e.creds.Namespace, Name: ids.ToName(rid)}, run); err != nil {
				t.Fatal(err)
			}
			checkEnginePod(t, e, run)

			res := a.Must(200, "GET", runPath(pid, cid, rid)+"/results", nil)
			n := int(res["claims_count"].(float64))
			claims := a.Must(200, "GET", "/projects/"+pid+"/claims?run_id="+rid+"&limit=100", nil)["data"].([]any)
			if n < 1 || len(claims) != n {
				t.Fatalf("results say %d claims, the claims list has %d", n, len(claims))
			}
			claimsLedgeredOnce(t, a, pid, claims)

			done := phase(t, mode+" run again under the local executor")
			local := localClaims(t, e, run)
			done()
			cluster := clusterClaims(t, e, run)
			if !bytes.Equal(local, cluster) {
				t.Errorf("claims differ between the cluster's Job and the local executor (seed %d):\ncluster %s\nlocal   %s", run.Spec.Seed, cluster, local)
			}
		})
	}
}

// clusterClaims reads the claims of results.json that the run's engine pod stored in the
// cluster's blob store (a hostPath under the cluster's data dir).
func clusterClaims(t *testing.T, e *env, run *discov1.Run) []byte {
	t.Helper()
	ctx := ctxFor(t)
	b, err := blob.Open(ctx, "file://"+filepath.Join(e.dir, "disco", "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	return claimsOf(t, b, run.Status.ResultsKey)
}

func claimsOf(t *testing.T, b *blob.Bucket, key string) []byte {
	t.Helper()
	r, err := b.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("results %s: %v", key, err)
	}
	defer r.Close()
	var res struct {
		Claims []any `json:"claims"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&res); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(res.Claims)
	return out
}

// localClaims runs the run again with the local executor of `disco dev` (in this process,
// on a fake API server holding copies of the Run, its Dataset and its namespace, and a
// private blob store holding a copy of the dataset), and returns the claims it stored.
func localClaims(t *testing.T, e *env, clusterRun *discov1.Run) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ds := &discov1.Dataset{}
	if err := e.kube.Get(ctx, client.ObjectKey{Namespace: clusterRun.Namespace, Name: ids.ToName(clusterRun.Spec.DatasetID)}, ds); err != nil {
		t.Fatal(err)
	}
	ns := &corev1.Namespace{}
	if err := e.kube.Get(ctx, client.ObjectKey{Name: clusterRun.Namespace}, ns); err != nil {
		t.Fatal(err)
	}
	host, err := blob.Open(ctx, "file://"+filepath.Join(e.dir, "disco", "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	dir := t.TempDir()
	local, err := blob.Open(ctx, "file://"+filepath.Join(dir, "blobs")+"?no_tmp_dir=true")
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	r, err := host.Get(ctx, ds.Spec.BlobKey)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = local.PutStream(ctx, ds.Spec.BlobKey, r, 0)
	r.Close()
	if err != nil {
		t.Fatal(err)
	}

	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = discov1.AddToScheme(scheme)
	run := clusterRun.DeepCopy()
	run.ResourceVersion = ""
	run.Status = discov1.RunStatus{Phase: discov1.RunQueued}
	ds, ns = ds.DeepCopy(), ns.DeepCopy()
	ds.ResourceVersion, ns.ResourceVersion = "", ""
	fc := fake.NewClientBuilder().WithScheme(scheme).WithObjects(run, ds, ns).WithStatusSubresource(&discov1.Run{}).Build()
	x := &runexec.LocalExecutor{Workers: 1, Exec: &runexec.Execution{Client: fc, Blob: local, ScratchDir: dir,
		TimeLimit: runexec.DefaultRunTimeLimit}}
	go func() { _ = x.Start(ctx) }()
	live.Eventually(t, 10*time.Second, "the local executor started", func() bool { started, _ := x.Submit(ctx, run); return started })
	latest := &discov1.Run{}
	live.Eventually(t, 10*time.Minute, "the local run's results", func() bool {
		if err := fc.Get(ctx, client.ObjectKeyFromObject(run), latest); err != nil {
			t.Fatal(err)
		}
		if latest.Status.Phase == discov1.RunFailed {
			t.Fatalf("the local run failed: %s", latest.Status.Message)
		}
		return latest.Status.ResultsKey != ""
	})
	if latest.Status.ResultsKey != clusterRun.Status.ResultsKey {
		t.Errorf("results key %s locally, %s on the cluster", latest.Status.ResultsKey, clusterRun.Status.ResultsKey)
	}
	return claimsOf(t, local, latest.Status.ResultsKey)
}

// Cancel a running run: its Job and its pod are deleted, it ends cancelled, and its campaign
// is charged once, what the run itself shows.
func TestCancelRunningRun(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)
	pid, cid := a.project("cancel", 100000)
	did := a.ReadyDataset(pid, "quadratic", live.QuadraticCSV(2000), 2*time.Minute)

	done := phase(t, "long run: submit to engine pod running")
	rid := a.submit(pid, cid, did, "neural", map[string]any{"epochs": 100000})
	name := ids.ToName(rid)
	ns := e.creds.Namespace
	live.Eventually(t, 5*time.Minute, "the engine container running", func() bool {
		pods := &corev1.PodList{}
		if err := e.kube.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"job-name": name}); err != nil {
			return false
		}
		for _, p := range pods.Items {
			for _, cs := range p.Status.ContainerStatuses {
				if cs.State.Running != nil {
					return true
				}
			}
		}
		return false
	})
	live.Eventually(t, time.Minute, "status running", func() bool {
		_, st := a.Do("GET", runPath(pid, cid, rid)+"/status", nil)
		return st["status"] == "running"
	})
	done()

	done = phase(t, "cancel to cancelled, Job and pod gone")
	a.Must(202, "POST", runPath(pid, cid, rid)+"/cancel", nil)
	st := a.RunEnded(runPath(pid, cid, rid), 2*time.Minute)
	if st["status"] != "cancelled" {
		t.Fatalf("cancelled run ended %v", st)
	}
	live.Eventually(t, 2*time.Minute, "the Job and its pods deleted", func() bool {
		err := e.kube.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &batchv1.Job{})
		pods := &corev1.PodList{}
		_ = e.kube.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"job-name": name})
		return apierrors.IsNotFound(err) && len(pods.Items) == 0
	})
	done()

	// Charged once: the campaign's usage is the run's, and stays so.
	used := int(st["compute_units_used"].(float64))
	if used < 1 {
		t.Errorf("cancelled run charged %d units", used)
	}
	for range 2 {
		camp := a.Must(200, "GET", "/projects/"+pid+"/campaigns/"+cid, nil)
		if got := int(camp["budget"].(map[string]any)["compute_units_used"].(float64)); got != used {
			t.Errorf("campaign charged %d units for one cancelled run that used %d", got, used)
		}
		time.Sleep(5 * time.Second)
	}
}

// A Job the cluster refuses (a ResourceQuota allowing no Jobs in the tenant's namespace)
// shows on the Run as a condition naming the reason; once the quota is gone the run runs.
func TestJobThatCannotBeCreated(t *testing.T) {
	e := cluster(t)
	a := e.api(t)
	ctx := ctxFor(t)
	ns := e.creds.Namespace
	pid, cid := a.project("refused", 100000)
	did := a.ReadyDataset(pid, "quadratic", live.QuadraticCSV(240), 2*time.Minute)

	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "disco-test-no-jobs", Namespace: ns},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"count/jobs.batch": resource.MustParse("0")}}}
	if err := e.kube.Create(ctx, quota); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	removed := false
	remove := func() {
		if !removed {
			removed = true
			if err := e.kube.Delete(context.Background(), quota); err != nil && !apierrors.IsNotFound(err) {
				t.Error(err)
			}
		}
	}
	defer remove()
	live.Eventually(t, time.Minute, "the quota controller to count the quota", func() bool {
		q := &corev1.ResourceQuota{}
		return e.kube.Get(ctx, client.ObjectKeyFromObject(quota), q) == nil && q.Status.Hard != nil
	})

	done := phase(t, "refused Job: submit to condition on the Run")
	rid := a.submit(pid, cid, did, "symbolic", nil)
	// A quota's refusal is capacity, and the condition names the quota (issue 13, item 6).
	cond := e.admittedNaming(t, rid, "ResourceQuota disco-test-no-jobs", 2*time.Minute)
	done()
	if cond.Status != metav1.ConditionFalse || cond.Reason != discov1.ReasonWaitingForCapacity || !strings.Contains(cond.Message, "exceeded quota") {
		t.Errorf("condition %+v", cond)
	}
	if _, st := a.Do("GET", runPath(pid, cid, rid)+"/status", nil); st["status"] != "queued" {
		t.Errorf("a run whose Job is refused is %v, want queued", st["status"])
	}

	done = phase(t, "quota removed to run completed")
	remove()
	if st := a.RunEnded(runPath(pid, cid, rid), 5*time.Minute); st["status"] != "completed" {
		t.Errorf("run after the quota was removed ended %v", st)
	}
	done()
}

// pythonWait is the README's Python example against the cluster's facade.
const pythonWait = `
import math, os, sys, tempfile, disco
client = disco.Client()
project = client.projects.create("python on the cluster")
campaign = client.campaigns.create(project.id, "c1", compute_units=1000, max_runs=10)
path = os.path.join(tempfile.mkdtemp(), "data.csv")
with open(path, "w") as f:
    f.write("x,z,y\n" + "".join(f"{(i%41)/8+0.1},{math.sin(i*1.7)},{3*((i%41)/8+0.1)**2+1}\n" for i in range(240)))
ds = client.datasets.upload(project.id, path)
client.datasets.wait(project.id, ds.id)
run = client.runs.create(project.id, campaign.id, mode="symbolic", dataset_id=ds.id, target_variables=["y"])
results = client.runs.wait(project.id, campaign.id, run.id, progress=True)
claims = list(client.claims.list(project.id, run_id=run.id))
print("RESULT", results.status, results.claims_count, len(claims))
`

// The Python client's runs.wait(progress=True) follows a run on the cluster to its end.
func TestPythonClientWaitsForARun(t *testing.T) {
	e := cluster(t)
	if err := exec.Command("python3", "-c", "import disco").Run(); err != nil {
		t.Skip("the Python client is not installed (pip install -e clients/python)")
	}
	script := filepath.Join(t.TempDir(), "wait.py")
	if err := os.WriteFile(script, []byte(pythonWait), 0o600); err != nil {
		t.Fatal(err)
	}
	done := phase(t, "Python client: upload, run, wait with progress")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", script)
	cmd.Env = append(os.Environ(), "DISCO_BASE_URL="+e.creds.BaseURL, "DISCO_API_KEY="+e.creds.APIKey)
	out, err := cmd.CombinedOutput()
	done()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	var status string
	var count, listed int
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "RESULT ") {
			if _, err := fmt.Sscanf(line, "RESULT %s %d %d", &status, &count, &listed); err != nil {
				t.Fatalf("unreadable result line %q: %v", line, err)
			}
		}
	}
	if status != "completed" || count < 1 || listed != count {
		t.Errorf("python saw status %q, %d claims, %d listed:\n%s", status, count, listed, out)
	}
	if !strings.Contains(string(out), "symbolic_regression") {
		t.Errorf("runs.wait(progress=True) showed no stages:\n%s", out)
	}
}
