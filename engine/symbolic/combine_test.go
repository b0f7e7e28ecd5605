package symbolic

import (
	"context"
	"math"
	"strings"
	"testing"
)

// Parts fitted on subsets of the inputs combine into one model over all of
// them, and a search started from that model keeps it.
func TestCombineSeedsTheSearch(t *testing.T) {
	rng := newTestRand(3)
	X := sample(rng, 3, 300, -2, 2)
	law := func(x []float64) float64 { return x[0]*x[1] + math.Sin(2*x[2]) }
	y := target(X, law)
	fitPart := func(cols []int, f func(x []float64) float64) *Model {
		sub := make([][]float64, len(cols))
		for k, j := range cols {
			sub[k] = X[j]
		}
		res, err := Fit(context.Background(), sub, target(sub, f), nil, Options{Generations: 40, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return res.Best
	}
	ab := fitPart([]int{0, 1}, func(x []float64) float64 { return x[0] * x[1] })
	c := fitPart([]int{2}, func(x []float64) float64 { return math.Sin(2 * x[0]) })
	names := []string{"a", "b", "c"}
	sum, err := Combine([]*Model{ab, c}, [][]int{{0, 1}, {2}}, false, names)
	if err != nil {
		t.Fatal(err)
	}
	if !exactlyRecovers(t, sum, 3, -2, 2, law) {
		t.Fatalf("combined parts %q do not reproduce the law", sum.Expression)
	}
	for _, v := range names {
		if !strings.Contains(sum.Expression, v) {
			t.Fatalf("combined expression %q lacks %s", sum.Expression, v)
		}
	}
	// Without its own seeding and with a single generation, the search can
	// only have the law from the seed.
	res, err := fit(context.Background(), X, y, names, Options{Generations: 1, Seed: 1, Seeds: []*Model{sum}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !exactlyRecovers(t, res.Best, 3, -2, 2, law) {
		t.Fatalf("seeded search chose %q", res.Best.Expression)
	}

	if _, err := Combine([]*Model{ab}, [][]int{{0}}, false, names); err == nil {
		t.Error("a part using more inputs than it maps was accepted")
	}
	if _, err := Combine([]*Model{ab, c}, [][]int{{0, 1}}, true, names); err == nil {
		t.Error("parts without a variable map each were accepted")
	}
}

// A seed outside the search's grammar is skipped, not smuggled in.
func TestSeedsOutsideTheGrammarAreSkipped(t *testing.T) {
	g := testGrammar(2)
	sinSeed := tree{varNode(0), opNode(opSin)}
	if !g.allows(sinSeed) {
		t.Fatal("an allowed seed was refused")
	}
	ops, _ := parseOperators([]string{"+", "-", "*", "^"})
	poly := newGrammar(ops, resolve(Options{}))
	poly.vars = []int{0}
	for name, seed := range map[string]tree{
		"operator":  sinSeed,
		"variable":  {varNode(1), varNode(0), opNode(opMul)},
		"exponent":  {varNode(0), powNode(-1)},
		"malformed": {varNode(0), opNode(opAdd)},
	} {
		if poly.allows(seed) {
			t.Errorf("%s: seed %v allowed", name, seed)
		}
	}
	poly.maxSize = 3
	if poly.allows(tree{varNode(0), varNode(0), opNode(opMul), varNode(0), opNode(opMul)}) {
		t.Error("a seed over the size limit allowed")
	}
}
