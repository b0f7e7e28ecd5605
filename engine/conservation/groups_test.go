package conservation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// oscillators returns n independent harmonic oscillators, x_k = a cos(w t +
// φ), v_k = −a w sin(w t + φ) with w = 1 + k/2, as the columns x0, v0, x1,
// v1, ..., over trajs trajectories of samples rows at Δt = 0.05, each with
// its own amplitudes (0.5 to 2.5) and phases, plus noise of frac times each
// column's standard deviation (like test/bench/scale's oscillatorTable).
func oscillators(n, trajs, samples int, frac float64, rng *rand.Rand) (X [][]float64, names, labels []string) {
	X = make([][]float64, 2*n)
	for k := range n {
		names = append(names, fmt.Sprint("x", k), fmt.Sprint("v", k))
	}
	for tr := range trajs {
		for k := range n {
			w := 1 + float64(k)/2
			amp, phase := 0.5+2*rng.Float64(), 2*math.Pi*rng.Float64()
			for i := range samples {
				t := 0.05 * float64(i)
				X[2*k] = append(X[2*k], amp*math.Cos(w*t+phase))
				X[2*k+1] = append(X[2*k+1], -amp*w*math.Sin(w*t+phase))
			}
		}
		for range samples {
			labels = append(labels, fmt.Sprint("traj-", tr))
		}
	}
	addNoise(X, frac, rng)
	return X, names, labels
}

// The grouping puts each oscillator's x and v together and leaves an
// independent noise column alone, with rows in any order.
func TestGroupVariablesPairsOscillators(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	X, names, labels := oscillators(20, 6, 300, 0.01, rng)
	z := make([]float64, len(labels))
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	X, names = append(X, z), append(names, "z")
	// Shuffle the rows: the grouping must not need time order.
	perm := rng.Perm(len(labels))
	Y := make([][]float64, len(X))
	shuffled := make([]string, len(labels))
	for j := range X {
		Y[j] = make([]float64, len(labels))
		for to, from := range perm {
			Y[j][to] = X[j][from]
		}
	}
	for to, from := range perm {
		shuffled[to] = labels[from]
	}
	trajs, err := groupTrajectories(Y, names, shuffled)
	if err != nil {
		t.Fatal(err)
	}
	g := groupVariables(Y, trajs)
	var want [][]int
	for k := range 20 {
		want = append(want, []int{2 * k, 2*k + 1})
	}
	want = append(want, []int{40})
	if !slices.EqualFunc(g.groups, want, slices.Equal) || g.cut != 0 {
		t.Errorf("groups %v (cut %d), want %v", g.groups, g.cut, want)
	}
}

