package controllers

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/event"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// activeSet is an executor whose executions are active for the named runs.
type activeSet map[string]bool

func (a activeSet) Submit(context.Context, *discov1.Run) (bool, error)      { return false, nil }
func (a activeSet) Cancel(context.Context, types.NamespacedName) error      { return nil }
func (a activeSet) Active(_ context.Context, key types.NamespacedName) bool { return a[key.Name] }
func runIn(name string, phase discov1.RunPhase) discov1.Run {
	return discov1.Run{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Status: discov1.RunStatus{Phase: phase}}
}

// A run that completed while its Job's pod is still exiting holds its slot until the Job
// ends, so a tenant never has more engine pods than its limit (issue 13).
func TestFinishedRunHoldsItsSlotUntilItsExecutionEnds(t *testing.T) {
	x := activeSet{"exiting": true, "submitted": true}
	runs := []discov1.Run{
		runIn("running", discov1.RunRunning),
		runIn("submitted", discov1.RunQueued),
		runIn("waiting", discov1.RunQueued),
		runIn("exiting", discov1.RunCompleted),
		runIn("done", discov1.RunCompleted),
		runIn("cancelled", discov1.RunCancelled),
	}
	next := runIn("next", discov1.RunQueued)
	if n := newNamespaceSlots().taken(context.Background(), x, runs, &next); n != 3 {
		t.Errorf("slots taken = %d, want 3: running, submitted and the completed run whose Job is still active", n)
	}

	// The Job's end wakes the tenant's queue.
	p := jobEnded()
	running := &batchv1.Job{}
	ended := &batchv1.Job{Status: batchv1.JobStatus{Conditions: []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}}}
	if !p.Update(event.UpdateEvent{ObjectOld: running, ObjectNew: ended}) {
		t.Error("a Job that completes does not wake the queue")
	}
	if p.Update(event.UpdateEvent{ObjectOld: running, ObjectNew: running.DeepCopy()}) || p.Update(event.UpdateEvent{ObjectOld: ended, ObjectNew: ended.DeepCopy()}) {
		t.Error("a Job update that ends nothing wakes the queue")
	}
	if !p.Delete(event.DeleteEvent{Object: running}) {
		t.Error("a deleted Job does not wake the queue")
	}
}

// The oldest queued run of the tenant takes the next slot (issue 14, item 9). Queued runs
// that cannot start (a missing project, campaign or dataset, a run the executor refused)
// or that are already handed to the executor do not hold the queue. The envtest spec
// cannot tell this order apart: creation times have one-second resolution.
func TestQueuedAheadIsFirstInFirstOut(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	queued := func(name string, created time.Time, admittedReason string) discov1.Run {
		r := runIn(name, discov1.RunQueued)
		r.CreationTimestamp = metav1.NewTime(created)
		if admittedReason != "" {
			r.Status.Conditions = []metav1.Condition{{Type: discov1.RunConditionAdmitted, Status: metav1.ConditionFalse, Reason: admittedReason}}
		}
		return r
	}
	deleted := queued("deleted", t0, "")
	deleted.DeletionTimestamp = &metav1.Time{Time: t0}
	runs := []discov1.Run{
		queued("first", t0, discov1.ReasonWaitingForCapacity),
		queued("a-same-second", t0.Add(time.Second), ""),
		queued("b-same-second", t0.Add(time.Second), ""),
		queued("no-project", t0, "ProjectNotFound"),
		queued("no-dataset", t0, "DatasetNotFound"),
		queued("refused", t0, discov1.ReasonNotSubmitted),
		queued("submitted", t0, ""),
		deleted,
		runIn("running", discov1.RunRunning),
		queued("later", t0.Add(time.Hour), ""),
	}
	x, slots := activeSet{"submitted": true}, newNamespaceSlots()
	for _, tc := range []struct {
		run   int
		ahead int
	}{{0, 0}, {1, 1}, {2, 2}, {9, 3}} {
		if n := slots.ahead(context.Background(), x, runs, &runs[tc.run]); n != tc.ahead {
			t.Errorf("%s: %d runs ahead, want %d", runs[tc.run].Name, n, tc.ahead)
		}
	}
}
