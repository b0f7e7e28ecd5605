package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand"
	"time"

	"github.com/discolab/disco/engine/data"
)

// searchShare is the part of the time limit given to the search stages; the
// rest is kept for controls and claim generation so that a run that hits
// its limit still returns the best result found so far.
const searchShare = 0.7

// runner carries the state of one Discover call and the pipeline steps
// every mode shares; each mode's method (mode.go) embeds it.
type runner struct {
	plan    *plan
	data    *dataset
	track   *tracker
	result  *Result
	start   time.Time
	timeout time.Time // zero when the run has no time limit
}

// Discover runs the discovery pipeline on f as spec asks and reports stage
// progress to r (which may be nil). The spec is validated first; a spec or
// dataset problem returns a *SpecError or *data.ValidationError before any
// work is done. When spec.TimeLimit expires the best result found so far is
// returned and Summary.TimedOut is set. Results are deterministic for a
// given spec.Seed.
func Discover(ctx context.Context, f *data.Frame, spec Spec, r Reporter) (*Result, error) {
	run := &runner{track: newTracker(r), start: time.Now()}
	run.track.begin(StageDataValidation)
	p, err := spec.resolve(f)
	if err != nil {
		run.track.finish(StatusFailed)
		return nil, err
	}
	run.plan = p
	if spec.TimeLimit > 0 {
		run.timeout = run.start.Add(spec.TimeLimit)
	}
	run.track.begin(StageFeatureExtraction)
	if run.data, err = prepare(f, p); err != nil {
		run.track.finish(StatusFailed)
		return nil, err
	}
	run.result = &Result{Claims: []Claim{}, Artifacts: []Artifact{}, Summary: Summary{
		Mode: spec.Mode, Targets: p.targets, Rows: f.Rows, Features: p.features, Seed: spec.Seed,
		BestClaimIndex: -1, ComputeUnits: EstimateComputeUnits(f.Rows, len(p.features)+len(p.targets), spec),
	}}
	if len(p.targets) > 0 {
		run.result.Summary.Target = p.targets[0]
	}
	if err = methodOf(run).discover(ctx); err != nil {
		run.track.finish(StatusFailed)
		return nil, err
	}
	run.track.begin(StageClaimGeneration)
	run.summarise()
	run.track.finish(StatusCompleted)
	run.result.Summary.Stages = run.track.stages()
	run.result.Summary.DurationMS = time.Since(run.start).Milliseconds()
	return run.result, nil
}

// searchContext bounds a search stage by the run's time limit.
func (r *runner) searchContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.timeout.IsZero() {
		return context.WithCancel(ctx)
	}
	budget := time.Duration(float64(r.timeout.Sub(r.start)) * searchShare)
	return context.WithDeadline(ctx, r.start.Add(budget))
}

// remaining is the search time left, for algorithms that take a limit
// rather than a context; zero means no limit.
func (r *runner) remaining() time.Duration {
	if r.timeout.IsZero() {
		return 0
	}
	left := time.Until(r.start.Add(time.Duration(float64(r.timeout.Sub(r.start)) * searchShare)))
	if left < 10*time.Millisecond {
		left = 10 * time.Millisecond
	}
	return left
}

// searchFailed turns an algorithm error into the run's error, telling a
// time-limit expiry apart from cancellation by the caller.
func (r *runner) searchFailed(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s: the time limit expired before any result was found", what)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// expired records that the search hit the time limit.
func (r *runner) noteExpiry(searchCtx context.Context) {
	if errors.Is(searchCtx.Err(), context.DeadlineExceeded) {
		r.result.Summary.TimedOut = true
	}
}

// rng returns a generator seeded by the run seed and a purpose, so that
// each control draws the same numbers whatever else runs.
func (r *runner) rng(purpose string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return rand.New(rand.NewSource(r.plan.spec.Seed ^ int64(h.Sum64()>>1)))
}

// summarise picks the best claim and fills the summary.
func (r *runner) summarise() {
	s := &r.result.Summary
	for i, c := range r.result.Claims {
		if s.BestClaimIndex < 0 || c.Score > r.result.Claims[s.BestClaimIndex].Score {
			s.BestClaimIndex = i
		}
		if c.Score >= r.plan.spec.EvidenceThreshold {
			s.ClaimsAboveThreshold++
		}
	}
	if s.BestClaimIndex >= 0 {
		s.NegativeControlsPassed = r.result.Claims[s.BestClaimIndex].Evidence.NegativeControlsPassed
	}
}

// addClaim appends a claim and returns its index.
func (r *runner) addClaim(c Claim) int {
	r.result.Claims = append(r.result.Claims, c)
	return len(r.result.Claims) - 1
}
