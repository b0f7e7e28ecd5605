package engine

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/discolab/disco/engine/controls"
)

// The law's held-out fit is measured on every row the search did not
// train on, not on the held-out subsample: here the rows the search and the
// controls sample follow y = 2·x0 + x1 exactly and every other row is off
// by 3, so the held-out R² must be that of all the untrained rows.
func TestHeldOutEvidenceOnAllUntrainedRows(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewSource(5))
	x0, x1, y := uniform(rng, n, 1, 5), uniform(rng, n, 1, 5), make([]float64, n)
	f := frameOf(t, []string{"x0", "x1", "y"}, x0, x1, y)
	spec := Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: 3, Parameters: Parameters{Epochs: 200}}
	p, err := spec.resolve(frameOf(t, []string{"x0", "x1", "y"}, x0, x1, uniform(rng, n, 0, 1)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := prepare(f, p) // the split depends on the rows and the seed only
	if err != nil {
		t.Fatal(err)
	}
	sampled, trained := map[int]bool{}, map[int]bool{}
	for _, i := range d.train {
		sampled[i], trained[i] = true, true
	}
	for _, i := range d.holdout {
		sampled[i] = true
	}
	var obs, pred []float64
	for i := range y {
		y[i] = 2*x0[i] + x1[i]
		if !sampled[i] {
			y[i] += 3
		}
		if !trained[i] {
			obs, pred = append(obs, y[i]), append(pred, 2*x0[i]+x1[i])
		}
	}
	want := controls.RSquared(obs, pred)
	if len(obs) != n-maxTrainRows || want > 0.5 {
		t.Fatalf("test setup: %d untrained rows, R² %v", len(obs), want)
	}
	res, err := Discover(context.Background(), f, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	best := res.Claims[res.Summary.BestClaimIndex]
	if best.Expression == "" || best.Evidence.HeldOutRSquared == nil {
		t.Fatalf("no law: %+v", best)
	}
	if got := *best.Evidence.HeldOutRSquared; math.Abs(got-want) > 1e-3 {
		t.Errorf("%s: held-out R² %v, want %.4f over the %d untrained rows (the sampled rows alone give 1)",
			best.Expression, got, want, len(obs))
	}
}

// When the split is small enough to be used whole, the streamed held-out
// fit is the held-out R² of controls.RSquared on the held-out rows.
func TestStreamedFitMatchesSliceFit(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	n := 7000 // more than evidenceChunk rows; its held-out quarter is not thinned
	x, y, tm := uniform(rng, n, -1, 1), make([]float64, n), uniform(rng, n, 0, 100)
	for i := range y {
		y[i] = math.Sin(3*x[i]) + 0.2*rng.NormFloat64()
	}
	f := frameOf(t, []string{"t", "x", "y"}, tm, x, y)
	p, err := Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: 2, Parameters: Parameters{Constraints: []string{"time:t"}}}.resolve(f)
	if err != nil {
		t.Fatal(err)
	}
	d, err := prepare(f, p)
	if err != nil {
		t.Fatal(err)
	}
	law := &lawModel{predict: func(X [][]float64) []float64 {
		out := make([]float64, len(X[0]))
		for i, v := range X[0] {
			out[i] = math.Sin(3 * v)
		}
		return out
	}}
	yd := d.column("y")
	all, held := d.lawFit(d.predictions(law), yd)
	wantAll := controls.RSquared(yd, law.predict(d.X))
	wantHeld := controls.RSquared(pickRows(yd, d.holdout), law.predict(rowsOf(d.X, d.holdout)))
	if math.Abs(all-wantAll) > 1e-12 || math.Abs(held-wantHeld) > 1e-12 {
		t.Errorf("streamed R² %v, %v; on slices %v, %v", all, held, wantAll, wantHeld)
	}
}
