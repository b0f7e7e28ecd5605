package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/runspec"
)

// Run condition types set by execution.
const (
	// RunConditionResultsReady: the engine finished and results.json is in the blob store;
	// the reconciler turns it into claims and then marks the run completed.
	RunConditionResultsReady = "ResultsReady"
	// RunConditionClaimsCreated: every claim of results.json exists and is ledgered.
	RunConditionClaimsCreated = "ClaimsCreated"
)

// DefaultRunTimeLimit bounds a run that names none; the deadline that fails a stuck run is
// this plus a grace period.
const DefaultRunTimeLimit = runspec.DefaultTimeLimit

// ResultsKey is where a run's results.json is stored.
func ResultsKey(runName string) string { return "runs/" + runName + "/results.json" }

// artifactKey is where one artifact of a run is stored.
func artifactKey(runName, artifactID, name string) string {
	return "runs/" + runName + "/artifacts/" + artifactID + "-" + name
}

// Execution runs a Run's discovery: both executors (in-process pool and the `disco engine
// run` command of a Job) call it, so there is one code path from a Run to its results.
type Execution struct {
	Client     client.Client
	Blob       *blob.Bucket
	ScratchDir string
	TimeLimit  time.Duration
	Now        func() time.Time
}

func (e *Execution) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Execute loads the run's dataset, runs the engine while reporting stage progress into the
// Run's status, and stores results.json and the artifacts. On success the run carries the
// ResultsReady condition; on failure it is failed with the reason. It returns the error
// that failed the run, if any.
func (e *Execution) Execute(ctx context.Context, run *discov1.Run) error {
	started := e.now()
	if err := e.patchStatus(ctx, run, func(r *discov1.Run) {
		if r.Status.StartedAt == nil {
			t := metav1.NewTime(started)
			r.Status.StartedAt = &t
		}
		r.Status.Phase = discov1.RunRunning
		r.Status.Message = ""
		limit := e.timeLimit()
		eta := metav1.NewTime(r.Status.StartedAt.Add(limit))
		r.Status.EstimatedCompletion = &eta
		setCondition(&r.Status.Conditions, r, discov1.RunConditionAdmitted, metav1.ConditionTrue, "Started", "the engine is running the run")
	}); err != nil {
		if errors.Is(err, errRunDone) {
			return nil // nothing to do: the results exist
		}
		return err
	}

	result, runErr := e.discover(ctx, run)
	if runErr == nil {
		runErr = e.store(ctx, run, result)
	}
	if errors.Is(runErr, errRunDone) {
		return nil
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return ctx.Err() // shutting down: leave the run running; it restarts with the manager
		}
		msg := runErr.Error()
		return errors.Join(runErr, e.patchStatus(ctx, run, func(r *discov1.Run) {
			now := metav1.NewTime(e.now())
			r.Status.Phase = discov1.RunFailed
			r.Status.Message = msg
			r.Status.CompletedAt = &now
			r.Status.DurationMS = now.Sub(started).Milliseconds()
			r.Status.ComputeUnitsUsed = computeUnits(now.Sub(started))
			setCondition(&r.Status.Conditions, r, discov1.RunConditionFinished, metav1.ConditionTrue, "Failed", msg)
		}))
	}
	return nil
}

func (e *Execution) timeLimit() time.Duration {
	if e.TimeLimit > 0 {
		return e.TimeLimit
	}
	return DefaultRunTimeLimit
}

// computeUnits charges one unit per started second of one engine worker.
func computeUnits(d time.Duration) int64 {
	return max(1, int64((d+time.Second-1)/time.Second))
}

func (e *Execution) discover(ctx context.Context, run *discov1.Run) (*engine.Result, error) {
	ds := &discov1.Dataset{}
	if err := e.Client.Get(ctx, objectKey(run.Namespace, run.Spec.DatasetID), ds); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", run.Spec.DatasetID, err)
	}
	dir, err := os.MkdirTemp(e.ScratchDir, "run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "data."+ds.Spec.Format)
	if err := e.Blob.Download(ctx, ds.Spec.BlobKey, local); err != nil {
		return nil, fmt.Errorf("read dataset %s: %w", run.Spec.DatasetID, err)
	}
	frame, err := data.Load(local, ds.Spec.Format)
	if err != nil {
		return nil, fmt.Errorf("load dataset %s: %w", run.Spec.DatasetID, err)
	}
	spec := runspec.Engine(run.Spec, e.timeLimit())
	if err := spec.Validate(frame); err != nil {
		return nil, err
	}
	reporter := &statusReporter{exec: e, run: run, started: map[string]time.Time{}}
	result, err := engine.Discover(ctx, frame, spec, reporter)
	reporter.flush(ctx)
	return result, err
}

