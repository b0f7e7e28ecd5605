package runexec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/internal/blob"
	"github.com/discolab/disco/internal/conditions"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/patch"
	"github.com/discolab/disco/internal/runspec"
	"github.com/discolab/disco/internal/tenancy"
)

// maxResultsBytes bounds the results.json the controller reads into memory.
const maxResultsBytes = 64 << 20

// RunBlobs names the blob keys of a run of the given tenant (issue 14 item 3).
func RunBlobs(run *discov1.Run, tenantID string) blob.RunRef {
	return blob.RunRefOf(tenantID, run, run.Status.ResultsKey)
}

// Execution runs a Run's discovery: both executors (in-process pool and the `disco engine
// run` command of a Job) call it, so there is one code path from a Run to its results.
type Execution struct {
	Client     client.Client
	Blob       *blob.Bucket
	ScratchDir string
	TimeLimit  time.Duration
	// Clock stamps the run's times; nil means the real clock.
	Clock clock.PassiveClock
	// Isolated marks an execution running as the run's own engine identity (a Job's pod,
	// issue 17 item 2). It may write only its run's status, so it cannot read the
	// namespace (TenantID names the tenant), and it neither finishes the run nor charges
	// compute: on failure it sets the EngineFailed condition and the controller finishes
	// and charges the run. The in-process executor is the manager itself and does both.
	Isolated bool
	// TenantID is the tenant of the run's namespace; when empty it is read from the
	// namespace's tenant label.
	TenantID string
}

func (e *Execution) now() time.Time {
	if e.Clock == nil {
		return time.Now()
	}
	return e.Clock.Now()
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
		conditions.Set(&r.Status.Conditions, r, discov1.RunConditionAdmitted, metav1.ConditionTrue, discov1.ReasonStarted, "the engine is running the run")
	}); err != nil {
		if errors.Is(err, errRunDone) {
			return nil // nothing to do: the results exist
		}
		return err
	}

	var result *engine.Result
	tenantID, runErr := e.tenantID(ctx, run.Namespace)
	if runErr == nil {
		result, runErr = e.discover(ctx, run)
	}
	if runErr == nil {
		runErr = e.store(ctx, RunBlobs(run, tenantID), run, result)
	}
	if errors.Is(runErr, errRunDone) {
		return nil
	}
	if runErr != nil {
		if ctx.Err() != nil {
			return ctx.Err() // shutting down: leave the run running; it restarts with the manager
		}
		msg := truncate(runErr.Error(), 4096)
		return errors.Join(runErr, e.patchStatus(ctx, run, func(r *discov1.Run) {
			if e.Isolated {
				r.Status.Message = msg
				conditions.Set(&r.Status.Conditions, r, discov1.RunConditionEngineFailed, metav1.ConditionTrue, discov1.ReasonFailed, msg)
				return
			}
			now := metav1.NewTime(e.now())
			r.Status.Phase = discov1.RunFailed
			r.Status.Message = msg
			r.Status.CompletedAt = &now
			r.Status.DurationMS = now.Sub(started).Milliseconds()
			r.Status.ComputeUnitsUsed = computeUnits(now.Sub(started))
			conditions.SetRunFinished(r, discov1.RunFailed, discov1.ReasonFailed, msg)
		}))
	}
	return nil
}

// tenantID is the tenant of the run's namespace.
func (e *Execution) tenantID(ctx context.Context, namespace string) (string, error) {
	switch {
	case e.TenantID != "":
		return e.TenantID, nil
	case e.Isolated:
		return "", tenancy.ErrNoTenant(namespace)
	}
	return tenancy.OfNamespace(ctx, e.Client, namespace)
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
	if err := e.Client.Get(ctx, client.ObjectKey{Namespace: run.Namespace, Name: run.DatasetName()}, ds); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", run.DatasetID(), err)
	}
	dir, err := os.MkdirTemp(e.ScratchDir, "run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	local := filepath.Join(dir, "data."+ds.Spec.Format)
	key, _, _ := ds.File()
	if key == "" {
		return nil, fmt.Errorf("dataset %s has not fetched its source yet", run.DatasetID())
	}
	if err := e.Blob.Download(ctx, key, local); err != nil {
		return nil, fmt.Errorf("read dataset %s: %w", run.DatasetID(), err)
	}
	frame, err := data.Load(local, ds.Spec.Format)
	if err != nil {
		return nil, fmt.Errorf("load dataset %s: %w", run.DatasetID(), err)
	}
	spec := runspec.ForDataset(run.Spec, ds, e.timeLimit())
	if err := spec.Validate(frame); err != nil {
		return nil, err
	}
	reporter := &statusReporter{ctx: ctx, exec: e, run: run, started: map[string]time.Time{}}
	result, err := engine.Discover(ctx, frame, spec, reporter)
	reporter.flush(ctx)
	return result, err
}

