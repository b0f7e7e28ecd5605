package neural

import (
	"context"
	"math"
	"reflect"
	"testing"
)

func TestSeparability(t *testing.T) {
	cases := []struct {
		name   string
		ranges [][2]float64
		f      func(x []float64) float64
		want   Structure
		says   string
	}{
		{"additive", [][2]float64{{-2, 2}, {-3, 3}, {-2, 2}},
			func(x []float64) float64 { return x[0]*x[0] + math.Sin(x[1]) + x[2] },
			Structure{Form: Additive, Groups: [][]int{{0}, {1}, {2}}}, "y = f(a) + g(b) + h(c)"},
		{"multiplicative", [][2]float64{{1, 3}, {0, 1.5}},
			func(x []float64) float64 { return x[0] * math.Exp(x[1]) },
			Structure{Form: Multiplicative, Groups: [][]int{{0}, {1}}}, "y = f(a) * g(b)"},
		{"none", [][2]float64{{-2, 2}, {-2, 2}},
			func(x []float64) float64 { return math.Sin(x[0] * x[1]) },
			Structure{Form: NoStructure, Groups: [][]int{{0, 1}}}, "y = f(a, b)"},
		{"partly additive", [][2]float64{{-2, 2}, {-2, 2}, {1, 2}},
			func(x []float64) float64 { return x[0]*x[2] + math.Cos(x[1]) },
			Structure{Form: Additive, Groups: [][]int{{0, 2}, {1}}}, "y = f(a, c) + g(b)"},
	}
	for _, c := range cases {
		X := uniformColumns(21, 400, c.ranges...)
		m, err := Train(context.Background(), X, targetOf(X, c.f), smallOptions(1))
		if err != nil {
			t.Fatal(err)
		}
		got := m.Separability(X)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: Separability = %+v, want %+v (strengths %+v)", c.name, got, c.want, m.InteractionStrengths(X))
			continue
		}
		if s := got.Describe("", []string{"a", "b", "c"}); s != c.says {
			t.Errorf("%s: Describe = %q, want %q", c.name, s, c.says)
		}
	}
}

// x0*exp(x1) interacts additively, however weakly its mixed partial
// measures. The hierarchy proposes the additive split of x0 from x1; the
// split error refuses it, and the claim is the multiplicative split, which
// holds.
func TestSeparabilityRefusesTheAdditiveSplitOfAProduct(t *testing.T) {
	X := uniformColumns(22, 200, [2]float64{1, 3}, [2]float64{0, 1.5})
	m, err := Train(context.Background(), X, targetOf(X, func(x []float64) float64 { return x[0] * math.Exp(x[1]) }), smallOptions(2))
	if err != nil {
		t.Fatal(err)
	}
	candidates := m.SplitCandidates(X)
	want := Structure{Form: Additive, Groups: [][]int{{0}, {1}}}
	if len(candidates) == 0 || !reflect.DeepEqual(candidates[0], want) {
		t.Fatalf("candidates %+v, want %+v first", candidates, want)
	}
	if e := SplitError(m.Predict, X, candidates[0]); e <= m.SplitTolerance() {
		t.Fatalf("additive split of x0*exp(x1): split error %g within the tolerance %g", e, m.SplitTolerance())
	}
	if got := m.Separability(X); got.Form != Multiplicative {
		t.Fatalf("form %q, want multiplicative", got.Form)
	}
}