// store writes results.json and the artifacts, then marks the results ready.
func (e *Execution) store(ctx context.Context, run *discov1.Run, result *engine.Result) error {
	var refs []discov1.ArtifactRef
	for i := range result.Artifacts {
		a := &result.Artifacts[i]
		id := ids.Derive(ids.Artifact, run.Name, "artifact", a.Name)
		key := artifactKey(run.Name, id, a.Name)
		if err := e.Blob.Put(ctx, key, a.Content); err != nil {
			return fmt.Errorf("store artifact %s: %w", a.Name, err)
		}
		a.File = key
		if len(refs) < 64 {
			refs = append(refs, discov1.ArtifactRef{ID: id, Name: a.Name, Kind: a.Kind, MediaType: a.MediaType,
				SizeBytes: a.Size, SHA256: a.SHA256, Key: key, CreatedAt: metav1.NewTime(e.now())})
		}
	}
	body, err := json.Marshal(result)
	if err != nil {
		return err
	}
	if err := e.Blob.Put(ctx, ResultsKey(run.Name), body); err != nil {
		return fmt.Errorf("store results: %w", err)
	}
	return e.patchStatus(ctx, run, func(r *discov1.Run) {
		one := 1.0
		r.Status.Progress = &one
		r.Status.ResultsKey = ResultsKey(run.Name)
		r.Status.Artifacts = refs
		r.Status.ArtifactsCount = int32(len(refs))
		if r.Status.StartedAt != nil {
			r.Status.ComputeUnitsUsed = computeUnits(e.now().Sub(r.Status.StartedAt.Time))
		}
		setCondition(&r.Status.Conditions, r, RunConditionResultsReady, metav1.ConditionTrue, "ResultsStored", fmt.Sprintf("%d claims in results.json", len(result.Claims)))
	})
}

// errRunDone stops an execution whose run already finished or has its results: another
// execution (started from a stale view after a restart or cache lag) got there first.
var errRunDone = errors.New("the run already has its results")

// patchStatus applies mutate to the latest Run and writes its status, retrying conflicts.
// The write is optimistic-locked, so mutate always decides on the latest version. A run
// that has finished or has its results is never written by an execution again.
func (e *Execution) patchStatus(ctx context.Context, run *discov1.Run, mutate func(*discov1.Run)) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		latest := &discov1.Run{}
		if err := e.Client.Get(ctx, client.ObjectKeyFromObject(run), latest); err != nil {
			return err
		}
		if latest.Status.Phase.Finished() || resultsReady(latest) {
			latest.DeepCopyInto(run)
			return errRunDone
		}
		before := latest.DeepCopy()
		mutate(latest)
		if err := e.Client.Status().Patch(ctx, latest, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{})); err != nil {
			return err
		}
		latest.DeepCopyInto(run)
		return nil
	})
}

// statusReporter writes the engine's stage progress into Run.status.pipeline: every stage
// transition at once, progress within a stage at most once a second.
type statusReporter struct {
	exec    *Execution
	run     *discov1.Run
	mu      sync.Mutex
	stages  []discov1.StageStatus
	current string
	started map[string]time.Time
	last    time.Time
	dirty   bool
}

func (r *statusReporter) Stage(name, status string, progress float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.exec.now()
	p := progress
	idx := -1
	for i := range r.stages {
		if r.stages[i].Name == name {
			idx = i
		}
	}
	if idx < 0 {
		r.stages = append(r.stages, discov1.StageStatus{Name: name})
		idx = len(r.stages) - 1
	}
	st := &r.stages[idx]
	transition := st.Status != status
	st.Status = status
	st.Progress = &p
	switch status {
	case "running":
		if _, ok := r.started[name]; !ok {
			r.started[name] = now
		}
		r.current = name
	case "completed", "skipped", "failed":
		if t0, ok := r.started[name]; ok {
			d := now.Sub(t0).Milliseconds()
			st.DurationMS = &d
		}
	}
	r.dirty = true
	if transition || now.Sub(r.last) >= time.Second {
		r.last = now
		r.writeLocked(context.Background())
	}
}

func (r *statusReporter) flush(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirty {
		r.writeLocked(ctx)
	}
}

func (r *statusReporter) writeLocked(ctx context.Context) {
	stages := make([]discov1.StageStatus, 0, len(discov1.PipelineStages))
	// Keep the contract's stage order; stages the engine did not report stay pending.
	for _, name := range discov1.PipelineStages {
		found := false
		for _, st := range r.stages {
			if st.Name == name {
				stages = append(stages, *st.DeepCopy())
				found = true
			}
		}
		if !found {
			stages = append(stages, discov1.StageStatus{Name: name, Status: "pending"})
		}
	}
	for _, st := range r.stages { // engine stages outside the contract's list (causal_discovery)
		if !slices.Contains(discov1.PipelineStages, st.Name) && len(stages) < 16 {
			stages = append(stages, *st.DeepCopy())
		}
	}
	done := 0.0
	for _, st := range stages {
		switch st.Status {
		case "completed", "skipped":
			done++
		case "running":
			if st.Progress != nil {
				done += *st.Progress
			}
		}
	}
	progress := done / float64(len(stages))
	current := r.current
	if err := r.exec.patchStatus(ctx, r.run, func(run *discov1.Run) {
		run.Status.Pipeline = discov1.Pipeline{CurrentStage: current, Stages: stages}
		run.Status.Progress = &progress
		if run.Status.StartedAt != nil && progress > 0.05 {
			elapsed := r.exec.now().Sub(run.Status.StartedAt.Time)
			eta := metav1.NewTime(run.Status.StartedAt.Add(time.Duration(float64(elapsed) / progress)))
			run.Status.EstimatedCompletion = &eta
		}
	}); err == nil {
		r.dirty = false
	}
}

// resultsReady reports whether the engine has stored results for the run.
func resultsReady(run *discov1.Run) bool {
	return meta.IsStatusConditionTrue(run.Status.Conditions, RunConditionResultsReady)
}

// readResults reads a run's results.json from the blob store.
func readResults(ctx context.Context, b *blob.Bucket, run *discov1.Run) (*engine.Result, error) {
	rc, err := b.Get(ctx, run.Status.ResultsKey)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(rc); err != nil {
		return nil, err
	}
	res := &engine.Result{}
	return res, json.Unmarshal(buf.Bytes(), res)
}
