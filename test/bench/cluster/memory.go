package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// memory: the manager's memory before and after a tenant gets memRuns finished Runs and
// memClaims Claims. The objects are written as the manager would have left them (owner
// references, finalizer, a run's final status), so that the manager mostly caches and looks
// at them. A claim's status is left to the claim reconciler unless -claim-status: writing it
// here doubles the writes, and the reconciler's own status writes (at its client's rate
// limit) are what the manager does with new claims anyway.
func (b *bench) memory(ctx context.Context) (map[string]any, error) {
	figures := map[string]any{"runs": b.o.memRuns, "claims": b.o.memClaims}
	figures["manager_before"] = b.managerMemory(ctx)

	as := rest.CopyConfig(b.cfg)
	as.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + b.o.managerNS + ":" + b.o.managerSA}
	as.QPS, as.Burst = 1000, 2000
	component, err := client.New(as, client.Options{Scheme: b.kube.Scheme()})
	if err != nil {
		return figures, err
	}

	// A tenant of its own, so that the users' tenant is untouched.
	tenantID := ids.New(ids.Tenant)
	tenant := &discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(tenantID)}, Spec: discov1.TenantSpec{Tier: discov1.TenantTierEnterprise, DisplayName: "bench memory"}}
	if err := b.kube.Create(ctx, tenant); err != nil {
		return figures, err
	}
	if b.o.deleteTenant {
		defer func() {
			if err := b.kube.Delete(context.Background(), tenant); err != nil {
				fmt.Fprintln(os.Stderr, "bench-cluster: deleting the memory tenant:", err)
			}
		}()
	}
	figures["tenant"] = tenantID
	for tenant.Status.Namespace == "" {
		time.Sleep(200 * time.Millisecond)
		if err := b.kube.Get(ctx, client.ObjectKeyFromObject(tenant), tenant); err != nil {
			return figures, err
		}
	}
	ns := tenant.Status.Namespace
	projectID, campaignID := ids.New(ids.Project), ids.New(ids.Campaign)
	labels := map[string]string{discov1.LabelTenant: tenantID, discov1.LabelProject: projectID}
	project := &discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(projectID), Namespace: ns, Labels: labels},
		Spec: discov1.ProjectSpec{DisplayName: "bench memory", TenantID: tenantID}}
	if err := component.Create(ctx, project); err != nil {
		return figures, err
	}
	campaign := &discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(campaignID), Namespace: ns, Labels: labels},
		Spec: discov1.CampaignSpec{ProjectID: projectID, DisplayName: "bench memory",
			Budget: discov1.Budget{ComputeUnits: 1 << 40, MaxRuns: int32(b.o.memRuns + 10)}}}
	if err := component.Create(ctx, campaign); err != nil {
		return figures, err
	}

	start := time.Now()
	claimsPerRun := (b.o.memClaims + b.o.memRuns - 1) / max(1, b.o.memRuns)
	var runsMade, claimsMade atomic.Int64
	work := make(chan int)
	errs := make(chan error, b.o.workers)
	var wg sync.WaitGroup
	for range b.o.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				n := min(claimsPerRun, b.o.memClaims-i*claimsPerRun)
				if err := b.finishedRun(ctx, component, ns, tenantID, campaign, n); err != nil {
					errs <- err
					return
				}
				runsMade.Add(1)
				claimsMade.Add(int64(max(0, n)))
			}
		}()
	}
	progress := time.NewTicker(time.Minute)
	defer progress.Stop()
	var growth []map[string]any
	budget := time.After(b.o.memBudget)
feed:
	for i := range b.o.memRuns {
		select {
		case work <- i:
		case err := <-errs:
			close(work)
			wg.Wait()
			return figures, err
		case <-budget:
			figures["stopped_at_budget"] = b.o.memBudget.String()
			break feed
		case <-progress.C:
			g := map[string]any{"seconds": time.Since(start).Seconds(), "runs": runsMade.Load(), "claims": claimsMade.Load(),
				"load": loadavg(), "pods": b.managerMemory(ctx)}
			growth = append(growth, g)
			fmt.Printf("   %v\n", g)
			select {
			case work <- i:
			case <-ctx.Done():
				break feed
			}
		}
	}
	figures["while_writing"] = growth
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		return figures, err
	}
	figures["runs_made"], figures["claims_made"] = runsMade.Load(), claimsMade.Load()
	figures["write_seconds"] = time.Since(start).Seconds()

	// Let the manager take in every object: its claim reconciler has seen the last claim
	// once that claim's status is untouched and the manager's memory has settled.
	time.Sleep(time.Minute)
	var samples []map[string]any
	for range 3 {
		samples = append(samples, map[string]any{"at": time.Now().UTC(), "load": loadavg(), "pods": b.managerMemory(ctx)})
		time.Sleep(20 * time.Second)
	}
	figures["manager_after"] = samples
	for kind, key := range map[string]string{"ClaimList": "claims_in_the_cluster", "RunList": "runs_in_the_cluster"} {
		list := &metav1.PartialObjectMetadataList{}
		list.SetGroupVersionKind(discov1.GroupVersion.WithKind(kind))
		if err := b.kube.List(ctx, list); err == nil {
			figures[key] = len(list.Items)
		}
	}
	claims := &discov1.ClaimList{}
	if err := b.kube.List(ctx, claims, client.InNamespace(ns)); err == nil {
		recorded := 0
		for i := range claims.Items {
			if claims.Items[i].Status.Tier != "" {
				recorded++
			}
		}
		figures["claims_with_status_at_the_end"] = recorded
	}
	return figures, nil
}

