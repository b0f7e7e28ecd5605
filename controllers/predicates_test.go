package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// A running run reports its progress about once a second; neither its campaign nor the run
// reconciler itself is woken by such a write, and every change the campaign's counters or
// the run's admission depend on still wakes them (issue 16 item 3).
func TestProgressOnlyRunUpdatesEnqueueNothing(t *testing.T) {
	half, more := 0.5, 0.6
	started := metav1.NewTime(time.Unix(1_700_000_000, 0))
	running := &discov1.Run{
		ObjectMeta: metav1.ObjectMeta{Name: "run-a", Namespace: "ns", ResourceVersion: "7", Generation: 1},
		Spec:       discov1.RunSpec{CampaignID: "camp_a", ComputeUnitsEstimated: 5},
		Status: discov1.RunStatus{Phase: discov1.RunRunning, StartedAt: &started, Progress: &half,
			Pipeline: discov1.Pipeline{CurrentStage: "data_validation", Stages: []discov1.StageStatus{{Name: "data_validation", Status: "running", Progress: &half}}}},
	}
	tick := running.DeepCopy()
	tick.ResourceVersion = "8"
	tick.Status.Progress = &more
	tick.Status.Pipeline = discov1.Pipeline{CurrentStage: "feature_extraction", Stages: []discov1.StageStatus{
		{Name: "data_validation", Status: "completed"}, {Name: "feature_extraction", Status: "running", Progress: &half}}}
	eta := metav1.NewTime(started.Add(time.Minute))
	tick.Status.EstimatedCompletion = &eta

	campaign, run := runUsageChanged(), notProgressOnly()
	progress := event.UpdateEvent{ObjectOld: running, ObjectNew: tick}
	if campaign.Update(progress) {
		t.Error("a progress-only run update enqueues its campaign")
	}
	if run.Update(progress) {
		t.Error("a progress-only run update enqueues the run")
	}
	if tick.ResourceVersion != "8" || tick.Status.Progress != &more || tick.Status.EstimatedCompletion != &eta ||
		running.Status.Pipeline.CurrentStage != "data_validation" || len(tick.Status.Pipeline.Stages) != 2 {
		t.Error("comparing the versions changed the informer's objects")
	}

	changes := map[string]func(*discov1.Run){
		"phase":    func(r *discov1.Run) { r.Status.Phase = discov1.RunCompleted },
		"charge":   func(r *discov1.Run) { r.Status.ComputeUnitsUsed = 9 },
		"deletion": func(r *discov1.Run) { now := metav1.Now(); r.DeletionTimestamp = &now },
		"refusal": func(r *discov1.Run) {
			setCondition(&r.Status.Conditions, r, discov1.RunConditionFinished, metav1.ConditionTrue, discov1.ReasonBudgetExhausted, "refused")
		},
	}
	for name, change := range changes {
		cur := tick.DeepCopy()
		change(cur)
		e := event.UpdateEvent{ObjectOld: running, ObjectNew: cur}
		if !campaign.Update(e) {
			t.Errorf("%s: the campaign is not enqueued", name)
		}
		if !run.Update(e) {
			t.Errorf("%s: the run is not enqueued", name)
		}
	}
	// What the run reconciler reacts to beyond its campaign's counters.
	for name, change := range map[string]func(*discov1.Run){
		"results ready": func(r *discov1.Run) {
			setCondition(&r.Status.Conditions, r, discov1.RunConditionResultsReady, metav1.ConditionTrue, discov1.ReasonResultsStored, "")
		},
		"cancel requested": func(r *discov1.Run) { r.Annotations = map[string]string{discov1.AnnotationCancelRequested: "now"} },
	} {
		cur := tick.DeepCopy()
		change(cur)
		if !run.Update(event.UpdateEvent{ObjectOld: running, ObjectNew: cur}) {
			t.Errorf("%s: the run is not enqueued", name)
		}
	}
	if !campaign.Create(event.CreateEvent{Object: running}) || !campaign.Delete(event.DeleteEvent{Object: running}) {
		t.Error("creating or deleting a run does not enqueue its campaign")
	}
}
