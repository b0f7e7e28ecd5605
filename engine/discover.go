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

// refitEnd is the part of the time limit by which the refits after the
// search (cross-validation, bootstrap, the causal noise rerun, the
// conservation bootstrap) must be done; the rest is kept for the controls,
// the claims and the artifacts.
const refitEnd = 0.9

// runner carries the state of one Discover call and the pipeline steps
// every mode shares; each mode's method (mode.go) embeds it.
type runner struct {
	plan    *plan
	data    *dataset
	track   *tracker
	result  *Result
	start   time.Time
	timeout time.Time // zero when the run has no time limit
	// now is the clock the stages after the search read the deadline from
	// (time.Now; tests move it to expire the limit at a chosen stage).
	now func() time.Time
}

// Discover runs the discovery pipeline on f as spec asks and reports stage
// progress to r (which may be nil). The spec is validated first; a spec or
// dataset problem returns a *SpecError or *data.ValidationError before any
// work is done. When spec.TimeLimit expires the best result found so far is
// returned and Summary.TimedOut is set. Results are deterministic for a
// given spec.Seed.
func Discover(ctx context.Context, f *data.Frame, spec Spec, r Reporter) (*Result, error) {
	return discover(ctx, f, spec, r, time.Now)
}

// discover is Discover with the clock the stages after the search read the
// run's deadline from.
func discover(ctx context.Context, f *data.Frame, spec Spec, r Reporter, now func() time.Time) (*Result, error) {
	run := &runner{track: newTracker(r), start: now(), now: now}
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
	run.result.Summary.DurationMS = now().Sub(run.start).Milliseconds()
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

// limitOf is the time left before ctx's deadline, for algorithms that take
// a limit rather than a context: zero when ctx has no deadline (no limit),
// and at least minLimit otherwise, since a zero limit would mean none.
func limitOf(ctx context.Context) time.Duration {
	deadline, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	return max(time.Until(deadline), minLimit)
}

// minLimit is the smallest time limit limitOf hands an algorithm.
const minLimit = 10 * time.Millisecond

// expired reports whether the run's time limit has passed, and records it
// in Summary.TimedOut when it has. Stages after the search call it before
// work that decides a claim's evidence, and skip that work once it is true.
func (r *runner) expired() bool {
	if r.timeout.IsZero() || r.now().Before(r.timeout) {
		return false
	}
	r.result.Summary.TimedOut = true
	return true
}

// stageContext bounds a stage after the search by the run's deadline (the
// whole time limit, not the search's share of it).
func (r *runner) stageContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.timeout.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, r.timeout.Sub(r.now()))
}

// refitSchedule shares the time left after the search among a known number
// of refits, in the order they run: each refit, as it starts, gets an equal
// share of the time left before refitEnd of the limit among the refits
// still to run, so time one refit leaves unused goes to the next ones. A
// refit that would start after that point is not run (skipped). Without a time limit
// every refit runs unbounded, as before.
type refitSchedule struct {
	r       *runner
	end     time.Time
	pending int
	// skipped counts the refits not run, or ended by the deadline with no
	// result: a measure whose refits were skipped is not decided.
	skipped int
}

// refits starts a schedule for n refits.
func (r *runner) refits(n int) *refitSchedule {
	s := &refitSchedule{r: r, pending: n}
	if !r.timeout.IsZero() {
		s.end = r.start.Add(time.Duration(float64(r.timeout.Sub(r.start)) * refitEnd))
	}
	return s
}

// errRefitSkipped is the error of a refit the schedule left out: no time
// was left for it.
var errRefitSkipped = errors.New("the time limit left no time for this refit")

// refit runs f as the schedule's next refit, on a context whose deadline is
// its share of the time left. A refit with no time left is not run: it
// returns errRefitSkipped. Either that or an error because the share expired
// leaves the schedule incomplete (skipped) and sets Summary.TimedOut.
// Without a time limit f runs unbounded.
func refit[T any](ctx context.Context, s *refitSchedule, f func(context.Context) (T, error)) (T, error) {
	share := max(s.pending, 1)
	s.pending--
	var cancel context.CancelFunc
	if s.end.IsZero() {
		ctx, cancel = context.WithCancel(ctx)
	} else {
		left := s.end.Sub(s.r.now())
		if left <= 0 {
			s.skip()
			var none T
			return none, errRefitSkipped
		}
		ctx, cancel = context.WithTimeout(ctx, left/time.Duration(share))
	}
	defer cancel()
	v, err := f(ctx)
	if err != nil && ctx.Err() != nil {
		s.skip()
	}
	return v, err
}

// rest bounds work that precedes the refits and shares their time (the
// conservation search) by the schedule's end; without a limit it is
// unbounded.
func (s *refitSchedule) rest(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.end.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.end.Sub(s.r.now()))
}

func (s *refitSchedule) skip() {
	s.skipped++
	s.r.result.Summary.TimedOut = true
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
