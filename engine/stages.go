package engine

import (
	"sync"
	"time"
)

// Stage is a step of the pipeline, as it appears on the wire (a Run's
// status.pipeline).
type Stage string

// Stages, in pipeline order.
const (
	StageDataValidation    Stage = "data_validation"
	StageFeatureExtraction Stage = "feature_extraction"
	StageNeuralPretraining Stage = "neural_pretraining"
	StageSymbolic          Stage = "symbolic_regression"
	StageCausal            Stage = "causal_discovery"
	StageNegativeControls  Stage = "negative_controls"
	StageClaimGeneration   Stage = "claim_generation"
)

// StageStatus is how a stage stands, as it appears on the wire.
type StageStatus string

// Stage statuses.
const (
	StatusPending   StageStatus = "pending"
	StatusRunning   StageStatus = "running"
	StatusCompleted StageStatus = "completed"
	StatusSkipped   StageStatus = "skipped"
	StatusFailed    StageStatus = "failed"
)

// Reporter receives stage progress: name is a Stage and status a
// StageStatus, passed as their wire strings. progress is in [0, 1] and never
// decreases within a stage. Calls come from the goroutine running Discover
// or from the goroutines of the algorithms; implementations must be safe for
// concurrent use.
type Reporter interface {
	Stage(name, status string, progress float64)
}

// Stages returns the stages a run of mode goes through: causal runs have
// causal_discovery where the others have symbolic_regression.
func (m Mode) Stages() []Stage {
	search := StageSymbolic
	if m == ModeCausal {
		search = StageCausal
	}
	return []Stage{StageDataValidation, StageFeatureExtraction, StageNeuralPretraining,
		search, StageNegativeControls, StageClaimGeneration}
}

// StageNames is Mode.Stages with the mode and the stages as wire strings.
func StageNames(mode string) []string {
	stages := Mode(mode).Stages()
	out := make([]string, len(stages))
	for i, s := range stages {
		out[i] = string(s)
	}
	return out
}

// tracker forwards stage events to a Reporter, keeps progress monotone and
// records timings for the summary.
type tracker struct {
	mu       sync.Mutex
	r        Reporter
	current  Stage
	started  time.Time
	progress float64
	timings  []StageTiming
}

func newTracker(r Reporter) *tracker { return &tracker{r: r} }

// begin closes the running stage and starts name.
func (t *tracker) begin(name Stage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeLocked(StatusCompleted)
	t.current, t.started, t.progress = name, time.Now(), 0
	t.emit(name, StatusRunning, 0)
}

// skip records a stage that does not apply to the run.
func (t *tracker) skip(name Stage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeLocked(StatusCompleted)
	t.timings = append(t.timings, StageTiming{Name: name, Status: StatusSkipped})
	t.emit(name, StatusSkipped, 1)
}

// advance reports progress in the running stage; regressions are ignored.
func (t *tracker) advance(p float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.current == "" || p <= t.progress {
		return
	}
	if p > 1 {
		p = 1
	}
	t.progress = p
	t.emit(t.current, StatusRunning, p)
}

// progressFunc scales algorithm progress into [lo, hi] of the stage.
func (t *tracker) progressFunc(lo, hi float64) func(float64) {
	return func(p float64) { t.advance(lo + (hi-lo)*p) }
}

// finish closes the running stage with status.
func (t *tracker) finish(status StageStatus) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeLocked(status)
}

func (t *tracker) closeLocked(status StageStatus) {
	if t.current == "" {
		return
	}
	t.timings = append(t.timings, StageTiming{Name: t.current, Status: status,
		DurationMS: time.Since(t.started).Milliseconds()})
	p := t.progress
	if status == StatusCompleted {
		p = 1
	}
	t.emit(t.current, status, p)
	t.current = ""
}

func (t *tracker) emit(name Stage, status StageStatus, p float64) {
	if t.r != nil {
		t.r.Stage(string(name), string(status), p)
	}
}

func (t *tracker) stages() []StageTiming {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]StageTiming(nil), t.timings...)
}
