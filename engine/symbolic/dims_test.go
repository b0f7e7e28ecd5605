package symbolic

import (
	"context"
	"math"
	"testing"

	"github.com/discolab/disco/engine/units"
)

func dimsOf(t *testing.T, us ...string) []*units.Dim {
	t.Helper()
	out := make([]*units.Dim, len(us))
	for i, u := range us {
		d, err := units.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = &d
	}
	return out
}

// Trees in postfix over x0 (m), x1 (s), x2 (m/s).
func TestDimensionallyConsistent(t *testing.T) {
	vars := dimsOf(t, "m", "s", "m/s")
	x, tm, v := varNode(0), varNode(1), varNode(2)
	c := constNode(0.7)
	add, mul, div := opNode(opAdd), opNode(opMul), opNode(opDiv)
	for _, tc := range []struct {
		name   string
		t      tree
		target string // "" checks the tree alone
		want   bool
	}{
		{"m + s is refused", tree{x, tm, add}, "", false},
		{"m + (m/s)·s", tree{x, v, tm, mul, add}, "m", true},
		{"m + c·s: c carries m/s", tree{x, c, tm, mul, add}, "", true},
		{"sin of metres is refused", tree{x, opNode(opSin)}, "", false},
		{"sin(c·x): c carries 1/m", tree{c, x, mul, opNode(opSin)}, "", true},
		{"exp(-t/τ) with one constant", tree{tm, c, div, opNode(opExp)}, "1", true},
		{"x/t has the target's dimension", tree{x, tm, div}, "m/s", true},
		{"x/t is not an acceleration", tree{x, tm, div}, "m/s^2", false},
		{"c·x/t² is an acceleration", tree{c, x, mul, tm, powNode(2), div}, "m/s^2", true},
		{"sqrt(x·v·t) is a length", tree{x, v, mul, tm, mul, opNode(opSqrt)}, "m", true},
		// One constant cannot serve two dimensions: c·t + c... each
		// constant is its own unknown, but x + c and t + c share none.
		{"(x + c)·(t + c) is fine", tree{x, c, add, tm, c, add, mul}, "", true},
		{"(x + c) + (t + c) is refused", tree{x, c, add, tm, c, add, add}, "", false},
	} {
		var target *units.Dim
		if tc.target != "" {
			target = dimsOf(t, tc.target)[0]
		}
		got, ok := dimensionallyConsistent(tc.t, vars, target)
		if !ok || got != tc.want {
			t.Errorf("%s: consistent = %v (ok %v), want %v", tc.name, got, ok, tc.want)
		}
	}
	if _, ok := dimensionallyConsistent(tree{x, varNode(3), add}, vars, nil); ok {
		t.Error("a variable of unknown dimension gave a verdict")
	}
}