// The hierarchy of a graph with strengths 0.5 (0–2) and 0.2 (1–3): the
// singletons, then {0, 2} joined, then both pairs.
func TestSplitCandidatesFollowTheStrengths(t *testing.T) {
	strength := [][]float64{
		{0, 0, 0.5, 0},
		{0, 0, 0, 0.2},
		{0.5, 0, 0, 0},
		{0, 0.2, 0, 0},
	}
	got := hierarchy(Additive, strength)
	want := []Structure{
		{Additive, [][]int{{0}, {1}, {2}, {3}}},
		{Additive, [][]int{{0, 2}, {1}, {3}}},
		{Additive, [][]int{{0, 2}, {1, 3}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("hierarchy %+v, want %+v", got, want)
	}
}

// SplitError on exact functions: 0 for a structure that holds, the ignored
// interaction's share for one that does not.
func TestSplitError(t *testing.T) {
	X := uniformColumns(25, 300, [2]float64{1, 5}, [2]float64{1, 5}, [2]float64{1, 5})
	exact := func(f func(x []float64) float64) func([][]float64) []float64 {
		return func(X [][]float64) []float64 { return targetOf(X, f) }
	}
	split := func(form string, groups ...[]int) Structure { return Structure{Form: form, Groups: groups} }
	for _, c := range []struct {
		name     string
		f        func(x []float64) float64
		s        Structure
		min, max float64
	}{
		{"additive holds", func(x []float64) float64 { return x[0]*x[1] + math.Sin(x[2]) }, split(Additive, []int{0, 1}, []int{2}), 0, 1e-9},
		{"multiplicative holds", func(x []float64) float64 { return x[0] * x[1] / (x[2] * x[2]) }, split(Multiplicative, []int{0}, []int{1}, []int{2}), 0, 1e-9},
		{"one group", func(x []float64) float64 { return x[0] * x[1] * x[2] }, split(NoStructure, []int{0, 1, 2}), 0, 0},
		// q·(E + 3c·sin c): the ignored q·E term leaves about 6 % of the
		// variation, above the tolerance of a well-fitted surrogate.
		{"additive ignores q*E", func(x []float64) float64 { return x[0] * (x[1] + 3*x[2]*math.Sin(x[2])) }, split(Additive, []int{0, 2}, []int{1}), splitErrorFloor, 1},
		{"multiplicative ignores a sum", func(x []float64) float64 { return x[0] + x[1]*x[2] }, split(Multiplicative, []int{0}, []int{1, 2}), splitErrorFloor, 1},
	} {
		if e := SplitError(exact(c.f), X, c.s); e < c.min || e > c.max {
			t.Errorf("%s: split error %g, want in [%g, %g]", c.name, e, c.min, c.max)
		}
	}
	zeroAtMedian := func(X [][]float64) []float64 {
		out := make([]float64, len(X[0]))
		for i := range out {
			out[i] = X[0][i] - 3
		}
		return out
	}
	X[0] = []float64{1, 2, 3, 4, 5}
	X[1], X[2] = X[0], X[0]
	if e := SplitError(zeroAtMedian, X, split(Multiplicative, []int{0}, []int{1, 2})); !math.IsInf(e, 1) {
		t.Errorf("multiplicative split through zero at the medians: %g, want +Inf", e)
	}
}

func TestMultiplicativeNeedsOneSign(t *testing.T) {
	// x0*x1 crosses zero on this data, so log|f| is undefined and only
	// "none" is possible.
	X := uniformColumns(23, 200, [2]float64{-1, 1}, [2]float64{-1, 1})
	m, err := Train(context.Background(), X, targetOf(X, func(x []float64) float64 { return x[0] * x[1] }), smallOptions(3))
	if err != nil {
		t.Fatal(err)
	}
	if s := m.InteractionStrengths(X); s.Multiplicative != nil {
		t.Fatalf("multiplicative strengths %v for a sign-changing function", s.Multiplicative)
	}
	if got := m.Separability(X); got.Form != NoStructure {
		t.Fatalf("form %q, want none", got.Form)
	}
}

func TestComponentsAbove(t *testing.T) {
	strength := [][]float64{
		{0, 0, 0.5, 0},
		{0, 0, 0, 0.2},
		{0.5, 0, 0, 0},
		{0, 0.2, 0, 0},
	}
	if got, want := componentsAbove(strength, 0.1), [][]int{{0, 2}, {1, 3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tol 0.1: %v, want %v", got, want)
	}
	if got, want := componentsAbove(strength, 0.3), [][]int{{0, 2}, {1}, {3}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tol 0.3: %v, want %v", got, want)
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct {
		s      Structure
		target string
		names  []string
		want   string
	}{
		{Structure{Additive, [][]int{{0}, {1, 2}}}, "E", []string{"m", "v", "h"}, "E = f(m) + g(v, h)"},
		{Structure{Multiplicative, [][]int{{0, 1}, {2}}}, "", []string{"a", "b", "c"}, "y = f(a, b) * g(c)"},
		{Structure{NoStructure, [][]int{{0, 1, 2}}}, "y", nil, "y = f(x0, x1, x2)"},
	}
	for _, c := range cases {
		if got := c.s.Describe(c.target, c.names); got != c.want {
			t.Errorf("Describe(%q, %v) = %q, want %q", c.target, c.names, got, c.want)
		}
	}
}

func TestSeparabilityOfOneFeature(t *testing.T) {
	X := uniformColumns(24, 50, [2]float64{-1, 1})
	m, err := Train(context.Background(), X, targetOf(X, func(x []float64) float64 { return x[0] * x[0] }), Options{Hidden: []int{4}, Epochs: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Separability(X), (Structure{Form: NoStructure, Groups: [][]int{{0}}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("Separability = %+v, want %+v", got, want)
	}
}

// Past maxMergeFeatures only the hierarchy is proposed, at most one
// candidate per feature and form, so wide data stay cheap to check; narrower
// data also get the merge chains.
func TestWideDataGetOnlyTheHierarchy(t *testing.T) {
	for _, p := range []int{4, maxMergeFeatures + 8} {
		ranges := make([][2]float64, p)
		for j := range ranges {
			ranges[j] = [2]float64{1, 2}
		}
		X := uniformColumns(26, 200, ranges...)
		y := targetOf(X, func(x []float64) float64 {
			s := 0.0
			for _, v := range x {
				s += v * v
			}
			return s
		})
		m, err := Train(context.Background(), X, y, Options{Hidden: []int{8}, Epochs: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		strengths := m.InteractionStrengths(X)
		fromHierarchy := len(hierarchy(Additive, strengths.Additive)) + len(hierarchy(Multiplicative, strengths.Multiplicative))
		n := len(m.SplitCandidates(X))
		if p > maxMergeFeatures && n != fromHierarchy {
			t.Errorf("%d features: %d candidates, want the hierarchy's %d", p, n, fromHierarchy)
		}
		if p <= maxMergeFeatures && n <= fromHierarchy {
			t.Errorf("%d features: %d candidates, no more than the hierarchy's %d", p, n, fromHierarchy)
		}
		if fromHierarchy > 2*(p-1) {
			t.Errorf("%d features: the hierarchy has %d levels", p, fromHierarchy)
		}
	}
}

// Each part is f with its group varying and the other features at their
// medians: for x0 + x1², the parts are x0 + m1² and m0 + x1².
func TestPartials(t *testing.T) {
	X := [][]float64{{1, 2, 3, 4, 5}, {2, 4, 6, 8, 10}} // medians 3 and 6
	f := func(X [][]float64) []float64 {
		return targetOf(X, func(x []float64) float64 { return x[0] + x[1]*x[1] })
	}
	got := Partials(f, X, [][]int{{0}, {1}})
	want := [][]float64{{37, 38, 39, 40, 41}, {7, 19, 39, 67, 103}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Partials = %v, want %v", got, want)
	}
}

// Past maxPairFeatures features only the pairs of the steepest ones are
// estimated: with y = 3·x0·x1 + x2 among 40 features, the strengths of the
// pairs among the 20 steepest (x0, x1 and x2 among them) are those of
// estimating every pair, x0 and x1 interact most, and every other pair
// is 0.
func TestInteractionStrengthsOfWideDataKeepTheSteepest(t *testing.T) {
	const p = 2 * maxPairFeatures
	ranges := make([][2]float64, p)
	for j := range ranges {
		ranges[j] = [2]float64{1, 2}
	}
	X := uniformColumns(7, 400, ranges...)
	y := targetOf(X, func(x []float64) float64 { return 3*x[0]*x[1] + x[2] })
	m, err := Train(context.Background(), X, y, Options{Hidden: []int{16}, Epochs: 200, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got, all := m.InteractionStrengths(X), m.interactionStrengths(X, p)
	estimated := map[int]bool{}
	for i := range p {
		for j := range p {
			if i == j || got.Additive[i][j] == 0 {
				continue
			}
			if got.Additive[i][j] > got.Additive[0][1] {
				t.Errorf("pair %d, %d interacts more (%.3g) than x0, x1 (%.3g)", i, j, got.Additive[i][j], got.Additive[0][1])
			}
			estimated[i] = true
			if got.Additive[i][j] != all.Additive[i][j] {
				t.Fatalf("pair %d, %d: %v, every pair estimated gives %v", i, j, got.Additive[i][j], all.Additive[i][j])
			}
		}
	}
	if len(estimated) != maxPairFeatures || !estimated[0] || !estimated[1] || !estimated[2] {
		t.Errorf("pairs estimated for %d features (%v): want %d, x0, x1 and x2 among them", len(estimated), estimated, maxPairFeatures)
	}
}
