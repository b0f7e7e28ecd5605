package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/ids"
)

// podWatch follows the engine pods of the tenant namespace: when each run's engine
// container was first seen running, and how many engine pods of a set of runs existed at
// once (a pod counts until it has ended, as a ResourceQuota counts it).
type podWatch struct {
	mu      sync.Mutex
	running map[string]time.Time // run id → first seen running
	live    map[string]string    // pod name → run id, for pods that have not ended
	most    map[string]int       // batch → most live pods of its runs at once
	batch   map[string]string    // run id → batch
}

func (b *bench) watchPods(ctx context.Context) (*podWatch, error) {
	wc, err := client.NewWithWatch(b.cfg, client.Options{Scheme: b.kube.Scheme()})
	if err != nil {
		return nil, err
	}
	w, err := wc.Watch(ctx, &corev1.PodList{}, client.InNamespace(b.creds.Namespace), client.HasLabels{discov1.LabelRun})
	if err != nil {
		return nil, err
	}
	pw := &podWatch{running: map[string]time.Time{}, live: map[string]string{}, most: map[string]int{}, batch: map[string]string{}}
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			pw.observe(ev.Type, pod, time.Now())
		}
	}()
	return pw, nil
}

func (pw *podWatch) observe(typ watch.EventType, pod *corev1.Pod, at time.Time) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	rid := pod.Labels[discov1.LabelRun]
	for _, cs := range pod.Status.ContainerStatuses {
		if _, seen := pw.running[rid]; !seen && cs.State.Running != nil {
			pw.running[rid] = at
		}
	}
	ended := typ == watch.Deleted || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	if ended {
		delete(pw.live, pod.Name)
	} else {
		pw.live[pod.Name] = rid
	}
	counts := map[string]int{}
	for _, r := range pw.live {
		if b := pw.batch[r]; b != "" {
			counts[b]++
		}
	}
	for b, n := range counts {
		pw.most[b] = max(pw.most[b], n)
	}
}

func (pw *podWatch) runningAt(rid string) (time.Time, bool) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	t, ok := pw.running[rid]
	return t, ok
}

func (pw *podWatch) join(batch, rid string) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	pw.batch[rid] = batch
}

func (pw *podWatch) mostOf(batch string) int {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	return pw.most[batch]
}

// latency: runs submitted one after another on an idle tenant; each is timed from the
// submission's request to its engine container running, then cancelled, and the next one
// is submitted once it has ended.
func (b *bench) latency(ctx context.Context) (map[string]any, error) {
	figures := map[string]any{"runs": b.o.latencyN}
	restore, err := b.withTenant(ctx, func(t *discov1.Tenant) { t.Spec.Tier = discov1.TenantTierEnterprise })
	if err != nil {
		return figures, err
	}
	defer restore()
	pid, cid, did, err := b.workspace(ctx, "bench latency", b.o.latencyN)
	if err != nil {
		return figures, err
	}
	pw, err := b.watchPods(ctx)
	if err != nil {
		return figures, err
	}
	var submitToPod, submitToAccepted []float64
	for i := range b.o.latencyN {
		t0 := time.Now()
		rid, err := b.submit(ctx, pid, cid, did, i)
		if err != nil {
			return figures, err
		}
		submitToAccepted = append(submitToAccepted, time.Since(t0).Seconds())
		for {
			if at, ok := pw.runningAt(rid); ok {
				submitToPod = append(submitToPod, at.Sub(t0).Seconds())
				break
			}
			if time.Since(t0) > 5*time.Minute {
				return figures, fmt.Errorf("run %s: no engine container running after 5 minutes", rid)
			}
			time.Sleep(20 * time.Millisecond)
		}
		path := "/projects/" + pid + "/campaigns/" + cid + "/runs/" + rid
		if code, out, err := b.do(ctx, "POST", path+"/cancel", nil); err != nil || (code != 202 && code != 409) {
			return figures, fmt.Errorf("cancel %s = %d %v: %v", rid, code, out, err)
		}
		if err := b.waitEnded(ctx, []string{rid}, 5*time.Minute, nil); err != nil {
			return figures, err
		}
	}
	figures["submit_to_engine_running_seconds"] = quantiles(submitToPod)
	figures["submit_request_seconds"] = quantiles(submitToAccepted)
	return figures, nil
}