// store writes results.json and the artifacts under the run's own prefix, then marks the
// results ready. Artifact ids derive from the tenant, namespace, name and uid of the run,
// so runs of two tenants never share one (issue 14 item 3).
func (e *Execution) store(ctx context.Context, keys blob.RunRef, run *discov1.Run, result *engine.Result) error {
	var refs []discov1.ArtifactRef
	for i := range result.Artifacts {
		a := &result.Artifacts[i]
		id := ids.Derive(ids.Artifact, keys.TenantID, keys.Namespace, keys.Name, keys.UID, "artifact", a.Name)
		key := keys.Artifact(id, a.Name)
		if err := e.Blob.Put(ctx, key, a.Content); err != nil {
			return fmt.Errorf("store artifact %s: %w", a.Name, err)
		}
		a.File = key
		if len(refs) < 64 {
			refs = append(refs, discov1.ArtifactRef{ID: id, Name: a.Name, Kind: string(a.Kind), MediaType: a.MediaType,
				SizeBytes: a.Size, SHA256: a.SHA256, Key: key, CreatedAt: metav1.NewTime(e.now())})
		}
	}
	body, err := json.Marshal(result)
	if err != nil {
		return err
	}
	if err := e.Blob.Put(ctx, keys.Results(), body); err != nil {
		return fmt.Errorf("store results: %w", err)
	}
	return e.patchStatus(ctx, run, func(r *discov1.Run) {
		one := 1.0
		r.Status.Progress = &one
		r.Status.ResultsKey = keys.Results()
		r.Status.Artifacts = refs
		r.Status.ArtifactsCount = int32(len(refs))
		if r.Status.StartedAt != nil && !e.Isolated {
			r.Status.ComputeUnitsUsed = computeUnits(e.now().Sub(r.Status.StartedAt.Time))
		}
		conditions.Set(&r.Status.Conditions, r, discov1.RunConditionResultsReady, metav1.ConditionTrue, discov1.ReasonResultsStored, fmt.Sprintf("%d claims in results.json", len(result.Claims)))
	})
}

// errRunDone stops an execution whose run already finished or has its results: another
// execution (started from a stale view after a restart or cache lag) got there first.
var errRunDone = errors.New("the run already has its results")

// patchStatus applies mutate to the latest Run and writes its status, retrying conflicts;
// a mutate that changes nothing sends no write (internal/patch). The write is
// optimistic-locked, so mutate always decides on the latest version. A run
// that has finished or has its results is never written by an execution again.
func (e *Execution) patchStatus(ctx context.Context, run *discov1.Run, mutate func(*discov1.Run)) error {
	return retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		latest := &discov1.Run{}
		if err := e.Client.Get(ctx, client.ObjectKeyFromObject(run), latest); err != nil {
			return err
		}
		if latest.Status.Phase.Finished() || ResultsReady(latest) || engineFailed(latest) {
			latest.DeepCopyInto(run)
			return errRunDone
		}
		before := latest.DeepCopy()
		mutate(latest)
		if err := patch.Status(ctx, e.Client, before, latest); err != nil {
			return err
		}
		latest.DeepCopyInto(run)
		return nil
	})
}

// statusReporter writes the engine's stage progress into Run.status.pipeline: every stage
// transition at once, progress within a stage at most once a second.
type statusReporter struct {
	// ctx is the execution's: the engine's Reporter interface carries none, and a write
	// must stop with the execution.
	ctx     context.Context
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
		r.writeLocked(r.ctx)
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

// ResultsReady reports whether the engine has stored results for the run.
func ResultsReady(run *discov1.Run) bool {
	return meta.IsStatusConditionTrue(run.Status.Conditions, discov1.RunConditionResultsReady)
}

// engineFailed reports whether an isolated engine has reported the run failed.
func engineFailed(run *discov1.Run) bool {
	return meta.IsStatusConditionTrue(run.Status.Conditions, discov1.RunConditionEngineFailed)
}

// ReadResults reads a run's results.json from the key its status names, which the engine
// wrote; only the run's own results key is read (issue 17 item 2), anything else is
// blob.ErrForeignKey. The key's tenant segment is not checked against the namespace here:
// the run's uid in the key already makes it this run's alone.
func ReadResults(ctx context.Context, b *blob.Bucket, run *discov1.Run) (*engine.Result, error) {
	key := run.Status.ResultsKey
	tenantID, _, _ := strings.Cut(strings.TrimPrefix(key, "runs/"), "/")
	keys := RunBlobs(run, tenantID)
	if !ids.Valid(ids.Tenant, tenantID) || key != keys.Results() {
		keys.TenantID = ""
		if key != blob.LegacyRunResultsKey(run.Name) {
			return nil, fmt.Errorf("%w: status.resultsKey %q is not the run's results key", blob.ErrForeignKey, key)
		}
	}
	rc, size, err := b.GetRun(ctx, keys, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if size > maxResultsBytes {
		return nil, fmt.Errorf("results.json of run %s is %d bytes, above the limit of %d", run.Name, size, maxResultsBytes)
	}
	res := &engine.Result{}
	if err := json.NewDecoder(io.LimitReader(rc, maxResultsBytes)).Decode(res); err != nil {
		return nil, fmt.Errorf("results.json of run %s: %w", run.Name, err)
	}
	return res, nil
}
