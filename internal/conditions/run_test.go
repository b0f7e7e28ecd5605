package conditions

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

func pipeline(current string, statuses ...string) discov1.Pipeline {
	p := discov1.Pipeline{CurrentStage: current}
	for i, s := range statuses {
		p.Stages = append(p.Stages, discov1.StageStatus{Name: discov1.PipelineStages[i], Status: s})
	}
	return p
}

func stageStatuses(p discov1.Pipeline) []string {
	var out []string
	for _, s := range p.Stages {
		out = append(out, s.Status)
	}
	return out
}

func TestSetRunFinished(t *testing.T) {
	for _, tc := range []struct {
		name       string
		phase      discov1.RunPhase
		pipeline   discov1.Pipeline
		succeeded  metav1.ConditionStatus
		wantStages []string
	}{
		{"completed", discov1.RunCompleted, pipeline("claim_generation", "completed", "completed", "completed"),
			metav1.ConditionTrue, []string{"completed", "completed", "completed"}},
		{"failed while a stage runs", discov1.RunFailed, pipeline("feature_extraction", "completed", "running", "pending"),
			metav1.ConditionFalse, []string{"completed", "failed", "pending"}},
		{"failed before any stage ran", discov1.RunFailed, pipeline("data_validation", "pending", "pending", "pending"),
			metav1.ConditionFalse, []string{"failed", "pending", "pending"}},
		{"cancelled keeps the pipeline", discov1.RunCancelled, pipeline("feature_extraction", "completed", "running", "pending"),
			metav1.ConditionFalse, []string{"completed", "running", "pending"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := &discov1.Run{ObjectMeta: metav1.ObjectMeta{Generation: 3}}
			run.Status.Pipeline = tc.pipeline
			SetRunFinished(run, tc.phase, "Why", "because")
			failed := metav1.ConditionTrue
			if tc.succeeded == metav1.ConditionTrue {
				failed = metav1.ConditionFalse
			}
			for typ, want := range map[string]metav1.ConditionStatus{
				discov1.RunConditionFinished: metav1.ConditionTrue, discov1.RunConditionSucceeded: tc.succeeded,
				discov1.ConditionReady: tc.succeeded, discov1.RunConditionFailed: failed,
			} {
				c := meta.FindStatusCondition(run.Status.Conditions, typ)
				if c == nil || c.Status != want || c.Reason != "Why" || c.Message != "because" || c.ObservedGeneration != 3 {
					t.Errorf("%s: %+v, want status %s, reason Why, message because, generation 3", typ, c, want)
				}
			}
			if got := stageStatuses(run.Status.Pipeline); !slices.Equal(got, tc.wantStages) {
				t.Errorf("stages %v, want %v", got, tc.wantStages)
			}
		})
	}
}
