// Command managermem measures the disco manager's in-process memory for its informer caches
// at full size, without a cluster (issue 13, item 7: the manager's memory with 10,000 Runs
// and 100,000 Claims).
//
// It starts an envtest control plane (etcd + kube-apiserver from $KUBEBUILDER_ASSETS, CRDs
// from config/crd/bases), creates a Tenant, its namespace, a Project and a Campaign, and
// writes finished Runs and their Claims in stages (-stages, fractions of -runs and -claims),
// shaped as test/bench/cluster's memory scenario writes them: owned, with the finalizer, a
// finished run's status and conditions, and (with -claim-status) the status the claim
// reconciler writes. The writes go as system:masters, so no webhook is involved.
//
// After each stage it starts, for each cache variant (-variants), a child process (this
// binary again) that builds the manager's cache as `disco manager` does (ctrl.NewManager
// with the variant's cache options and field indexes), opens the informers of every kind the
// manager's controllers read, waits for them to sync, collects garbage twice, and reports
// runtime/metrics heap figures and the process's resident set before the cache starts and
// after it has synced. A child per measurement keeps the writer's memory and earlier caches
// out of the figures. With -profile, each child writes a heap profile after the sync.
//
// The variants other than "manager" are candidate reductions, measured on the same data in
// the same run; they change only this benchmark's cache options (see variants.go).
//
// The table goes to stdout and the figures, as JSON, to -out.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

type options struct {
	runs, claims int
	stages       []float64
	variants     []string
	workers      int
	claimStatus  bool
	repo         string
	out          string
	profile      string
	childTimeout time.Duration
	startup      string
	startupLimit time.Duration
}

func main() {
	if v := os.Getenv(childEnv); v != "" {
		if err := child(v); err != nil {
			fmt.Fprintln(os.Stderr, "managermem child:", err)
			os.Exit(1)
		}
		return
	}
	o := options{}
	var stages, variants string
	flag.IntVar(&o.runs, "runs", 10000, "finished Runs at the last stage")
	flag.IntVar(&o.claims, "claims", 100000, "Claims at the last stage (spread evenly over the Runs)")
	flag.StringVar(&stages, "stages", "0,0.1,0.25,0.5,1", "fractions of -runs and -claims at which the caches are measured")
	flag.StringVar(&variants, "variants", strings.Join(variantNames(), ","), "cache variants measured at each stage (manager is the production cache)")
	flag.IntVar(&o.workers, "workers", 16, "parallel writers")
	flag.BoolVar(&o.claimStatus, "claim-status", true, "write each claim's status as the claim reconciler leaves it")
	flag.StringVar(&o.repo, "repo", ".", "repository root (for config/crd/bases and bin/k8s)")
	flag.StringVar(&o.out, "out", "test/bench/results/manager-memory/"+time.Now().UTC().Format("2006-01-02")+".json", "JSON results file")
	flag.StringVar(&o.profile, "profile", "", "directory for a heap profile per child (stage and variant in the name); empty writes none")
	flag.DurationVar(&o.childTimeout, "child-timeout", 30*time.Minute, "time limit of one measurement")
	flag.StringVar(&o.startup, "startup", "", "the disco binary (bin/disco), or several separated by commas to compare them on the same objects: after the last stage, start `disco manager` with every controller over the objects, without and with config/manager's GOMEMLIMIT, and measure its peak until its work queues drain; empty skips")
	flag.DurationVar(&o.startupLimit, "startup-timeout", 20*time.Minute, "time limit of one manager startup")
	flag.Parse()
	for _, s := range strings.Split(stages, ",") {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || f < 0 || f > 1 {
			fmt.Fprintf(os.Stderr, "managermem: -stages: %q is not a fraction in [0, 1]\n", s)
			os.Exit(2)
		}
		o.stages = append(o.stages, f)
	}
	slices.Sort(o.stages)
	for _, v := range strings.Split(variants, ",") {
		if _, ok := variantByName(v); !ok {
			fmt.Fprintf(os.Stderr, "managermem: -variants: unknown variant %q (known: %s)\n", v, strings.Join(variantNames(), ", "))
			os.Exit(2)
		}
		o.variants = append(o.variants, v)
	}
	if o.runs < 1 || o.claims < 0 || o.workers < 1 {
		fmt.Fprintln(os.Stderr, "managermem: -runs and -workers must be positive, -claims not negative")
		os.Exit(2)
	}
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "managermem:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format("15:04:05")}, args...)...)
}

// stageResult is one stage's objects and each variant's measurement.
type stageResult struct {
	Runs         int                    `json:"runs"`
	Claims       int                    `json:"claims"`
	WriteSeconds float64                `json:"write_seconds"`
	Variants     map[string]measurement `json:"variants"`
}

