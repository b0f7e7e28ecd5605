package dynamics

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// pieceRows returns groups of the given lengths with consecutive row
// numbers, labelled by their index.
func pieceRows(lengths ...int) []group {
	var out []group
	next := 0
	for k, n := range lengths {
		g := group{label: fmt.Sprint(k)}
		for range n {
			g.rows = append(g.rows, next)
			next++
		}
		out = append(out, g)
	}
	return out
}

func TestSamplePiecesKeepsEverythingUpToMaxRows(t *testing.T) {
	groups := pieceRows(3000, 3000, 4000)
	kept, rest := samplePieces(groups, 10_000)
	if len(kept) != 3 || rest != nil {
		t.Fatalf("10,000 rows at most 10,000: kept %d pieces, left out %d; want all 3 kept whole", len(kept), len(rest))
	}
	for i := range kept {
		if !slices.Equal(kept[i].rows, groups[i].rows) {
			t.Errorf("piece %d was changed", i)
		}
	}
}

func TestSamplePiecesKeepsEvenlySpacedTrajectories(t *testing.T) {
	lengths := make([]int, 100)
	for i := range lengths {
		lengths[i] = 500
	}
	kept, rest := samplePieces(pieceRows(lengths...), 5_000)
	var labels []string
	for _, p := range kept {
		labels = append(labels, p.label)
	}
	// every tenth trajectory, centred: the 5th, 15th, ...
	want := []string{"4", "14", "24", "34", "44", "54", "64", "74", "84", "94"}
	if !slices.Equal(labels, want) {
		t.Errorf("kept trajectories %v, want %v", labels, want)
	}
	if len(rest) != 90 {
		t.Errorf("left out %d pieces, want 90", len(rest))
	}
}

func TestSamplePiecesCutsLongTrajectories(t *testing.T) {
	kept, rest := samplePieces(pieceRows(100_001), 10_000)
	rows := 0
	covered := map[int]bool{}
	for _, p := range slices.Concat(kept, rest) {
		if len(p.rows) > sampleWindow {
			t.Errorf("a piece of %d rows, more than %d", len(p.rows), sampleWindow)
		}
		for k, r := range p.rows {
			if k > 0 && r != p.rows[k-1]+1 {
				t.Fatalf("piece %v is not consecutive", p.rows[:k+1])
			}
			covered[r] = true
		}
	}
	for _, p := range kept {
		rows += len(p.rows)
	}
	if rows > 10_000 || rows < 10_000-sampleWindow {
		t.Errorf("kept %d rows, want at most 10,000 and within a window of it", rows)
	}
	if len(covered) != 100_001 {
		t.Errorf("kept and left out pieces cover %d rows, want all 100,001", len(covered))
	}
	// evenly spread: the kept pieces are the data's length over their
	// number apart, within a window and a half
	want := 100_001 / len(kept)
	for k := 1; k < len(kept); k++ {
		gap := kept[k].rows[0] - kept[k-1].rows[0]
		if gap < want-3*sampleWindow/2 || gap > want+3*sampleWindow/2 {
			t.Errorf("kept pieces %d rows apart, want about %d", gap, want)
		}
	}
}

// TestDiscoverFitsASampleAndMeasuresTheRest fits the linear system on
// the row rule's sample of 40 trajectories and measures it on every other
// row: clean left-out trajectories fit as well as the sample, and
// left-out trajectories that are random walks, not the system, do not.
func TestDiscoverFitsASampleAndMeasuresTheRest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	ics := make([][]float64, 40)
	for i := range ics {
		ics[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	d := sample(t, linear3, ics, grid(400, 0.025), 0.01, 5)
	settings := Settings{Seed: 1, MaxRows: minMaxRows}
	res, err := Discover(context.Background(), d, settings)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows != 16_000 || res.SampledRows > minMaxRows || res.SampledRows < minMaxRows-400 {
		t.Fatalf("%d rows, %d sampled; want 16,000 and at most %d", res.Rows, res.SampledRows, minMaxRows)
	}
	if ok, why := exact(res, linear3, 0.02); !ok {
		t.Errorf("on the sample: %s", why)
	}
	// the held-out fit measures the sample's held-out trajectories and
	// every trajectory the rule left out
	if want := res.Rows - 400*res.TrainingTrajectories; res.HeldOutRows != want {
		t.Errorf("held-out fit on %d rows, want the %d rows of the trajectories not trained on", res.HeldOutRows, want)
	}
	for _, eq := range res.Equations {
		if !(eq.HeldOutR2 > 0.99) {
			t.Errorf("%s: held-out R² %.4f on clean trajectories, want > 0.99", eq.Target, eq.HeldOutR2)
		}
	}

	// the trajectories left out of the sample become random walks
	kept, _ := samplePieces(mustGroups(t, d), settings.MaxRows)
	inSample := map[string]bool{}
	for _, p := range kept {
		inSample[p.label] = true
	}
	for i, label := range d.Trajectory {
		if !inSample[label] {
			for j := range d.States {
				prev := 0.0
				if i > 0 && d.Trajectory[i-1] == label {
					prev = d.States[j][i-1]
				}
				d.States[j][i] = prev + 0.1*rng.NormFloat64()
			}
		}
	}
	walks, err := Discover(context.Background(), d, settings)
	if err != nil {
		t.Fatal(err)
	}
	for s, eq := range walks.Equations {
		if eq.Expression != res.Equations[s].Expression {
			t.Errorf("%s: %s on the same sample, want %s", eq.Target, eq.Expression, res.Equations[s].Expression)
		}
		if !(eq.HeldOutR2 < 0.5) {
			t.Errorf("%s: held-out R² %.4f where the left-out rows are random walks, want < 0.5", eq.Target, eq.HeldOutR2)
		}
	}

	// NoHeldOutFit skips the pass
	settings.NoHeldOutFit = true
	skip, err := Discover(context.Background(), d, settings)
	if err != nil {
		t.Fatal(err)
	}
	if skip.HeldOutRows != 0 || !math.IsNaN(skip.Equations[0].HeldOutR2) {
		t.Errorf("NoHeldOutFit: %d rows measured, R² %g; want 0 and NaN", skip.HeldOutRows, skip.Equations[0].HeldOutR2)
	}
}

func mustGroups(t *testing.T, d Trajectories) []group {
	t.Helper()
	g, err := d.groups()
	if err != nil {
		t.Fatal(err)
	}
	return g
}
