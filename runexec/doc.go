// Package runexec executes disco Runs: the run execution (Execution: load the dataset, run
// the engine, report progress into the Run's status, store results.json and the artifacts),
// the executors that start it (LocalExecutor, an in-process pool for `disco dev`;
// JobExecutor, one batch/v1 Job per run for clusters), the compute a run is charged, and
// the turning of stored results into Claims. The run reconciler in package controllers
// decides when a run starts, stops and finishes; this package carries it out (issue 16
// item 3: the controllers reconcile, the executors execute).
package runexec

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/types"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/internal/runspec"
)

// DefaultRunTimeLimit bounds a run that names none; the deadline that fails a stuck run is
// this plus DeadlineGrace.
const DefaultRunTimeLimit = runspec.DefaultTimeLimit

// DeadlineGrace is added to a run's time limit before a run that has not finished is
// declared stuck: the engine returns its best result when the limit expires, so a run
// still going after the grace period is not making progress. A Job's
// activeDeadlineSeconds is the same sum.
const DeadlineGrace = 2 * time.Minute

// RunExecutor starts and stops run executions. The local pool implements it for `disco dev`;
// the Job executor for clusters.
type RunExecutor interface {
	// Submit starts the run unless it is already active, and reports whether it started
	// it. An error says why it could not; the run reconciler shows it in the run's Admitted
	// condition and submits again later.
	Submit(ctx context.Context, run *discov1.Run) (bool, error)
	// Cancel stops the run's execution if there is one; no execution is not an error.
	Cancel(ctx context.Context, key types.NamespacedName) error
	// Active reports whether the run is executing (or waiting for a worker) here. An
	// executor that cannot tell reports true: a run is never started twice.
	Active(ctx context.Context, key types.NamespacedName) bool
}

// FailureReporter is implemented by executors that can tell why an execution failed where
// the engine could not finish the run itself: a Job that exhausted its retries or its
// deadline, or an isolated engine that reported failure (discov1.RunConditionEngineFailed).
type FailureReporter interface {
	Failure(ctx context.Context, run *discov1.Run) (message string, failed bool)
}

// ExecutionObserver is implemented by executors that keep their own record of when a
// run's execution started and ended, one the run's engine cannot write.
type ExecutionObserver interface {
	// ExecutionSpan returns when the run's execution started and, once it ended, when;
	// ok is false when the executor has no record of it.
	ExecutionSpan(ctx context.Context, run *discov1.Run) (start time.Time, end *time.Time, ok bool)
}

// truncate cuts s to at most n bytes, for fields the CRDs bound.
func truncate(s string, n int) string { return s[:min(len(s), n)] }

// limit cuts s to at most n items, for lists the CRDs bound.
func limit(s []string, n int) []string { return s[:min(len(s), n)] }