func run(ctx context.Context, o options) error {
	ctrl.SetLogger(logr.Discard())
	repo, err := filepath.Abs(o.repo)
	if err != nil {
		return err
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		os.Setenv("KUBEBUILDER_ASSETS", filepath.Join(repo, "bin", "k8s"))
	}
	tmp, err := os.MkdirTemp("", "disco-bench-managermem-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			return err
		}
	}

	logf("starting etcd + kube-apiserver from %s", os.Getenv("KUBEBUILDER_ASSETS"))
	env := &envtest.Environment{CRDDirectoryPaths: []string{filepath.Join(repo, "config", "crd", "bases")}, ErrorIfCRDPathMissing: true}
	// etcd's default 2 GiB backend quota holds 100,000 claims and their revisions.
	env.ControlPlane.Etcd = &envtest.Etcd{}
	env.ControlPlane.Etcd.Configure().Set("quota-backend-bytes", strconv.Itoa(8<<30))
	if _, err := env.Start(); err != nil {
		return fmt.Errorf("start envtest (run `make envtest` first): %w", err)
	}
	defer func() {
		if err := env.Stop(); err != nil {
			logf("stop envtest: %v", err)
		}
	}()
	user, err := env.AddUser(envtest.User{Name: "bench-managermem", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return err
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return err
	}
	kubeconfigPath := filepath.Join(tmp, "kubeconfig")
	if err := os.WriteFile(kubeconfigPath, kubeconfig, 0o600); err != nil {
		return err
	}
	rc := user.Config()
	rc.QPS, rc.Burst = -1, 0
	scheme, err := newScheme()
	if err != nil {
		return err
	}
	c, err := client.New(rc, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}

	w, err := newWriter(ctx, c, o.claimStatus)
	if err != nil {
		return err
	}
	claimsPerRun := (o.claims + o.runs - 1) / o.runs
	results := map[string]any{
		"started": time.Now().UTC(), "go": runtime.Version(), "gomaxprocs": runtime.GOMAXPROCS(0),
		"runs": o.runs, "claims": o.claims, "claims_per_run": claimsPerRun, "claim_status": o.claimStatus,
		"variants": describeVariants(o.variants), "load_before": loadavg(),
	}
	var stages []stageResult
	for _, f := range o.stages {
		targetRuns := int(float64(o.runs)*f + 0.5)
		targetClaims := min(o.claims, targetRuns*claimsPerRun)
		start := time.Now()
		if err := w.fill(ctx, targetRuns, targetClaims, claimsPerRun, o.workers); err != nil {
			return err
		}
		st := stageResult{Runs: int(w.runs.Load()), Claims: int(w.claims.Load()), WriteSeconds: time.Since(start).Seconds(), Variants: map[string]measurement{}}
		logf("stage: %d runs, %d claims (written in %.0f s); measuring %d variants", st.Runs, st.Claims, st.WriteSeconds, len(o.variants))
		for _, v := range o.variants {
			prof := ""
			if o.profile != "" {
				prof = filepath.Join(o.profile, fmt.Sprintf("%d-%s.pprof", st.Claims, v))
			}
			m, err := measureInChild(ctx, v, kubeconfigPath, prof, o.childTimeout)
			if err != nil {
				return fmt.Errorf("variant %s at %d claims: %w", v, st.Claims, err)
			}
			st.Variants[v] = m
			logf("  %-22s live heap %7.1f MiB (+%.1f), RSS %7.1f MiB, peak RSS %7.1f MiB, sync %.1f s",
				v, mib(m.After.LiveHeap), mib(m.After.LiveHeap-m.Before.LiveHeap), mib(m.After.RSS), mib(m.After.PeakRSS), m.SyncSeconds)
		}
		stages = append(stages, st)
		results["stages"] = stages
		if err := writeJSON(o.out, results); err != nil { // after every stage: a long run keeps what it measured
			return err
		}
	}
	if o.startup != "" {
		var starts []startupResult
		for _, bin := range strings.Split(o.startup, ",") {
			for _, env := range [][]string{nil, {"GOMEMLIMIT=900MiB"}} {
				logf("starting %s manager with every controller (env %v)", bin, env)
				s, err := measureStartup(ctx, bin, kubeconfigPath, env, o.startupLimit)
				if err != nil {
					return fmt.Errorf("manager startup: %w", err)
				}
				s.Binary = bin
				logf("  peak RSS %.1f MiB, RSS %.1f MiB when drained (%v) after %.0f s, %.0f reconciles (%.0f errors)",
					mib(s.PeakRSS), mib(s.RSSDrained), s.Drained, s.SecondsToDrain, s.Reconciles, s.ReconcileErrors)
				starts = append(starts, s)
				results["startup"] = starts
				if err := writeJSON(o.out, results); err != nil {
					return err
				}
			}
		}
	}
	results["finished"] = time.Now().UTC()
	results["load_after"] = loadavg()
	if err := writeJSON(o.out, results); err != nil {
		return err
	}
	printTable(stages, o.variants)
	logf("wrote %s", o.out)
	return nil
}