// finishedRun creates a Run that has ended with n claims, and its claims, as disco leaves
// them: owned, with the finalizer, and with the status the reconcilers would write.
func (b *bench) finishedRun(ctx context.Context, c client.Client, ns, tenantID string, campaign *discov1.Campaign, n int) error {
	runID := ids.New(ids.Run)
	labels := map[string]string{discov1.LabelTenant: tenantID, discov1.LabelProject: campaign.Spec.ProjectID,
		discov1.LabelCampaign: ids.FromName(campaign.Name), discov1.LabelRun: runID}
	yes := true
	run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(runID), Namespace: ns, Labels: labels,
		Finalizers: []string{discov1.Finalizer},
		// Asked to cancel from the start: should a reconcile see it before its status is
		// written, the run ends there instead of starting a Job.
		Annotations: map[string]string{discov1.AnnotationCancelRequested: "bench"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: discov1.GroupVersion.String(), Kind: "Campaign",
			Name: campaign.Name, UID: campaign.UID, Controller: &yes, BlockOwnerDeletion: &yes}}},
		Spec: discov1.RunSpec{ProjectID: campaign.Spec.ProjectID, CampaignID: ids.FromName(campaign.Name), Mode: discov1.ModeSymbolic,
			DatasetID: ids.New(ids.Dataset), Parameters: discov1.RunParameters{TargetVariables: []string{"y"}}, ComputeUnitsEstimated: 1}}
	if err := c.Create(ctx, run); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	now := metav1.Now()
	before := run.DeepCopy()
	run.Status = discov1.RunStatus{Phase: discov1.RunCompleted, Message: fmt.Sprintf("%d claims", n), ObservedGeneration: run.Generation,
		StartedAt: &now, CompletedAt: &now, ClaimsCount: int32(n), ComputeUnitsUsed: 1}
	for _, c := range []struct{ typ, reason string }{
		{discov1.RunConditionAccepted, discov1.ReasonSubmitted}, {discov1.RunConditionAdmitted, discov1.ReasonStarted},
		{discov1.RunConditionSucceeded, discov1.ReasonCompleted}, {discov1.ConditionReady, discov1.ReasonCompleted},
		{discov1.RunConditionFinished, discov1.ReasonCompleted}, {discov1.RunConditionAnnounced, discov1.ReasonPublished},
	} {
		run.Status.Conditions = append(run.Status.Conditions, metav1.Condition{Type: c.typ, Status: metav1.ConditionTrue, Reason: c.reason,
			Message: "bench", LastTransitionTime: now, ObservedGeneration: run.Generation})
	}
	run.Status.Conditions = append(run.Status.Conditions, metav1.Condition{Type: discov1.RunConditionFailed, Status: metav1.ConditionFalse,
		Reason: discov1.ReasonCompleted, Message: "bench", LastTransitionTime: now, ObservedGeneration: run.Generation})
	if err := c.Status().Patch(ctx, run, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("run status: %w", err)
	}
	evidence := &apiextensionsv1.JSON{Raw: []byte(`{"r_squared":0.999,"mse":0.0012,"negative_controls":{"passed":true,"checks":[]}}`)}
	for i := range n {
		claimID := ids.New(ids.Claim)
		claim := &discov1.Claim{ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(claimID), Namespace: ns, Labels: labels,
			Finalizers: []string{discov1.Finalizer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: discov1.GroupVersion.String(), Kind: "Run",
				Name: run.Name, UID: run.UID, Controller: &yes, BlockOwnerDeletion: &yes}}},
			Spec: discov1.ClaimSpec{ProjectID: campaign.Spec.ProjectID, CampaignID: ids.FromName(campaign.Name), RunID: runID,
				Type: discov1.ClaimType("law"), Tier: discov1.TierExplore, Summary: fmt.Sprintf("y = 3*x^2 + %d (bench)", i),
				Score: 0.9, Scope: discov1.ClaimScope{Variables: []string{"x", "y"}, Domain: "x in [0.1, 5.1]"},
				Evidence: evidence, Expression: fmt.Sprintf("3*x^2 + %d", i), Variables: []string{"x"}}}
		if err := c.Create(ctx, claim); err != nil {
			return fmt.Errorf("claim: %w", err)
		}
		if !b.o.claimStatus {
			continue
		}
		before := claim.DeepCopy()
		claim.Status.Tier = discov1.TierExplore
		claim.Status.ObservedGeneration = claim.Generation
		claim.Status.Conditions = []metav1.Condition{{Type: discov1.ConditionReady, Status: metav1.ConditionTrue, Reason: discov1.ReasonRecorded,
			Message: "claim is in tier " + string(discov1.TierExplore), LastTransitionTime: now, ObservedGeneration: claim.Generation}}
		if err := c.Status().Patch(ctx, claim, client.MergeFrom(before)); err != nil {
			return fmt.Errorf("claim status: %w", err)
		}
	}
	return nil
}

