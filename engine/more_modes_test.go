package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/engine/neural"
)

func TestDiscoverNeuroSymbolicCombinesParts(t *testing.T) {
	a, b, c, y := separableSample(rand.New(rand.NewSource(6)), 300, 0.01)
	f := frameOf(t, []string{"a", "b", "c", "y"}, a, b, c, y)
	rec := &recorder{}
	res, err := Discover(context.Background(), f, Spec{Mode: ModeNeuroSymbolic, Targets: []string{"y"}, Seed: 2,
		Parameters: Parameters{Epochs: 300, NeuralBackbone: "mlp-2x32"}}, rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ModeNeuroSymbolic)
	best := res.Claims[res.Summary.BestClaimIndex]
	t.Logf("%s held-out %.4f controls %+v score %.3f", best.Expression, *best.Evidence.HeldOutRSquared, best.Evidence.NegativeControls, best.Score)
	for _, v := range []string{"a", "b", "c"} {
		if !strings.Contains(best.Expression, v) {
			t.Fatalf("expression %q lacks %s", best.Expression, v)
		}
	}
	if *best.Evidence.HeldOutRSquared < 0.95 || !best.Evidence.NegativeControlsPassed {
		t.Fatalf("evidence %+v", best.Evidence)
	}
}

// The surrogate's separable parts reach the main search as one seed over all
// inputs: each part is fitted on the surrogate's partial function, and their
// sum reproduces the law before the search on the real target starts.
func TestSurrogateSeedsCombineTheParts(t *testing.T) {
	a, b, c, y := separableSample(rand.New(rand.NewSource(6)), 300, 0)
	X := [][]float64{a, b, c}
	spec := Spec{Mode: ModeNeuroSymbolic, Parameters: Parameters{Epochs: 1000}}
	r := &runner{plan: &plan{spec: spec, constraints: &Constraints{}, hidden: []int{32, 32}},
		data: &dataset{features: []string{"a", "b", "c"}}}
	m := newNeuroSymbolicMode(r)
	s, err := trainSurrogate(context.Background(), X, y, m.neural.options(effortFull, 2))
	if err != nil {
		t.Fatal(err)
	}
	if s.structure.Form != neural.Additive || len(s.structure.Groups) != 2 {
		t.Fatalf("surrogate structure %+v, want additive {a, b} + {c}", s.structure)
	}
	seeds, err := m.seeds(context.Background(), s, X, effortFull, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 1 {
		t.Fatalf("%d seeds, want the one combination", len(seeds))
	}
	for _, v := range []string{"a", "b", "c"} {
		if !strings.Contains(seeds[0].Expression, v) {
			t.Fatalf("seed %q lacks %s", seeds[0].Expression, v)
		}
	}
	pred := seeds[0].Predict(X)
	var sse, sst float64
	for i := range y {
		sse += (pred[i] - y[i]) * (pred[i] - y[i])
		sst += y[i] * y[i]
	}
	if sse > 0.01*sst {
		t.Fatalf("seed %q leaves %.3g of the sum of squares", seeds[0].Expression, sse/sst)
	}
}

func TestDiscoverConservationAlongTrajectories(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var traj, tm, x, v []float64
	for k := 0; k < 5; k++ {
		amp, phase := 0.5+rng.Float64(), rng.Float64()*math.Pi
		for i := 0; i < 40; i++ {
			s := float64(i) * 0.2
			traj = append(traj, float64(k))
			tm = append(tm, s)
			x = append(x, amp*math.Cos(s+phase))
			v = append(v, -amp*math.Sin(s+phase))
		}
	}
	f := frameOf(t, []string{"traj", "t", "x", "v"}, traj, tm, x, v)
	res, err := Discover(context.Background(), f, Spec{Mode: ModeSymbolic, Targets: []string{"v"}, Seed: 1,
		Parameters: Parameters{Constraints: []string{"trajectory:traj", "exclude:t"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := conservationClaim(t, res)
	t.Logf("%s rv %.2g controls %+v score %.3f", found.Expression, *found.Evidence.RelativeVariation, found.Evidence.NegativeControls, found.Score)
	if !strings.Contains(found.Expression, "x^2") || !strings.Contains(found.Expression, "v^2") {
		t.Fatalf("expression %q, want x^2 + v^2", found.Expression)
	}
	if *found.Evidence.RelativeVariation > 0.01 || found.Evidence.Trajectories != 5 || !found.Evidence.NegativeControlsPassed {
		t.Fatalf("evidence %+v", found.Evidence)
	}
}

func TestDiscoverLaggedCausal(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	n := 400
	tm, x, y := seqf(n), make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		if i > 0 {
			y[i] = 0.8*x[i-1] + 0.3*rng.NormFloat64()
		}
	}
	// Rows arrive shuffled; the time column restores the order.
	perm := rng.Perm(n)
	f := frameOf(t, []string{"t", "x", "y"}, tm, x, y).Slice(perm)
	res, err := Discover(context.Background(), f, Spec{Mode: ModeCausal, Seed: 1,
		Parameters: Parameters{Constraints: []string{"time:t", "max_lag:2"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	for _, c := range res.Claims {
		t.Logf("%s controls %+v", c.Summary, c.Evidence.NegativeControls)
		if c.Cause == "x" && c.Effect == "y" && c.TemporalScope == "lag:1" {
			ok = c.Evidence.GrangerScore != nil && *c.Evidence.GrangerScore > 10 &&
				c.Evidence.NegativeControls[ControlTimeShift].Passed && c.Evidence.NegativeControlsPassed
		}
	}
	if !ok {
		t.Fatal("x -> y at lag 1 with passing controls not found")
	}
}

// A variable's own past is a claim like any other: an AR(1) series'
// lag-1 self-edge passes its controls, and a second, independent white-noise
// series gets no self-edge.
func TestDiscoverLaggedSelfEdge(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	n := 600
	tm, a, w := seqf(n), make([]float64, n), make([]float64, n)
	for i := range a {
		w[i] = rng.NormFloat64()
		a[i] = rng.NormFloat64()
		if i > 0 {
			a[i] += 0.6 * a[i-1]
		}
	}
	f := frameOf(t, []string{"t", "a", "w"}, tm, a, w)
	res, err := Discover(context.Background(), f, Spec{Mode: ModeCausal, Seed: 1,
		Parameters: Parameters{Constraints: []string{"time:t"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var self bool
	for _, c := range res.Claims {
		t.Logf("%s controls %+v", c.Summary, c.Evidence.NegativeControls)
		if c.Cause == "a" && c.Effect == "a" && c.TemporalScope == "lag:1" {
			self = c.Evidence.NegativeControlsPassed
		}
		if c.Cause == "w" && c.Effect == "w" && c.Evidence.NegativeControlsPassed {
			t.Errorf("white noise w has a passing self-edge: %s", c.Summary)
		}
	}
	if !self {
		t.Fatal("a -> a at lag 1 with passing controls not found")
	}
}

func TestTimeLimitReturnsBestSoFar(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	n := 300
	a, b := uniform(rng, n, -2, 2), uniform(rng, n, -2, 2)
	y := make([]float64, n)
	for i := range y {
		y[i] = a[i]*a[i]*b[i] + math.Exp(b[i]/2)
	}
	f := frameOf(t, []string{"a", "b", "y"}, a, b, y)
	start := time.Now()
	res, err := Discover(context.Background(), f, Spec{Mode: ModeSymbolic, Seed: 1, TimeLimit: 2 * time.Second,
		Parameters: Parameters{MaxComplexity: 40}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 6*time.Second {
		t.Fatalf("time limit 2s, took %v", elapsed)
	}
	if len(res.Claims) == 0 {
		t.Fatal("no claim returned at the time limit")
	}
}

func TestDiscoverRefusesBadSpecBeforeRunning(t *testing.T) {
	rec := &recorder{}
	_, err := Discover(context.Background(), &data.Frame{}, Spec{Mode: "x"}, rec)
	if err == nil || len(rec.events) != 2 || rec.events[1].status != string(StatusFailed) {
		t.Fatalf("err %v events %+v", err, rec.events)
	}
}

// A conservation search that cannot run (more variables than its grouping
// takes: 1001 and more) refuses the run with the reason before anything
// runs (Validate), also under a time limit: it is not a time cut that keeps
// the laws and sets TimedOut.
func TestConservationRefusalIsNotATimeCut(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	names := []string{"traj"}
	cols := [][]float64{make([]float64, 200)}
	for i := range cols[0] {
		cols[0][i] = float64(i % 4)
	}
	for j := range 1001 {
		names = append(names, fmt.Sprintf("x%d", j))
		col := make([]float64, 200)
		for i := range col {
			col[i] = rng.NormFloat64()
		}
		cols = append(cols, col)
	}
	times := make([]float64, 200)
	for i := range times {
		times[i] = float64(i)
	}
	f := frameOf(t, append(names, "t"), append(cols, times)...)
	spec := Spec{Mode: ModeSymbolic, Targets: []string{"x0"}, Seed: 1, TimeLimit: 10 * time.Minute,
		Parameters: Parameters{Epochs: 5, Constraints: []string{"trajectory:traj", "time:t"}}}
	checkSpecError(t, spec.Validate(f), CodeConstraintInvalid, []string{"trajectory:traj", "1001 variables are more than the 1000", "include:"})
	res, err := Discover(context.Background(), f, spec, nil)
	if err == nil || !strings.Contains(err.Error(), "more than the 1000") {
		t.Fatalf("want the conservation search's refusal, got %v (timed out %v)", err, res != nil && res.Summary.TimedOut)
	}
}