// Units exclude a simpler law that only fits by adding seconds to metres.
// y = a + b·v with v ≈ 1 m/s: without units the search may drop v and
// claim y = a + b (m + s), which fits as well within the noise; with
// units every model on the front is consistent and the chosen one uses v
// or a constant in its place.
func TestUnitsRefuseAnInconsistentRival(t *testing.T) {
	rng := newTestRand(3)
	n := 300
	a, b, v, y := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range y {
		a[i], b[i] = 1+4*rng.Float64(), 1+4*rng.Float64()
		v[i] = 1 + 1e-3*(rng.Float64()-0.5)
		y[i] = a[i] + b[i]*v[i] + 0.01*rng.NormFloat64()
	}
	X := [][]float64{a, b, v}
	names := []string{"a", "b", "v"}
	opts := Options{Generations: 40, Seed: 1, Operators: []string{"+", "-", "*", "/"}}
	without, err := Fit(context.Background(), X, y, names, opts)
	if err != nil {
		t.Fatal(err)
	}
	inputs, target := dimsOf(t, "m", "s", "m/s"), dimsOf(t, "m")[0]
	if c, _ := without.Best.DimensionallyConsistent(inputs, *target); c {
		t.Fatalf("without units the search chose %s, which is consistent: the test no longer shows a rival", without.Best.Expression)
	}
	opts.InputUnits, opts.TargetUnit = inputs, target
	with, err := Fit(context.Background(), X, y, names, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range with.Front {
		if c, ok := m.DimensionallyConsistent(inputs, *target); !ok || !c {
			t.Errorf("front model %s is not dimensionally consistent", m.Expression)
		}
	}
	if with.Best.R2 < 0.999 || math.IsNaN(with.Best.R2) {
		t.Errorf("with units the search chose %s (R² %v)", with.Best.Expression, with.Best.R2)
	}
	t.Logf("without units: %s; with units: %s", without.Best.Expression, with.Best.Expression)
}

// Units that do not cover every usable input switch the check off.
func TestSearchDimsNeedEveryInput(t *testing.T) {
	d := dimsOf(t, "m", "s")
	if in, _ := searchDims(Options{InputUnits: []*units.Dim{d[0], nil}, TargetUnit: d[1]}, []int{0, 1}); in != nil {
		t.Error("checked with an input of unknown dimension")
	}
	if in, _ := searchDims(Options{InputUnits: []*units.Dim{d[0], nil}, TargetUnit: d[1]}, []int{0}); in == nil {
		t.Error("not checked although every usable input has a dimension")
	}
	if in, _ := searchDims(Options{InputUnits: d}, []int{0, 1}); in != nil {
		t.Error("checked without a target dimension")
	}
}

// The pendulum's period T = 2π·sqrt(L/g) has one π-group, T²·g/L, and it
// holds the target: the dimensionless search needs no search at all and
// seeds sqrt(L/g), which the scaling turns into the law. The bob's mass m
// is in no group, so no seed uses it.
func TestPiSeedsPendulum(t *testing.T) {
	rng := newTestRand(5)
	X := sample(rng, 3, 200, 1, 5) // L, g, m
	y := target(X, func(x []float64) float64 { return 2 * math.Pi * math.Sqrt(x[0]/x[1]) })
	p := testProblem(X, y, Options{})
	p.expired = func() bool { return false }
	p.dims, p.target = dimsOf(t, "m", "m/s^2", "kg"), dimsOf(t, "s")[0]
	seeds := piSeeds(context.Background(), p, Options{}, 0)
	if len(seeds) != 1 || !reproducedBy(seeds, X, y) {
		t.Fatalf("seeds %v do not reproduce the period", seeds)
	}
	for _, nd := range seeds[0] {
		if nd.op == opVar && nd.v == 2 {
			t.Errorf("seed %v uses the mass", seeds[0])
		}
	}
	p.dims = nil
	if s := piSeeds(context.Background(), p, Options{}, 0); s != nil {
		t.Errorf("seeds without units: %v", s)
	}
}

// Relativistic mass m = m0/sqrt(1 − v²/c²): the groups v/c and y/m0 leave
// a one-variable search, whose law comes back over m0, v and c.
func TestPiSeedsRelativisticMass(t *testing.T) {
	rng := newTestRand(6)
	n := 300
	m0, v, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range m0 {
		m0[i], v[i], c[i] = 1+4*rng.Float64(), 1+rng.Float64(), 3+7*rng.Float64()
	}
	X := [][]float64{m0, v, c}
	y := target(X, func(x []float64) float64 { return x[0] / math.Sqrt(1-x[1]*x[1]/(x[2]*x[2])) })
	p := testProblem(X, y, Options{Seed: 1})
	p.expired = func() bool { return false }
	p.dims, p.target = dimsOf(t, "kg", "m/s", "m/s"), dimsOf(t, "kg")[0]
	seeds := piSeeds(context.Background(), p, Options{Seed: 1}, 0)
	if !reproducedBy(seeds, X, y) {
		t.Fatalf("no seed of %d reproduces m0/sqrt(1 - v²/c²)", len(seeds))
	}
	// A target whose dimension no product of the inputs has: no seeds.
	p.target = dimsOf(t, "A")[0]
	if s := piSeeds(context.Background(), p, Options{Seed: 1}, 0); s != nil {
		t.Errorf("seeds for a target in amperes: %v", s)
	}
}

// Dimensionless inputs are their own groups: the search on them would be
// the main search again, so there are no seeds.
func TestPiSeedsSkipDimensionlessInputs(t *testing.T) {
	rng := newTestRand(7)
	X := sample(rng, 2, 100, 1, 3)
	y := target(X, func(x []float64) float64 { return math.Exp(-x[0]*x[0]/2) * x[1] })
	p := testProblem(X, y, Options{})
	p.expired = func() bool { return false }
	p.dims, p.target = dimsOf(t, "", "rad"), dimsOf(t, "")[0]
	if s := piSeeds(context.Background(), p, Options{}, 0); s != nil {
		t.Errorf("seeds from dimensionless inputs: %v", s)
	}
}
