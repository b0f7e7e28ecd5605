package controllers

import (
	"context"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// heldExecutor holds its first Submit until released, so a test can look at the run
// reconciler while one admission is under way.
type heldExecutor struct {
	entered, release chan struct{}
	mu               sync.Mutex
	active           map[string]bool
}

func (x *heldExecutor) Submit(_ context.Context, run *discov1.Run) (bool, error) {
	x.entered <- struct{}{}
	<-x.release
	x.mu.Lock()
	defer x.mu.Unlock()
	x.active[run.Name] = true
	return true, nil
}
func (x *heldExecutor) Cancel(context.Context, types.NamespacedName) error { return nil }
func (x *heldExecutor) Active(_ context.Context, key types.NamespacedName) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.active[key.Name]
}

// oneSlotTenant is a fake client holding a tenant with one concurrent run, its namespace,
// project, campaign and dataset, and two queued runs of the tenant created a second apart
// (the second with the given Admitted reason, "" for none).
func oneSlotTenant(reason string) (c client.Client, first, second *discov1.Run) {
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(discov1.AddToScheme(scheme))
	const ns, tenantID = "disco-t", "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	queued := func(name string, second int64) *discov1.Run {
		r := &discov1.Run{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, CreationTimestamp: metav1.Unix(1_700_000_000+second, 0)},
			Spec:       discov1.RunSpec{ProjectID: "proj_a", CampaignID: "camp_a", DatasetID: "ds_a", Mode: discov1.ModeSymbolic, ComputeUnitsEstimated: 1},
			Status:     discov1.RunStatus{Phase: discov1.RunQueued},
		}
		if reason != "" {
			r.Status.Conditions = []metav1.Condition{{Type: discov1.RunConditionAdmitted, Status: metav1.ConditionFalse, Reason: reason,
				LastTransitionTime: metav1.Unix(1_700_000_000, 0)}}
		}
		return r
	}
	first, second = queued("run-first", 0), queued("run-second", 1)
	c = fake.NewClientBuilder().WithScheme(scheme).WithObjects(
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{discov1.LabelTenant: tenantID}}},
		&discov1.Tenant{ObjectMeta: metav1.ObjectMeta{Name: "ten-aaaaaaaaaaaaaaaaaaaaaaaaaa"}, Spec: discov1.TenantSpec{ConcurrentRuns: ptr.To[int32](1)}},
		&discov1.Project{ObjectMeta: metav1.ObjectMeta{Name: "proj-a", Namespace: ns}, Spec: discov1.ProjectSpec{TenantID: tenantID}},
		&discov1.Campaign{ObjectMeta: metav1.ObjectMeta{Name: "camp-a", Namespace: ns},
			Spec: discov1.CampaignSpec{ProjectID: "proj_a", Budget: discov1.Budget{ComputeUnits: 100, MaxRuns: 10}}},
		&discov1.Dataset{ObjectMeta: metav1.ObjectMeta{Name: "ds-a", Namespace: ns},
			Spec: discov1.DatasetSpec{ProjectID: "proj_a", BlobKey: "datasets/" + tenantID + "/" + ns + "/proj_a/ds_a/data"}},
		first, second).Build()
	return c, first, second
}

