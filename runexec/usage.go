package runexec

import (
	"context"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
)

// ChargedUnits is the compute a run is charged when the controller finishes it at now.
// Usage is never the engine's to write (issue 17 item 2): it comes from the executor's own
// record when it keeps one (a Job's start and end, written by the Job controller), and
// otherwise from status.startedAt, which an isolated engine sets once and cannot move
// (the disco-engine-run-status admission policy). status.computeUnitsUsed as the engine
// may have written it is ignored.
func ChargedUnits(ctx context.Context, x RunExecutor, run *discov1.Run, now time.Time) int64 {
	if o, ok := x.(ExecutionObserver); ok {
		if start, end, ok := o.ExecutionSpan(ctx, run); ok {
			if end == nil || end.After(now) {
				end = &now
			}
			return computeUnits(end.Sub(start))
		}
	}
	if run.Status.StartedAt == nil {
		return 0
	}
	return computeUnits(now.Sub(run.Status.StartedAt.Time))
}

// ExecutionSpan reads the run's Job: its status.startTime, and its completionTime or the
// time it failed. A Job of another run of the same name (not controlled by this one) is
// no record of this run.
func (x *JobExecutor) ExecutionSpan(ctx context.Context, run *discov1.Run) (time.Time, *time.Time, bool) {
	job := &batchv1.Job{}
	if err := x.Client.Get(ctx, client.ObjectKeyFromObject(run), job); err != nil ||
		!metav1.IsControlledBy(job, run) || job.Status.StartTime == nil {
		return time.Time{}, nil, false
	}
	if job.Status.CompletionTime != nil {
		return job.Status.StartTime.Time, &job.Status.CompletionTime.Time, true
	}
	for _, c := range job.Status.Conditions {
		if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return job.Status.StartTime.Time, &c.LastTransitionTime.Time, true
		}
	}
	return job.Status.StartTime.Time, nil, true
}