func measureInChild(ctx context.Context, variant, kubeconfig, profile string, timeout time.Duration) (measurement, error) {
	self, err := os.Executable()
	if err != nil {
		return measurement{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, self)
	v, _ := variantByName(variant)
	cmd.Env = append(append(os.Environ(), childEnv+"="+variant, kubeconfigEnv+"="+kubeconfig, profileEnv+"="+profile), v.env...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return measurement{}, err
	}
	var m measurement
	if err := json.Unmarshal(stdout.Bytes(), &m); err != nil {
		return measurement{}, fmt.Errorf("child output %q: %w", stdout.String(), err)
	}
	return m, nil
}

func printTable(stages []stageResult, variants []string) {
	fmt.Println()
	fmt.Println("| Claims | Runs | variant | live heap after sync | cache (after − before) | per Claim | heap objects | RSS after sync | peak RSS | sync |")
	fmt.Println("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, st := range stages {
		for _, v := range variants {
			m := st.Variants[v]
			per := "–"
			if st.Claims > 0 {
				per = fmt.Sprintf("%.2f KiB", (m.After.LiveHeap-m.Before.LiveHeap)/1024/float64(st.Claims))
			}
			fmt.Printf("| %d | %d | %s | %.1f MiB | %.1f MiB | %s | %d | %.1f MiB | %.1f MiB | %.1f s |\n",
				st.Claims, st.Runs, v, mib(m.After.LiveHeap), mib(m.After.LiveHeap-m.Before.LiveHeap), per,
				int64(m.After.Objects), mib(m.After.RSS), mib(m.After.PeakRSS), m.SyncSeconds)
		}
	}
}

func mib(b float64) float64 { return b / (1 << 20) }

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

func loadavg() string {
	raw, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(raw))
}

// writer creates the tenant's objects and tops them up to each stage's counts.
type writer struct {
	c            client.Client
	ns, tenantID string
	campaign     *discov1.Campaign
	claimStatus  bool
	runs, claims atomic.Int64
}

func newWriter(ctx context.Context, c client.Client, claimStatus bool) (*writer, error) {
	tenantID := ids.New(ids.Tenant)
	tenant := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(tenantID)},
		Spec: discov1.TenantSpec{Tier: discov1.TenantTierEnterprise, DisplayName: "bench manager memory"}}
	if err := c.Create(ctx, tenant); err != nil {
		return nil, err
	}
	// The namespace the tenant controller would make (no controller runs here).
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "disco-" + ids.ToName(tenantID), Labels: map[string]string{discov1.LabelTenant: tenantID}}}
	if err := c.Create(ctx, ns); err != nil {
		return nil, err
	}
	projectID, campaignID := ids.New(ids.Project), ids.New(ids.Campaign)
	labels := map[string]string{discov1.LabelTenant: tenantID, discov1.LabelProject: projectID}
	project := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(projectID), Namespace: ns.Name, Labels: labels},
		Spec: discov1.ProjectSpec{DisplayName: "bench manager memory", TenantID: tenantID}}
	if err := c.Create(ctx, project); err != nil {
		return nil, err
	}
	campaign := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(campaignID), Namespace: ns.Name, Labels: labels},
		Spec: discov1.CampaignSpec{ProjectID: projectID, DisplayName: "bench manager memory",
			Budget: discov1.Budget{ComputeUnits: 1 << 40, MaxRuns: 1000000}}}
	if err := c.Create(ctx, campaign); err != nil {
		return nil, err
	}
	return &writer{c: c, ns: ns.Name, tenantID: tenantID, campaign: campaign, claimStatus: claimStatus}, nil
}

// fill writes runs (each with up to perRun claims, the last ones fewer so the claim count
// is exact) until there are targetRuns runs and targetClaims claims.
func (w *writer) fill(ctx context.Context, targetRuns, targetClaims, perRun, workers int) error {
	have := int(w.runs.Load())
	if targetRuns <= have {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan int)
	var wg sync.WaitGroup
	var first error
	var once sync.Once
	progress := time.NewTicker(30 * time.Second)
	defer progress.Stop()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				n := max(0, min(perRun, targetClaims-i*perRun))
				if err := w.finishedRun(ctx, n); err != nil {
					once.Do(func() { first = err; cancel() })
					return
				}
				w.runs.Add(1)
				w.claims.Add(int64(n))
			}
		}()
	}
feed:
	for i := have; i < targetRuns; i++ {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		case <-progress.C:
			logf("  written: %d runs, %d claims (load %s)", w.runs.Load(), w.claims.Load(), loadavg())
			i--
		}
	}
	close(work)
	wg.Wait()
	return first
}

