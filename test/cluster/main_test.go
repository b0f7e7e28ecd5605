// Package cluster drives disco on the single-node cluster of `make cluster-up` as its users
// do (issue 13, item 5): through the facade's REST API on 127.0.0.1 (the address and admin
// key in .cluster/credentials.json) and through the Kubernetes API with the cluster's admin
// kubeconfig. It checks what only a real node shows: runs become Jobs whose pods run the
// engine as non-root with a read-only root file system, the manager, the facade and the
// engine pods share one blob store, and cancellation and Job-creation failures reach the
// Run.
//
// The tests run when DISCO_TEST_CLUSTER=1 (`make test-cluster`), or when the credentials
// file exists and the facade answers; otherwise they skip. They print how long each phase
// took.
package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/live"
)

// env is the cluster under test.
type env struct {
	creds live.Credentials // .cluster/credentials.json, written by hack/cluster.sh
	// dir is the cluster's data dir; its disco/blobs is the blob store's host directory.
	dir  string
	kube client.Client
	cs   *kubernetes.Clientset
	cfg  *rest.Config
}

var (
	shared     *env
	sharedErr  error
	sharedSkip string
	sharedOnce sync.Once
)

// credentialsPath is $DISCO_CLUSTER_CREDENTIALS, or credentials.json in $CLUSTER_DIR or the
// repository's .cluster.
func credentialsPath() string {
	if p := os.Getenv("DISCO_CLUSTER_CREDENTIALS"); p != "" {
		return p
	}
	if d := os.Getenv("CLUSTER_DIR"); d != "" {
		return filepath.Join(d, "credentials.json")
	}
	return filepath.Join("..", "..", ".cluster", "credentials.json")
}

// cluster returns the cluster, or skips the test when none is meant to be tested.
func cluster(t *testing.T) *env {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedSkip, sharedErr = open() })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	if sharedSkip != "" {
		t.Skip(sharedSkip)
	}
	return shared
}

func open() (*env, string, error) {
	required := os.Getenv("DISCO_TEST_CLUSTER") == "1"
	path := credentialsPath()
	creds, err := live.ReadCredentials(path)
	var unreadable *fs.PathError
	switch {
	case errors.As(err, &unreadable) && required:
		return nil, "", fmt.Errorf("DISCO_TEST_CLUSTER=1 but %v (run make cluster-up)", err)
	case errors.As(err, &unreadable):
		return nil, "no cluster: set DISCO_TEST_CLUSTER=1 after make cluster-up", nil
	case err != nil:
		return nil, "", err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, "", err
	}
	e := &env{creds: creds, dir: dir}
	// A cluster that was brought down leaves its credentials behind: skip unless asked for.
	hc := &http.Client{Timeout: 3 * time.Second}
	res, err := hc.Get(strings.TrimSuffix(e.creds.BaseURL, "/v1") + "/readyz")
	if err == nil {
		res.Body.Close()
	}
	if err != nil || res.StatusCode != http.StatusOK {
		if required {
			return nil, "", fmt.Errorf("the facade at %s is not ready (%v): run make cluster-up", e.creds.BaseURL, err)
		}
		return nil, fmt.Sprintf("the cluster of %s is not running", path), nil
	}
	e.cfg, err = clientcmd.BuildConfigFromFlags("", e.creds.Kubeconfig)
	if err != nil {
		return nil, "", err
	}
	e.cfg.QPS, e.cfg.Burst = 50, 100
	if e.kube, err = live.KubeClient(e.cfg); err != nil {
		return nil, "", err
	}
	if e.cs, err = kubernetes.NewForConfig(e.cfg); err != nil {
		return nil, "", err
	}
	return e, "", nil
}

// --- phases -------------------------------------------------------------------------------

type phaseTime struct {
	test, name string
	took       time.Duration
}

var (
	phasesMu sync.Mutex
	phases   []phaseTime
)

