package symbolic

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lorentzData draws (x, u, c, t) on AI Feynman's ranges for I.15.3x and
// I.15.3t (x in [5, 10], u and t in [1, 2], c in [3, 20]) and y = law.
func lorentzData(seed uint64, law func(x, u, c, t float64) float64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 15))
	X := sampleRanges(rng, 500, [2]float64{5, 10}, [2]float64{1, 2}, [2]float64{3, 20}, [2]float64{1, 2})
	return X, target(X, func(v []float64) float64 { return law(v[0], v[1], v[2], v[3]) })
}

// A Lorentz transformation's numerator is a sum, so no monomial factor
// and no target transform makes it short; dividing out sqrt(1 − (u/c)²)
// does, and the pass must reproduce both laws exactly.
func TestLorentzSeedsNumeratorIsASum(t *testing.T) {
	laws := map[string]func(x, u, c, t float64) float64{
		"I.15.3x: (x - u*t)/sqrt(1 - u^2/c^2)":     func(x, u, c, t float64) float64 { return (x - u*t) / math.Sqrt(1-u*u/(c*c)) },
		"I.15.3t: (t - u*x/c^2)/sqrt(1 - u^2/c^2)": func(x, u, c, t float64) float64 { return (t - u*x/(c*c)) / math.Sqrt(1-u*u/(c*c)) },
	}
	for name, law := range laws {
		X, y := lorentzData(1, law)
		p := transformProblem(X, y)
		lib := buildLibrary(p)
		_, floor := sparseSeeds(p, lib)
		if reproducedBy(transformSeeds(p, lib, powerLawSeeds(p), floor), X, y) {
			t.Errorf("%s: the transforms already reproduce it; the test no longer tests the pass", name)
		}
		seeds := lorentzSeeds(p, lib, floor)
		if !reproducedBy(seeds, X, y) {
			var got []string
			for _, s := range seeds {
				got = append(got, format(toExpr(s), p.names))
			}
			t.Errorf("%s: no exact seed among %q", name, got)
		}
		for _, s := range seeds {
			if !p.g.fits(s) {
				t.Errorf("%s: seed %s is outside the grammar's limits", name, format(toExpr(s), p.names))
			}
		}
	}
}

// With noise the seed of the law itself must rank first: a term fitted to
// noise lowers the loss a little but costs more than it buys.
func TestLorentzSeedsRankTheLawFirstWithNoise(t *testing.T) {
	X, y := relativistic(3, 0.01)
	p := transformProblem(X, y)
	lib := buildLibrary(p)
	_, floor := sparseSeeds(p, lib)
	seeds := lorentzSeeds(p, lib, floor)
	if len(seeds) == 0 {
		t.Fatal("no seeds")
	}
	if got, want := format(toExpr(seeds[0]), p.names), "a*c^2/sqrt(1 - (b/c)^2)"; got != want {
		t.Errorf("first seed %s, want %s", got, want)
	}
}

// A factor 1/sqrt(1 − (a/b)²) is tried only for pairs with |a| < |b| on
// every row: where it is undefined on some row, or within 0.5 % of 1
// everywhere, there are no pairs and no seeds.
func TestLorentzPairsOnlyWhereTheFactorIsDefined(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	X := sample(rng, 2, 200, 1, 3) // overlapping ranges: a > b on some rows
	y := target(X, func(v []float64) float64 { return v[0] + v[1] })
	p := transformProblem(X, y)
	if got := lorentzPairs(p); len(got) != 0 {
		t.Errorf("pairs %v on overlapping ranges, want none", got)
	}
	lib := buildLibrary(p)
	if got := lorentzSeeds(p, lib, 1); got != nil {
		t.Errorf("%d seeds without a pair, want none", len(got))
	}
	for i := range X[1] {
		X[1][i] *= 100 // b ≥ 100 > 3 ≥ a: |a/b| ≤ 0.03
	}
	p = transformProblem(X, y)
	if got := lorentzPairs(p); len(got) != 0 {
		t.Errorf("pairs %v with |a/b| ≤ 0.03, want none", got)
	}
	for i := range X[1] {
		X[1][i] /= 25 // b in [4, 12]: |a/b| up to 0.75
	}
	p = transformProblem(X, y)
	if got := lorentzPairs(p); len(got) != 1 || got[0].a != 0 || got[0].b != 1 {
		t.Errorf("pairs %v, want the one pair (a, b)", got)
	}
}