// With several run workers (Concurrency.Runs), the runs of one namespace are still admitted
// one at a time: a tenant's last slot goes to one run, however many wait for it.
func TestRunsOfOneNamespaceAreAdmittedOneAtATime(t *testing.T) {
	c, first, second := oneSlotTenant("")
	x := &heldExecutor{entered: make(chan struct{}), release: make(chan struct{}), active: map[string]bool{}}
	r := &RunReconciler{Client: c, Executor: x, MaxConcurrentReconciles: 4}
	ctx := context.Background()

	done := make(chan error, 1)
	go func() {
		_, err := r.admit(ctx, first)
		done <- err
	}()
	select {
	case <-x.entered: // the first run is being handed to the executor
	case err := <-done:
		t.Fatalf("the first run was not handed to the executor (admit returned %v, Admitted %+v)", err,
			meta.FindStatusCondition(first.Status.Conditions, discov1.RunConditionAdmitted))
	}
	r.slots.mu.Lock()
	slots := r.slots.namespaces[first.Namespace]
	r.slots.mu.Unlock()
	if slots == nil || slots.TryLock() {
		t.Fatal("another run of the namespace could be admitted while the first one is")
	}
	close(x.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := r.admit(ctx, second); err != nil {
		t.Fatal(err)
	}
	cond := meta.FindStatusCondition(second.Status.Conditions, discov1.RunConditionAdmitted)
	if cond == nil || cond.Reason != discov1.ReasonWaitingForCapacity || x.Active(ctx, client.ObjectKeyFromObject(second)) {
		t.Fatalf("the second run took the tenant's only slot: %+v", cond)
	}
}

// unseenExecutor takes every run, and its Active reads a cache that has not seen any of
// the runs' Jobs yet, as the Job executor's does right after it created them.
type unseenExecutor struct{ submitted []string }

func (x *unseenExecutor) Submit(_ context.Context, run *discov1.Run) (bool, error) {
	x.submitted = append(x.submitted, run.Name)
	return true, nil
}
func (x *unseenExecutor) Cancel(context.Context, types.NamespacedName) error { return nil }
func (x *unseenExecutor) Active(context.Context, types.NamespacedName) bool  { return false }

// A run handed to the executor holds its slot before the cache shows it: its Job and its
// new status reach the cache after the next run of the tenant is admitted, and the runs
// that waited for their dataset do not hold the queue (queuedAhead), so only the record of
// the hand-over keeps the next run from taking the same slot.
func TestAHandedOverRunHoldsItsSlotBeforeTheCacheShowsIt(t *testing.T) {
	c, first, second := oneSlotTenant(discov1.ReasonDatasetNotFound)
	x := &unseenExecutor{}
	r := &RunReconciler{Client: c, Executor: x, MaxConcurrentReconciles: 4}
	ctx := context.Background()

	// admit does not write the run's status (Reconcile's deferred patch does, later): the
	// stored runs stay as the cache still shows them.
	if _, err := r.admit(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, err := r.admit(ctx, second); err != nil {
		t.Fatal(err)
	}
	if len(x.submitted) != 1 || x.submitted[0] != first.Name {
		t.Fatalf("handed to the executor: %v, want only %s (the tenant's limit is 1)", x.submitted, first.Name)
	}
	cond := meta.FindStatusCondition(second.Status.Conditions, discov1.RunConditionAdmitted)
	if cond == nil || cond.Reason != discov1.ReasonWaitingForCapacity || !strings.Contains(cond.Message, "already runs 1") {
		t.Fatalf("the second run does not wait for the slot the first one holds: %+v", cond)
	}

	// Once the cache shows the first run running, the record of its hand-over is dropped.
	running := first.DeepCopy()
	running.Status.Phase = discov1.RunRunning
	slots := r.slots.lock(first.Namespace)
	defer slots.Unlock()
	if n := slots.taken(ctx, x, []discov1.Run{*running, *second}, second); n != 1 || slots.handedOver.Len() != 0 {
		t.Fatalf("slots taken %d (want 1), hand-overs still recorded: %v", n, slots.handedOver.UnsortedList())
	}
}

// A manager that configures nothing gets the documented defaults; a configured number wins.
func TestConcurrencyDefaults(t *testing.T) {
	if got := (Concurrency{}).withDefaults(); got != (Concurrency{Runs: 4, Campaigns: 2, Datasets: 2}) {
		t.Errorf("defaults %+v", got)
	}
	if got := (Concurrency{Runs: 8}).withDefaults(); got != (Concurrency{Runs: 8, Campaigns: 2, Datasets: 2}) {
		t.Errorf("runs 8: %+v", got)
	}
}