// phase starts timing a phase of t; the returned func ends it and logs how long it took.
func phase(t *testing.T, name string) func() {
	t.Helper()
	start := time.Now()
	t.Logf("phase %s ...", name)
	return func() {
		t.Helper()
		took := time.Since(start)
		t.Logf("phase %s: %.1fs", name, took.Seconds())
		phasesMu.Lock()
		phases = append(phases, phaseTime{t.Name(), name, took})
		phasesMu.Unlock()
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	phasesMu.Lock()
	if len(phases) > 0 {
		fmt.Println("\ncluster test phases:")
		for _, p := range phases {
			fmt.Printf("  %7.1fs  %-28s %s\n", p.took.Seconds(), p.test, p.name)
		}
	}
	phasesMu.Unlock()
	os.Exit(code)
}

// --- the REST API -------------------------------------------------------------------------

// api is the facade's REST API with the cluster's admin key.
type api struct{ *live.Client }

func (e *env) api(t *testing.T) *api {
	return &api{&live.Client{T: t, Base: e.creds.BaseURL, Key: e.creds.APIKey, HTTP: &http.Client{Timeout: 60 * time.Second}}}
}

// project makes a project and a campaign with the given compute budget.
func (a *api) project(name string, units int) (pid, cid string) {
	a.T.Helper()
	pid = a.Must(201, "POST", "/projects", map[string]any{"name": name})["id"].(string)
	cid = a.Must(201, "POST", "/projects/"+pid+"/campaigns", map[string]any{"name": name,
		"budget": map[string]any{"compute_units": units, "max_runs": 50}})["id"].(string)
	return pid, cid
}

func (a *api) submit(pid, cid, did, mode string, params map[string]any) string {
	a.T.Helper()
	if params == nil {
		params = map[string]any{}
	}
	if _, ok := params["target_variables"]; !ok {
		params["target_variables"] = []string{"y"}
	}
	run := a.Must(201, "POST", "/projects/"+pid+"/campaigns/"+cid+"/runs", map[string]any{"mode": mode, "dataset_id": did, "parameters": params})
	return run["id"].(string)
}

func runPath(pid, cid, rid string) string {
	return "/projects/" + pid + "/campaigns/" + cid + "/runs/" + rid
}

// claimsLedgeredOnce: each of the claims (a claims list's data) has exactly one
// claim_created entry in its project's ledger.
func claimsLedgeredOnce(t *testing.T, a *api, pid string, claims []any) {
	t.Helper()
	for _, c := range claims {
		cl := c.(map[string]any)
		led := a.Must(200, "GET", "/projects/"+pid+"/ledger?claim_id="+cl["id"].(string)+"&limit=100", nil)["data"].([]any)
		created := 0
		for _, l := range led {
			if l.(map[string]any)["event_type"] == "claim_created" {
				created++
			}
		}
		if created != 1 {
			t.Errorf("claim %s has %d claim_created ledger entries, want 1", cl["id"], created)
		}
	}
}

// changeTenant changes the credentials' tenant for the rest of t, and gives it back its
// concurrent-run limit and quota when t ends.
func (e *env) changeTenant(t *testing.T, change func(*discov1.Tenant)) {
	t.Helper()
	ctx := ctxFor(t)
	tenant := &discov1.Tenant{}
	if err := e.kube.Get(ctx, client.ObjectKey{Name: ids.ToName(e.creds.TenantID)}, tenant); err != nil {
		t.Fatal(err)
	}
	before := tenant.DeepCopy()
	change(tenant)
	if err := e.kube.Patch(ctx, tenant, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		latest := &discov1.Tenant{}
		if err := e.kube.Get(context.Background(), client.ObjectKeyFromObject(tenant), latest); err != nil {
			t.Error(err)
			return
		}
		orig := latest.DeepCopy()
		latest.Spec.ConcurrentRuns, latest.Spec.Quota = before.Spec.ConcurrentRuns, before.Spec.Quota
		if err := e.kube.Patch(context.Background(), latest, client.MergeFrom(orig)); err != nil {
			t.Error(err)
		}
	})
}

// admittedNaming waits for the run's Admitted condition to name what (a quota, a queue) and
// returns it.
func (e *env) admittedNaming(t *testing.T, rid, what string, timeout time.Duration) *metav1.Condition {
	t.Helper()
	ctx := ctxFor(t)
	run := &discov1.Run{}
	var cond *metav1.Condition
	live.Eventually(t, timeout, "the Run's Admitted condition to name "+what, func() bool {
		if err := e.kube.Get(ctx, client.ObjectKey{Namespace: e.creds.Namespace, Name: ids.ToName(rid)}, run); err != nil {
			return false
		}
		cond = meta.FindStatusCondition(run.Status.Conditions, discov1.RunConditionAdmitted)
		return cond != nil && strings.Contains(cond.Message, what)
	})
	t.Logf("Admitted=%s %s: %s", cond.Status, cond.Reason, cond.Message)
	return cond
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
