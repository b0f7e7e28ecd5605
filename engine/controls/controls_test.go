package controls

import (
	"math"
	"math/rand"
	"testing"
)

func TestPValueFormula(t *testing.T) {
	if got := PValue(5, []float64{1, 2, 3}); got != 0.25 {
		t.Fatalf("all nulls below: got %v want 0.25", got)
	}
	if got := PValue(2, []float64{1, 2, 3}); got != 0.75 {
		t.Fatalf("ties count as extreme: got %v want 0.75", got)
	}
	if got := PValue(math.NaN(), []float64{1}); got != 1 {
		t.Fatalf("NaN observed must not pass: got %v", got)
	}
}

// linearData returns x and y = 2x + noise*e.
func linearData(seed int64, n int, noise float64, dependent bool) (x, y []float64) {
	rng := rand.New(rand.NewSource(seed))
	x = make([]float64, n)
	y = make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
		if dependent {
			y[i] = 2*x[i] + noise*rng.NormFloat64()
		} else {
			y[i] = rng.NormFloat64()
		}
	}
	return x, y
}

func TestShuffledTargetSeparatesSignalFromChance(t *testing.T) {
	x, y := linearData(1, 80, 0.5, true)
	stat := func(y []float64) float64 { return SquaredCorrelation(y, x) }
	if r := ShuffledTarget(y, stat, rand.New(rand.NewSource(2))); !r.Passed || r.PValue != 0.01 {
		t.Fatalf("dependent data must pass with p=0.01, got %+v", r)
	}
	// Calibration: with an independent target the pass rate must be close
	// to Alpha; over 60 seeds expect about 3 passes, allow up to 9.
	passes := 0
	for seed := int64(0); seed < 60; seed++ {
		x, y := linearData(seed, 60, 0, false)
		stat := func(y []float64) float64 { return SquaredCorrelation(y, x) }
		if ShuffledTarget(y, stat, rand.New(rand.NewSource(seed+100))).Passed {
			passes++
		}
	}
	if passes > 9 {
		t.Fatalf("independent target passed %d/60 times, want about 3", passes)
	}
}

func TestNoiseFeatureNeedsEveryColumn(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	n := 80
	a, b, useless := make([]float64, n), make([]float64, n), make([]float64, n)
	y := make([]float64, n)
	for i := range y {
		a[i], b[i], useless[i] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		y[i] = a[i] + b[i]
	}
	model := func(X [][]float64) float64 {
		pred := make([]float64, n)
		for i := range pred {
			for _, col := range X {
				pred[i] += col[i]
			}
		}
		return SquaredCorrelation(y, pred)
	}
	if r := NoiseFeature([][]float64{a, b}, model, rand.New(rand.NewSource(4))); !r.Passed {
		t.Fatalf("both columns carry signal, want pass, got %+v", r)
	}
	// A model that also leans on a useless column must fail: that column
	// does no better than noise.
	if r := NoiseFeature([][]float64{a, b, useless}, model, rand.New(rand.NewSource(4))); r.Passed {
		t.Fatalf("useless column must fail the control, got %+v", r)
	}
}

func TestTimeShiftDetectsAlignment(t *testing.T) {
	n := 200
	x, y := make([]float64, n), make([]float64, n)
	rng := rand.New(rand.NewSource(5))
	for i := range x {
		x[i] = math.Sin(float64(i)/7) + 0.3*rng.NormFloat64()
		y[i] = 3*x[i] + 0.1*rng.NormFloat64()
	}
	stat := func(y []float64) float64 { return SquaredCorrelation(y, x) }
	if r := TimeShift(y, stat); !r.Passed {
		t.Fatalf("aligned series must beat its shifts, got %+v", r)
	}
	if r := TimeShift(y[:10], stat); r.Passed {
		t.Fatal("too short a series must not pass")
	}
}

func TestPlaceboCause(t *testing.T) {
	x, y := linearData(6, 100, 1, true)
	stat := func(c []float64) float64 { return math.Abs(PartialCorrelation(c, y, nil)) }
	if r := PlaceboCause(stat(x), len(x), stat, rand.New(rand.NewSource(7))); !r.Passed {
		t.Fatalf("real cause must beat placebos, got %+v", r)
	}
	z, _ := linearData(8, 100, 0, false)
	if r := PlaceboCause(stat(z), len(z), stat, rand.New(rand.NewSource(7))); r.Passed && r.PValue < 0.02 {
		t.Fatalf("a random cause should not look like a strong one, got %+v", r)
	}
}

func TestPartialCorrelationRemovesConfounder(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	n := 500
	z, x, y := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range z {
		z[i] = rng.NormFloat64()
		x[i] = z[i] + 0.3*rng.NormFloat64()
		y[i] = z[i] + 0.3*rng.NormFloat64()
	}
	if r := PartialCorrelation(x, y, nil); r < 0.8 {
		t.Fatalf("marginal correlation should be strong, got %v", r)
	}
	if r := PartialCorrelation(x, y, [][]float64{z}); math.Abs(r) > 0.15 {
		t.Fatalf("conditioning on the confounder should remove it, got %v", r)
	}
}

func TestScore(t *testing.T) {
	pass := map[string]Result{"shuffled_target": {true, 0.01}, "noise_feature": {true, 0.01}}
	fail := map[string]Result{"shuffled_target": {false, 0.4}, "noise_feature": {true, 0.01}}
	good := Score(Components{Fit: 0.99, Controls: pass, Stability: 1, Complexity: 5, MaxComplexity: 20})
	if good < 0.9 || good > 1 {
		t.Fatalf("strong claim scored %v", good)
	}
	capped := Score(Components{Fit: 0.99, Controls: fail, Stability: 1, Complexity: 5, MaxComplexity: 20})
	if capped > FailedControlCap {
		t.Fatalf("failed control must cap the score, got %v", capped)
	}
	none := Score(Components{Fit: 1, Stability: 1, Complexity: 1})
	if none > FailedControlCap {
		t.Fatalf("no controls must cap the score, got %v", none)
	}
	undecided := Score(Components{Fit: 0.99, Controls: pass, Stability: 1, Complexity: 5, MaxComplexity: 20, Undecided: true})
	if undecided > FailedControlCap {
		t.Fatalf("undecided evidence must cap the score, got %v", undecided)
	}
	complexClaim := Score(Components{Fit: 0.99, Controls: pass, Stability: 1, Complexity: 20, MaxComplexity: 20})
	if complexClaim >= good {
		t.Fatalf("parsimony must prefer the simpler claim: %v >= %v", complexClaim, good)
	}
	if got := Parsimony(1, 20); got != 1 {
		t.Fatalf("Parsimony(1)=%v", got)
	}
}

// Bonferroni keeps a p-value at the floor (0.01) passing for up to five laws and fails
// one at 0.03 once three laws share the run; a failed control never passes.
func TestBonferroni(t *testing.T) {
	results := map[string]Result{"floor": {true, 0.01}, "mid": {true, 0.03}, "failed": {false, 0.01}}
	Bonferroni(results, 1)
	if !results["floor"].Passed || !results["mid"].Passed || results["failed"].Passed {
		t.Fatalf("one test: %+v", results)
	}
	Bonferroni(results, 3)
	if !results["floor"].Passed || results["mid"].Passed || results["failed"].Passed {
		t.Fatalf("three tests: %+v", results)
	}
	Bonferroni(results, 5)
	if !results["floor"].Passed {
		t.Fatalf("five tests: %+v", results)
	}
}
