package engine

import (
	"sync"
	"time"
)

// Stage names, in pipeline order.
const (
	StageDataValidation    = "data_validation"
	StageFeatureExtraction = "feature_extraction"
	StageNeuralPretraining = "neural_pretraining"
	StageSymbolic          = "symbolic_regression"
	StageCausal            = "causal_discovery"
	StageNegativeControls  = "negative_controls"
	StageClaimGeneration   = "claim_generation"
)

// Stage statuses.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusSkipped   = "skipped"
	StatusFailed    = "failed"
)

// Reporter receives stage progress. progress is in [0, 1] and never
// decreases within a stage. Calls come from the goroutine running Discover
// or from the goroutines of the algorithms; implementations must be safe for
// concurrent use.
type Reporter interface {
	Stage(name, status string, progress float64)
}

// StageNames returns the stages a run of the given mode goes through:
// causal runs have causal_discovery where the others have
// symbolic_regression.
func StageNames(mode string) []string {
	search := StageSymbolic
	if mode == ModeCausal {
		search = StageCausal
	}
	return []string{StageDataValidation, StageFeatureExtraction, StageNeuralPretraining,
		search, StageNegativeControls, StageClaimGeneration}
}

// tracker forwards stage events to a Reporter, keeps progress monotone and
// records timings for the summary.
type tracker struct {
	mu       sync.Mutex
	r        Reporter
	current  string
	started  time.Time
	progress float64
	timings  []StageTiming
}

func newTracker(r Reporter) *tracker { return &tracker{r: r} }

// begin closes the running stage and starts name.
func (t *tracker) begin(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeLocked(StatusCompleted)
	t.current, t.started, t.progress = name, time.Now(), 0
	t.emit(name, StatusRunning, 0)
}

// skip records a stage that does not apply to the run.
func (t *tracker) skip(name string) {
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
func (t *tracker) finish(status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closeLocked(status)
}

func (t *tracker) closeLocked(status string) {
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

func (t *tracker) emit(name, status string, p float64) {
	if t.r != nil {
		t.r.Stage(name, status, p)
	}
}

func (t *tracker) stages() []StageTiming {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]StageTiming(nil), t.timings...)
}
