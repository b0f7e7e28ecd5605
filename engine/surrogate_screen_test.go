package engine

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/discolab/disco/engine/neural"
)

// wideProduct is y = 2.5·x0·x1/x2 among p columns, every one U(1, 5): the
// scale benchmark's symbolic table (test/bench/scale).
func wideProduct(seed int64, n, p int) ([][]float64, []float64) {
	rng := rand.New(rand.NewSource(seed))
	X := make([][]float64, p)
	for j := range X {
		X[j] = uniform(rng, n, 1, 5)
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = 2.5 * X[0][i] * X[1][i] / X[2][i]
	}
	return X, y
}

// The surrogate of a law among 30 columns reads the law's 3 and claims the
// law's split: a network trained on all 30 uses every column a little, and
// its structure named them all.
func TestScreenSurrogateKeepsTheLawsColumns(t *testing.T) {
	X, y := wideProduct(11, 1000, 30)
	opts := neural.Options{Hidden: []int{32, 32}, Epochs: defaultEpochs, Seed: 1}
	s, err := trainSurrogate(context.Background(), X, y, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.cols, []int{0, 1, 2}) {
		t.Fatalf("surrogate reads columns %v, want [0 1 2]", s.cols)
	}
	want := [][]int{{0}, {1}, {2}}
	if s.structure.Form != neural.Multiplicative || !slices.EqualFunc(s.structure.Groups, want, slices.Equal) {
		t.Fatalf("structure %+v, want multiplicative %v", s.structure, want)
	}
	if !slices.Equal(s.used, []int{0, 1, 2}) || s.model.ValidationR2() < 0.99 {
		t.Fatalf("used %v, validation R² %.4f", s.used, s.model.ValidationR2())
	}
	// The surrogate predicts from the table's columns, whatever the rest hold.
	shuffled := slices.Clone(X)
	for j := 3; j < len(X); j++ {
		shuffled[j] = X[len(X)-1-j+3]
	}
	if !slices.Equal(s.predict(X), s.predict(shuffled)) {
		t.Fatal("the prediction depends on a column the surrogate does not read")
	}
}

// A column with a small but real effect is kept, since the network without
// it fits worse than fitsAsWell allows, and does not keep the idle column
// dropped beside it.
func TestScreenSurrogateKeepsAWeakColumn(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	n := 1000
	X := [][]float64{uniform(rng, n, 1, 5), uniform(rng, n, 1, 5), uniform(rng, n, 1, 5)}
	y := make([]float64, n)
	for i := range y {
		y[i] = X[0][i] + 0.06*X[1][i] // x2 is not used
	}
	opts := neural.Options{Hidden: []int{32, 32}, Epochs: defaultEpochs, Seed: 1}
	wide, err := neural.Train(context.Background(), X, y, opts)
	if err != nil {
		t.Fatal(err)
	}
	if used, _ := partitionColumns(wide, X); slices.Contains(used, 1) {
		t.Fatalf("x1 has importance above the share (used %v): the test needs a weak column", used)
	}
	_, cols, _, err := screenSurrogate(context.Background(), X, y, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cols, []int{0, 1}) {
		t.Fatalf("screened to columns %v, want [0 1]: dropping x1 loses its effect, x2 has none", cols)
	}
}

// A neural run on a wide table claims the law's structure over the law's
// variables, and its saved surrogate names the columns it reads.
func TestDiscoverNeuralOnAWideTable(t *testing.T) {
	X, y := wideProduct(13, 1500, 20)
	names := make([]string, 0, len(X)+1)
	for j := range X {
		names = append(names, fmt.Sprintf("x%d", j))
	}
	f := frameOf(t, append(names, "y"), append(X, y)...)
	res, err := Discover(context.Background(), f, Spec{Mode: ModeNeural, Targets: []string{"y"}, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	best := res.Claims[res.Summary.BestClaimIndex]
	if best.Expression != "y = f(x0) * g(x1) * h(x2)" || !best.Evidence.NegativeControlsPassed {
		t.Fatalf("claim %q, controls passed %v; want y = f(x0) * g(x1) * h(x2), passing", best.Expression, best.Evidence.NegativeControlsPassed)
	}
	var saved *neural.Model
	for _, a := range res.Artifacts {
		if a.Name == "surrogate-y.json" {
			if saved, err = neural.Load(bytes.NewReader(a.Content)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if saved == nil || !slices.Equal(saved.Inputs, []string{"x0", "x1", "x2"}) {
		t.Fatalf("saved surrogate %+v, want one reading x0, x1, x2", saved)
	}
}

// The progress of screening climbs once from 0 to 1 over every network it
// trains, never back.
func TestScreenSurrogateProgressClimbsOnce(t *testing.T) {
	X, y := wideProduct(14, 600, 12)
	var seen []float64
	opts := neural.Options{Hidden: []int{16, 16}, Epochs: 60, Seed: 1, Progress: func(p float64) { seen = append(seen, p) }}
	_, cols, _, err := screenSurrogate(context.Background(), X, y, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) == len(X) {
		t.Fatal("no column dropped: the test needs a retraining")
	}
	if !slices.IsSorted(seen) || seen[len(seen)-1] != 1 {
		t.Fatalf("progress %v: want non-decreasing, ending at 1", seen)
	}
	if !slices.ContainsFunc(seen, func(p float64) bool { return p > screenFirstShare && p < 1 }) {
		t.Fatalf("progress %v: the retraining reported nothing", seen)
	}
}
