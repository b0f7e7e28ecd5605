package dynamics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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

// chain is the damped chain ẋ_i = −d_i·x_i + x_{i+1} − x_{i−1} on n states
// (d_i = 0.3 + 0.1·(i mod 3)), as test/bench/scale generates it.
func chain(n int) system {
	sys := system{truth: make([]map[string]float64, n)}
	for i := range n {
		sys.names = append(sys.names, fmt.Sprint("x", i))
	}
	for i := range n {
		sys.truth[i] = map[string]float64{sys.names[i]: -(0.3 + 0.1*float64(i%3))}
		if i+1 < n {
			sys.truth[i][sys.names[i+1]] = 1
		}
		if i > 0 {
			sys.truth[i][sys.names[i-1]] = -1
		}
	}
	sys.f = func(x, dx []float64) {
		for i := range n {
			dx[i] = -(0.3 + 0.1*float64(i%3)) * x[i]
			if i+1 < n {
				dx[i] += x[i+1]
			}
			if i > 0 {
				dx[i] -= x[i-1]
			}
		}
	}
	return sys
}

// TestDiscoverLowersTheDefaultDegree: 10 states at degree 3 make 306
// library terms, more than maxLibrary, so the default degree drops to 2
// (86 terms) and says so, and the chain is still found; a degree that is
// set is kept, and each state gets its own screened library instead.
func TestDiscoverLowersTheDefaultDegree(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	sys := chain(10)
	ics := make([][]float64, 8)
	for i := range ics {
		for range 10 {
			ics[i] = append(ics[i], rng.NormFloat64())
		}
	}
	d := sample(t, sys, ics, grid(500, 0.01), 0.01, 2)
	res, err := Discover(context.Background(), d, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Degree != 2 || len(res.Library) != 86 || !strings.Contains(res.LibraryNote, "306 terms") {
		t.Errorf("degree %d, %d terms, note %q; want degree 2, 86 terms and a note naming the 306 terms of degree 3", res.Degree, len(res.Library), res.LibraryNote)
	}
	if ok, why := exact(res, sys, 0.02); !ok {
		t.Errorf("at degree 2: %s", why)
	}
	set, err := Discover(context.Background(), d, Settings{Seed: 1, Degree: 3})
	if err != nil {
		t.Fatal(err)
	}
	if set.Degree != 3 || set.Candidates != defaultCandidates || set.Library != nil || !strings.Contains(set.LibraryNote, "306 terms at degree 3") {
		t.Errorf("degree 3 set: degree %d, %d candidates, %d shared terms, note %q; want degree 3 over %d screened variables per state, the note naming 306 terms",
			set.Degree, set.Candidates, len(set.Library), set.LibraryNote, defaultCandidates)
	}
	if ok, why := exact(set, sys, 0.02); !ok {
		t.Errorf("degree 3 set, screened: %s", why)
	}
	// within the bound the default stays 3, with no note
	small, err := Discover(context.Background(), sample(t, linear3, [][]float64{{1, 0, 0}, {0, 1, 1}, {-1, 0.5, 2}, {0.5, -1, -1}}, grid(400, 0.025), 0, 1), Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if small.Degree != 3 || small.LibraryNote != "" {
		t.Errorf("3 states: degree %d, note %q; want 3 and none", small.Degree, small.LibraryNote)
	}
}

// CheckVariables refuses exactly what Discover refuses with the default
// settings (more than maxVariables), librarySize counts what buildLibrary
// builds, and the library is shared up to 16 variables (degree 2) and
// screened beyond.
func TestCheckVariablesMatchesTheLibrary(t *testing.T) {
	defaults, err := Settings{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	for vars := 1; vars <= 70; vars++ {
		names := make([]string, vars)
		for j := range names {
			names[j] = fmt.Sprint("v", j)
		}
		for degree := 1; degree <= 3 && (degree < 3 || vars <= 20); degree++ {
			if got, want := librarySize(vars, degree, true), len(buildLibrary(names, degree, true, nil)); got != want {
				t.Fatalf("%d variables at degree %d: librarySize %d, buildLibrary %d terms", vars, degree, got, want)
			}
		}
		if err := CheckVariables(vars); err != nil {
			t.Errorf("%d variables: %v", vars, err)
		}
		p, err := planLibrary(vars, defaults, true)
		if err != nil {
			t.Fatal(err)
		}
		if screened := vars > 16; (p.candidates > 0) != screened || (!screened && p.degree < 2) || (screened && p.degree != 2) {
			t.Errorf("%d variables: degree %d, %d candidates; want a shared library of degree 2 or 3 up to 16 variables, then screened ones of degree 2", vars, p.degree, p.candidates)
		}
	}
	if err := CheckVariables(maxVariables); err != nil {
		t.Errorf("%d variables: %v", maxVariables, err)
	}
	if err := CheckVariables(maxVariables + 1); !errors.Is(err, ErrInvalidData) || !strings.Contains(err.Error(), "at most 1000") {
		t.Errorf("%d variables: err = %v, want ErrInvalidData naming the bound", maxVariables+1, err)
	}
}