// managerMemory reads each manager pod's memory on this node: the resident set of its
// process (/proc/PID/status VmRSS, and RssAnon: its heap and stacks, without the mapped
// binary) and its container's working set as the kubelet counts it
// (memory cgroup usage less inactive file pages), with which replica holds the lease.
func (b *bench) managerMemory(ctx context.Context) []map[string]any {
	pods := &corev1.PodList{}
	if err := b.kube.List(ctx, pods, client.InNamespace(b.o.managerNS)); err != nil {
		return []map[string]any{{"error": err.Error()}}
	}
	lease := &coordinationv1.Lease{}
	leader := ""
	if err := b.kube.Get(ctx, client.ObjectKey{Namespace: b.o.managerNS, Name: "disco-manager.discovery.disco.dev"}, lease); err == nil && lease.Spec.HolderIdentity != nil {
		leader, _, _ = strings.Cut(*lease.Spec.HolderIdentity, "_")
	}
	var out []map[string]any
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, pod := range pods.Items {
		if !strings.HasPrefix(pod.Name, "disco-manager") || pod.Status.Phase != corev1.PodRunning {
			continue
		}
		m := map[string]any{"pod": pod.Name, "leader": pod.Name == leader}
		for _, cs := range pod.Status.ContainerStatuses {
			m["restarts"] = cs.RestartCount
		}
		uid := strings.ReplaceAll(string(pod.UID), "-", "_")
		for _, p := range procs {
			cg, err := os.ReadFile(p + "/cgroup")
			if err != nil || !strings.Contains(string(cg), string(pod.UID)) && !strings.Contains(string(cg), uid) {
				continue
			}
			cmd, _ := os.ReadFile(p + "/cmdline")
			if !strings.Contains(string(cmd), "manager") {
				continue
			}
			m["rss_mib"] = statusKiB(p+"/status", "VmRSS") / 1024
			m["rss_anon_mib"] = statusKiB(p+"/status", "RssAnon") / 1024
			m["working_set_mib"] = workingSet(string(cg)) / (1 << 20)
			break
		}
		out = append(out, m)
	}
	return out
}

func statusKiB(path, field string) float64 {
	raw, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseFloat(f[0], 64)
				return n
			}
		}
	}
	return 0
}

// workingSet is usage_in_bytes less total_inactive_file of the process's memory cgroup
// (cgroup v1; the kubelet's container_memory_working_set_bytes).
func workingSet(cgroups string) float64 {
	for _, line := range strings.Split(cgroups, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 || !strings.Contains(","+parts[1]+",", ",memory,") {
			continue
		}
		dir := filepath.Join("/sys/fs/cgroup/memory", parts[2])
		usage, _ := os.ReadFile(filepath.Join(dir, "memory.usage_in_bytes"))
		u, _ := strconv.ParseFloat(strings.TrimSpace(string(usage)), 64)
		stat, _ := os.ReadFile(filepath.Join(dir, "memory.stat"))
		inactive := 0.0
		for _, l := range strings.Split(string(stat), "\n") {
			if v, ok := strings.CutPrefix(l, "total_inactive_file "); ok {
				inactive, _ = strconv.ParseFloat(v, 64)
			}
		}
		return u - inactive
	}
	return 0
}