// finishedRun creates a Run that has ended with n claims, and its claims, in the shape of
// test/bench/cluster's memory scenario: owned, with the finalizer, the final status the
// run reconciler writes, and the claim status the claim reconciler writes.
func (w *writer) finishedRun(ctx context.Context, n int) error {
	runID := ids.New(ids.Run)
	camp := w.campaign
	labels := map[string]string{discov1.LabelTenant: w.tenantID, discov1.LabelProject: camp.Spec.ProjectID,
		discov1.LabelCampaign: ids.FromName(camp.Name), discov1.LabelRun: runID}
	yes := true
	run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(runID), Namespace: w.ns, Labels: labels,
		Finalizers:  []string{discov1.Finalizer},
		Annotations: map[string]string{discov1.AnnotationCancelRequested: "bench"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: discov1.GroupVersion.String(), Kind: "Campaign",
			Name: camp.Name, UID: camp.UID, Controller: &yes, BlockOwnerDeletion: &yes}}},
		Spec: discov1.RunSpec{ProjectID: camp.Spec.ProjectID, CampaignID: ids.FromName(camp.Name), Mode: discov1.ModeSymbolic,
			DatasetID: ids.New(ids.Dataset), Parameters: discov1.RunParameters{TargetVariables: []string{"y"}}, ComputeUnitsEstimated: 1}}
	if err := w.c.Create(ctx, run); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	now := metav1.Now()
	before := run.DeepCopy()
	run.Status = discov1.RunStatus{Phase: discov1.RunCompleted, Message: fmt.Sprintf("%d claims", n), ObservedGeneration: run.Generation,
		StartedAt: &now, CompletedAt: &now, ClaimsCount: int32(n), ComputeUnitsUsed: 1}
	for _, c := range [][3]string{
		{discov1.RunConditionAccepted, discov1.ReasonSubmitted, "True"}, {discov1.RunConditionAdmitted, discov1.ReasonStarted, "True"},
		{discov1.RunConditionSucceeded, discov1.ReasonCompleted, "True"}, {discov1.ConditionReady, discov1.ReasonCompleted, "True"},
		{discov1.RunConditionFinished, discov1.ReasonCompleted, "True"}, {discov1.RunConditionAnnounced, discov1.ReasonPublished, "True"},
		{discov1.RunConditionFailed, discov1.ReasonCompleted, "False"},
	} {
		run.Status.Conditions = append(run.Status.Conditions, metav1.Condition{Type: c[0], Status: metav1.ConditionStatus(c[2]), Reason: c[1],
			Message: "bench", LastTransitionTime: now, ObservedGeneration: run.Generation})
	}
	if err := w.c.Status().Patch(ctx, run, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("run status: %w", err)
	}
	for i := range n {
		claim := benchClaim(run, runID, labels, i)
		if err := w.c.Create(ctx, claim); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		if !w.claimStatus {
			continue
		}
		before := claim.DeepCopy()
		claim.Status.Tier = claim.Spec.Tier
		claim.Status.ObservedGeneration = claim.Generation
		claim.Status.Conditions = []metav1.Condition{{Type: discov1.ConditionReady, Status: metav1.ConditionTrue, Reason: discov1.ReasonRecorded,
			Message: "claim is in tier " + string(claim.Spec.Tier), LastTransitionTime: now, ObservedGeneration: claim.Generation}}
		if err := w.c.Status().Patch(ctx, claim, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("claim status: %w", err)
		}
	}
	return nil
}

// benchEvidence is the evidence of test/bench/cluster's claims.
var benchEvidence = []byte(`{"r_squared":0.999,"mse":0.0012,"negative_controls":{"passed":true,"checks":[]}}`)

func benchClaim(run *discov1.Run, runID string, labels map[string]string, i int) *discov1.Claim {
	yes := true
	return &discov1.Claim{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(ids.New(ids.Claim)), Namespace: run.Namespace, Labels: labels,
		Finalizers: []string{discov1.Finalizer},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: discov1.GroupVersion.String(), Kind: "Run",
			Name: run.Name, UID: run.UID, Controller: &yes, BlockOwnerDeletion: &yes}}},
		Spec: discov1.ClaimSpec{ProjectID: run.Spec.ProjectID, CampaignID: run.Spec.CampaignID, RunID: runID,
			Type: discov1.ClaimType("law"), Tier: discov1.TierExplore, Summary: fmt.Sprintf("y = 3*x^2 + %d (bench)", i),
			Score: 0.9, Scope: discov1.ClaimScope{Variables: []string{"x", "y"}, Domain: "x in [0.1, 5.1]"},
			Evidence: &apiextensionsv1.JSON{Raw: benchEvidence}, Expression: fmt.Sprintf("3*x^2 + %d", i), Variables: []string{"x"}}}
}