// burst: n runs submitted at once while the tenant's ResourceQuota allows only a few pods
// (spec.quota.pods; the concurrent-run limit stays the tier's, so the quota is what binds).
// Every run must complete, no more engine pods than the quota may exist at once, and no run
// may be lost.
func (b *bench) burst(ctx context.Context) (map[string]any, error) {
	figures := map[string]any{"runs": b.o.burstN, "quota_pods": b.o.burstPods}
	restore, err := b.withTenant(ctx, func(t *discov1.Tenant) {
		t.Spec.Tier = discov1.TenantTierEnterprise
		t.Spec.ConcurrentRuns = ptr.To[int32](10)
		t.Spec.Quota = &discov1.TenantQuota{Pods: ptr.To(int32(b.o.burstPods))}
	})
	if err != nil {
		return figures, err
	}
	defer restore()
	figures["concurrent_run_limit"] = 10
	want := resource.NewQuantity(int64(b.o.burstPods), resource.DecimalSI)
	for {
		q := &corev1.ResourceQuota{}
		if err := b.kube.Get(ctx, client.ObjectKey{Namespace: b.creds.Namespace, Name: "disco-tenant"}, q); err != nil {
			return figures, err
		}
		if h, ok := q.Status.Hard[corev1.ResourcePods]; ok && h.Equal(*want) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	pid, cid, did, err := b.workspace(ctx, "bench burst", b.o.burstN)
	if err != nil {
		return figures, err
	}
	pw, err := b.watchPods(ctx)
	if err != nil {
		return figures, err
	}
	start := time.Now()
	rids := make([]string, b.o.burstN)
	errs := make(chan error, b.o.burstN)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range b.o.burstN {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rid, err := b.submit(ctx, pid, cid, did, i)
			if err != nil {
				errs <- err
				return
			}
			pw.join("burst", rid)
			rids[i] = rid
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return figures, err
	}
	figures["submit_all_seconds"] = time.Since(start).Seconds()
	quotaNamed := map[string]bool{}
	err = b.waitEnded(ctx, rids, b.o.timeout, func(r *discov1.Run) {
		if c := meta.FindStatusCondition(r.Status.Conditions, discov1.RunConditionAdmitted); c != nil &&
			c.Reason == discov1.ReasonWaitingForCapacity && strings.Contains(c.Message, "ResourceQuota disco-tenant") {
			quotaNamed[r.Name] = true
		}
	})
	figures["submit_to_all_ended_seconds"] = time.Since(start).Seconds()
	figures["most_engine_pods_at_once"] = pw.mostOf("burst")
	figures["runs_seen_waiting_on_the_quota"] = len(quotaNamed)
	ended := map[string]int{}
	lost := 0
	for _, rid := range rids {
		r := &discov1.Run{}
		if e := b.kube.Get(ctx, client.ObjectKey{Namespace: b.creds.Namespace, Name: ids.ToName(rid)}, r); e != nil {
			lost++
			continue
		}
		ended[string(r.Status.Phase)]++
	}
	figures["runs_by_phase"] = ended
	figures["lost"] = lost
	if err != nil {
		return figures, err
	}
	if ended[string(discov1.RunCompleted)] != b.o.burstN || lost > 0 {
		return figures, fmt.Errorf("%d of %d runs completed, %d lost", ended[string(discov1.RunCompleted)], b.o.burstN, lost)
	}
	if m := pw.mostOf("burst"); m > b.o.burstPods {
		return figures, fmt.Errorf("%d engine pods at once under a quota of %d", m, b.o.burstPods)
	}
	return figures, nil
}

// waitEnded polls the runs' objects until every one has ended; seen is called with each
// run on every poll.
func (b *bench) waitEnded(ctx context.Context, rids []string, timeout time.Duration, seen func(*discov1.Run)) error {
	deadline := time.Now().Add(timeout)
	pending := map[string]bool{}
	for _, rid := range rids {
		pending[ids.ToName(rid)] = true
	}
	for len(pending) > 0 {
		list := &discov1.RunList{}
		if err := b.kube.List(ctx, list, client.InNamespace(b.creds.Namespace)); err != nil {
			return err
		}
		for i := range list.Items {
			r := &list.Items[i]
			if !pending[r.Name] {
				continue
			}
			if seen != nil {
				seen(r)
			}
			if r.Status.Phase.Finished() {
				delete(pending, r.Name)
			}
		}
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d runs not ended after %s", len(pending), timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	return nil
}
