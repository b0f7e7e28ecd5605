package engine

import (
	"context"
	"errors"
	"math/rand"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/discolab/disco/engine/data"
)

// expireAt is a Reporter and a clock: the clock reads the real time until
// the stage named at starts, and from then on a time past any run's limit,
// so that the limit expires exactly when that stage begins whatever the
// machine's speed.
type expireAt struct {
	at      Stage
	expired atomic.Bool
}

func (e *expireAt) Stage(name, status string, _ float64) {
	if name == string(e.at) && status == string(StatusRunning) {
		e.expired.Store(true)
	}
}

func (e *expireAt) now() time.Time {
	if e.expired.Load() {
		return time.Now().Add(24 * time.Hour)
	}
	return time.Now()
}

// discoverExpiring runs spec on f; with expire set, the time limit expires
// as the negative_controls stage starts, after the search.
func discoverExpiring(t *testing.T, f *data.Frame, spec Spec, expire bool) *Result {
	t.Helper()
	clock := &expireAt{at: StageNegativeControls}
	now := time.Now
	if expire {
		now = clock.now
	}
	res, err := discover(context.Background(), f, spec, clock, now)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// wideLaw is y = 2·x0 + x1 over cols columns of U(1, 5) inputs.
func wideLaw(rows, cols int) *data.Frame {
	rng := rand.New(rand.NewSource(11))
	f := &data.Frame{Rows: rows}
	X := make([][]float64, cols)
	for j := range X {
		X[j] = uniform(rng, rows, 1, 5)
		f.Columns = append(f.Columns, data.Column{Name: "x" + strconv.Itoa(j), DType: data.Float64, Values: X[j]})
	}
	y := make([]float64, rows)
	for i := range y {
		y[i] = 2*X[0][i] + X[1][i]
	}
	f.Columns = append(f.Columns, data.Column{Name: "y", DType: data.Float64, Values: y})
	return f
}

// checkUndecided asserts that no claim passes on evidence the time limit
// left out: each is reported not decided, its controls not run (failed, p
// = 1), its score capped, and the run timed out.
func checkUndecided(t *testing.T, res *Result, wantControls int) {
	t.Helper()
	if !res.Summary.TimedOut {
		t.Error("Summary.TimedOut is false after the limit expired")
	}
	if len(res.Claims) == 0 {
		t.Fatal("no claim: the search's result must still be reported")
	}
	if res.Summary.NegativeControlsPassed {
		t.Errorf("summary passes on missing evidence: %+v", res.Summary)
	}
	for _, c := range res.Claims {
		if c.Evidence.NegativeControlsPassed || c.Score > 0.5 {
			t.Errorf("%s: passed %v with score %v on missing evidence", c.Summary, c.Evidence.NegativeControlsPassed, c.Score)
		}
		if !strings.Contains(c.Summary, "not decided") {
			t.Errorf("summary %q does not say the controls were not decided", c.Summary)
		}
		if len(c.Evidence.NegativeControls) != wantControls {
			t.Errorf("%s: controls %v, want %d reported not run", c.Summary, c.Evidence.NegativeControls, wantControls)
		}
		for name, r := range c.Evidence.NegativeControls {
			if r.Passed || r.PValue != 1 {
				t.Errorf("%s: control %s = %+v, want not run (failed, p = 1)", c.Summary, name, r)
			}
		}
		if c.Evidence.BootstrapStability != 0 {
			t.Errorf("%s: bootstrap stability %v without any refit", c.Summary, c.Evidence.BootstrapStability)
		}
	}
}

// A symbolic run whose limit expires once the search is done skips its
// refits and its controls: no claim passes, each says why, and the run is
// marked timed out. With the limit unexpired the same run's law passes.
func TestSymbolicLimitExpiredAfterSearchDecidesNothing(t *testing.T) {
	f := wideLaw(400, 8)
	spec := Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: 1, TimeLimit: time.Hour,
		Parameters: Parameters{Epochs: 40, CrossValidate: true}}
	enough := spec
	enough.Parameters.CrossValidate = false
	if res := discoverExpiring(t, f, enough, false); !res.Summary.NegativeControlsPassed || res.Summary.TimedOut {
		t.Fatalf("with time enough the law must pass: %+v", res.Summary)
	}
	res := discoverExpiring(t, f, spec, true)
	checkUndecided(t, res, 2) // shuffled_target, noise_feature
	for i, c := range res.Claims {
		if c.Evidence.CrossValidationScore != nil {
			t.Errorf("%s: cross-validation score %v without its folds", c.Summary, *c.Evidence.CrossValidationScore)
		}
		if h := c.Evidence.HeldOutRSquared; h == nil || (i == 0 && *h < 0.99) {
			t.Errorf("%s: the held-out fit is still measured, got %v", c.Summary, h)
		}
	}
}

// A causal run whose limit expires after the search skips the noise rerun,
// the bootstrap and the edges' controls.
func TestCausalLimitExpiredAfterSearchDecidesNothing(t *testing.T) {
	a, b, c := collider(600)
	f := frameOf(t, []string{"a", "b", "c"}, a, b, c)
	spec := Spec{Mode: ModeCausal, Seed: 5, TimeLimit: time.Hour}
	if res := discoverExpiring(t, f, spec, false); !res.Summary.NegativeControlsPassed {
		t.Fatalf("with time enough an edge must pass: %+v", res.Summary)
	}
	checkUndecided(t, discoverExpiring(t, f, spec, true), 3) // shuffled_target, placebo_cause, noise_feature
}

// The refit schedule hands no refit out once its end has passed, and
// counts the ones it skips.
func TestRefitScheduleSkipsPastItsEnd(t *testing.T) {
	var late atomic.Bool
	r := &runner{start: time.Now(), result: &Result{}}
	r.timeout = r.start.Add(time.Hour)
	r.now = func() time.Time {
		if late.Load() {
			return r.start.Add(55 * time.Minute) // past refitEnd (54 minutes)
		}
		return r.start
	}
	s := r.refits(3)
	ran := 0
	if _, err := refit(context.Background(), s, func(ctx context.Context) (int, error) {
		ran++
		if d, has := ctx.Deadline(); !has || time.Until(d) > 54*time.Minute/3 {
			t.Errorf("first of 3 refits: deadline %v, want a third of the time before refitEnd", d)
		}
		return 0, nil
	}); err != nil || ran != 1 {
		t.Fatalf("the first refit got no time with the whole limit left: ran %d, %v", ran, err)
	}
	late.Store(true)
	for range 2 {
		if _, err := refit(context.Background(), s, func(context.Context) (int, error) {
			ran++
			return 0, nil
		}); !errors.Is(err, errRefitSkipped) || ran != 1 {
			t.Fatalf("a refit was handed out past the schedule's end: ran %d, %v", ran, err)
		}
	}
	if s.skipped != 2 || !r.result.Summary.TimedOut {
		t.Errorf("skipped %d, timed out %v; want 2, true", s.skipped, r.result.Summary.TimedOut)
	}
}