// 20 independent oscillators (40 variables) are too many for one library
// of degree 2; the grouped search finds every oscillator's energy, which no
// library of degree 1 holds.
func TestGroupedSearchFindsEveryEnergy(t *testing.T) {
	const n = 20
	X, names, labels := oscillators(n, 6, 300, 0.01, rand.New(rand.NewPCG(7, 8)))
	res, err := Search(context.Background(), X, names, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != n {
		t.Errorf("%d groups, want %d: %v", len(res.Groups), n, res.Groups)
	}
	if !strings.Contains(res.Note, "20 groups") || !strings.Contains(res.Note, "20 at degree 2") {
		t.Errorf("note %q", res.Note)
	}
	found := map[int]bool{}
	for _, q := range res.Quantities {
		var k int
		if len(q.Variables) != 2 || len(q.Coefficients) != 2 {
			t.Errorf("unexpected quantity %s", q.Expression)
			continue
		}
		if _, err := fmt.Sscanf(q.Variables[0], "x%d", &k); err != nil || q.Variables[1] != fmt.Sprint("v", k) {
			t.Errorf("unexpected quantity %s", q.Expression)
			continue
		}
		w := 1 + float64(k)/2
		x2, v2 := q.Coefficients[fmt.Sprintf("x%d^2", k)], q.Coefficients[fmt.Sprintf("v%d^2", k)]
		if r := x2 / v2; math.Abs(r-w*w) > 0.05*w*w {
			t.Errorf("%s: x^2 : v^2 = %g, want %g", q.Expression, r, w*w)
		}
		found[k] = true
	}
	if len(found) != n {
		t.Errorf("found the energies of %d oscillators, want %d", len(found), n)
	}
}

// shared returns n variables u_k = c_k + d_k s(t) + noise that all follow
// one signal s, an oscillation: a coupled system in which every pair of
// variables is strongly correlated. c_k differs between the trajs
// trajectories, so d_b u_a − d_a u_b is conserved and separates them.
func shared(n, trajs, samples int, rng *rand.Rand) (X [][]float64, names, labels []string) {
	X = make([][]float64, n)
	d := make([]float64, n)
	for k := range n {
		names = append(names, fmt.Sprint("u", k))
		d[k] = 1 + float64(k%5)
	}
	for tr := range trajs {
		phase := 2 * math.Pi * rng.Float64()
		for k := range n {
			c := 3 * rng.NormFloat64()
			for i := range samples {
				X[k] = append(X[k], c+d[k]*math.Sin(0.1*float64(i)+phase))
			}
		}
		for range samples {
			labels = append(labels, fmt.Sprint("traj-", tr))
		}
	}
	addNoise(X, 0.001, rng)
	return X, names, labels
}

// More than 16 variables of one coupled system form one group, searched at
// degree 1 as a whole search of them would be (its linear quantities are
// found, no quadratic one could be), and the note says so; an independent
// oscillator beside them is searched alone at degree 2.
func TestCoupledSystemIsOneGroupAtDegreeOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	X, names, labels := shared(18, 6, 200, rng)
	osc, oscNames, _ := oscillators(1, 6, 200, 0.01, rng)
	X, names = append(X, osc...), append(names, oscNames...)
	res, err := Search(context.Background(), X, names, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 2 || !slices.Equal(res.Groups[0], names[:18]) || !slices.Equal(res.Groups[1], []string{"x0", "v0"}) {
		t.Fatalf("groups %v, want u0..u17 and x0, v0", res.Groups)
	}
	for _, want := range []string{"2 groups", "the largest of 18 variables", "1 at degree 2, 1 at degree 1"} {
		if !strings.Contains(res.Note, want) {
			t.Errorf("note %q lacks %q", res.Note, want)
		}
	}
	linear, energy := 0, 0
	for _, q := range res.Quantities {
		switch {
		case slices.Equal(q.Variables, []string{"x0", "v0"}):
			energy++
		case !strings.Contains(q.Expression, "^") && !strings.Contains(q.Expression, "("):
			linear++
		default:
			t.Errorf("unexpected quantity %s", q.Expression)
		}
	}
	if linear != defaultMaxQuantities || energy != 1 {
		t.Errorf("%d linear quantities and %d energies, want %d and 1", linear, energy, defaultMaxQuantities)
	}
}

// A component of more than maxGroupVariables variables is cut at its
// weakest links, and the note counts the cuts.
func TestLargeComponentIsCut(t *testing.T) {
	X, names, labels := shared(maxGroupVariables+4, 4, 200, rand.New(rand.NewPCG(11, 12)))
	trajs, err := groupTrajectories(X, names, labels)
	if err != nil {
		t.Fatal(err)
	}
	g := groupVariables(X, trajs)
	var sizes []int
	for _, grp := range g.groups {
		sizes = append(sizes, len(grp))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{4, maxGroupVariables}) || g.cut == 0 {
		t.Errorf("groups of %v variables, %d links cut; want 4 and %d, and cuts", sizes, g.cut, maxGroupVariables)
	}
	if note := g.note(len(X), DefaultDegree, names); !strings.Contains(note, "links between variables cut") {
		t.Errorf("note %q", note)
	}
}

// A parameter (constant within every trajectory) joins the groups, so
// that k·p + q is found for p' = 1, q' = −k with a rate k that differs
// between trajectories (a product with a parameter is in the library of
// degree 2).
func TestParameterJoinsTheGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const trajs, samples = 6, 300
	X, names, labels := oscillators(9, trajs, samples, 0.001, rng)
	p, q, k := make([]float64, len(labels)), make([]float64, len(labels)), make([]float64, len(labels))
	for tr := range trajs {
		rate, p0, q0 := 0.5+0.4*float64(tr), rng.NormFloat64(), rng.NormFloat64()
		for i := range samples {
			r, time := tr*samples+i, 0.05*float64(i)
			p[r], q[r], k[r] = p0+time, q0-rate*time, rate
		}
	}
	X, names = append(X, p, q, k), append(names, "p", "q", "k")
	res, err := Search(context.Background(), X, names, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Groups) != 10 || !slices.Equal(res.Groups[0], []string{"x0", "v0", "k"}) ||
		!slices.Equal(res.Groups[9], []string{"p", "q", "k"}) {
		t.Fatalf("groups %v, want k in each", res.Groups)
	}
	if !slices.ContainsFunc(res.Quantities, func(q Quantity) bool { return q.Expression == "q + p*k" }) {
		var got []string
		for _, q := range res.Quantities {
			got = append(got, q.Expression)
		}
		t.Errorf("found %q, want q + p*k", got)
	}
}

// Bad input to a grouped search keeps its errors: the grouping runs only
// on valid data, and Options.Groups must name variables.
func TestGroupedSearchBadInput(t *testing.T) {
	X, names, labels := oscillators(10, 3, 100, 0.01, rand.New(rand.NewPCG(1, 1)))
	one := slices.Repeat([]string{"only"}, len(labels))
	if _, err := Find(context.Background(), X, names, one, Options{}); !errors.Is(err, ErrTooFewTrajectories) {
		t.Errorf("one trajectory: %v, want ErrTooFewTrajectories", err)
	}
	bad := slices.Clone(X)
	bad[5] = slices.Clone(X[5])
	bad[5][7] = math.Inf(1)
	if _, err := Find(context.Background(), bad, names, labels, Options{}); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("non-finite value: %v", err)
	}
	if _, err := Find(context.Background(), X, names[1:], labels, Options{}); err == nil || !strings.Contains(err.Error(), "19 names for 20 variables") {
		t.Errorf("names mismatch: %v", err)
	}
	if _, err := Find(context.Background(), X, names, labels, Options{Groups: [][]string{{"x0", "w"}}}); err == nil || !strings.Contains(err.Error(), `"w"`) {
		t.Errorf("unknown group variable: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Find(ctx, X, names, labels, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	big := make([][]float64, maxVariables+1)
	bigNames := make([]string, len(big))
	for j := range big {
		big[j], bigNames[j] = X[j%len(X)], fmt.Sprint("c", j)
	}
	if _, err := Find(context.Background(), big, bigNames, labels, Options{}); err == nil || !strings.Contains(err.Error(), "1001 variables") {
		t.Errorf("1001 variables: %v", err)
	}
}

// Options.Groups reruns a search on the groups of an earlier one, as the
// engine's bootstrap does, with the same quantities.
func TestGivenGroupsRepeatTheSearch(t *testing.T) {
	X, names, labels := oscillators(10, 6, 300, 0.01, rand.New(rand.NewPCG(5, 6)))
	first, err := Search(context.Background(), X, names, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	again, err := Search(context.Background(), X, names, labels, Options{Groups: first.Groups})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first.Quantities, again.Quantities) || len(first.Quantities) != 10 {
		t.Errorf("%d quantities, then %d", len(first.Quantities), len(again.Quantities))
	}
}
