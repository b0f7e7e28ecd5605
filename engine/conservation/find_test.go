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

var (
	sinOf  = math.Sin
	sqrtOf = math.Sqrt
)

func massSpringData(k, m float64) ([][]float64, []string) {
	starts := [][]float64{{0.5, 0}, {1, 0.5}, {0, 1.8}, {1.5, -1}, {2, 0.3}}
	var trajs [][][]float64
	for _, s := range starts {
		trajs = append(trajs, rk4(massSpring(k, m), s, 0.01, 200, 5))
	}
	return stack(trajs)
}

func TestMassSpringEnergy(t *testing.T) {
	const k, m = 2.0, 1.0
	X, labels := massSpringData(k, m)
	qs, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 {
		t.Fatalf("want 1 quantity, got %d: %+v", len(qs), qs)
	}
	q := qs[0]
	if q.Expression != "2*x^2 + v^2" {
		t.Errorf("expression %q, want %q", q.Expression, "2*x^2 + v^2")
	}
	assertTerms(t, q, "v^2", "x^2")
	if r := q.Coefficients["x^2"] / q.Coefficients["v^2"]; math.Abs(r-k/m) > 1e-3 {
		t.Errorf("x^2 : v^2 = %g, want %g", r, k/m)
	}
	if q.RelativeVariation > 1e-4 {
		t.Errorf("relative variation %g of an RK4 energy, want < 1e-4", q.RelativeVariation)
	}
	if !slices.Equal(q.Variables, []string{"x", "v"}) || q.Trajectories != 5 {
		t.Errorf("variables %v trajectories %d", q.Variables, q.Trajectories)
	}
}

func TestMassSpringEnergyWithNoise(t *testing.T) {
	const k, m = 2.0, 1.0
	X, labels := massSpringData(k, m)
	addNoise(X, 0.01, rand.New(rand.NewPCG(1, 2)))
	// 1% noise on x and v makes the measured energy wobble by a few percent
	// of the terms' own variation, more than the default 2% tolerance; the
	// noise model accepts it with default options because the wobble is what
	// the measurement noise explains.
	qs, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 {
		t.Fatalf("want 1 quantity, got %d: %+v", len(qs), qs)
	}
	q := qs[0]
	assertTerms(t, q, "v^2", "x^2")
	if r := q.Coefficients["x^2"] / q.Coefficients["v^2"]; math.Abs(r-k/m) > 0.05*k/m {
		t.Errorf("x^2 : v^2 = %g, want %g within 5%%", r, k/m)
	}
	t.Logf("noisy: %s (relative variation %.4f)", q.Expression, q.RelativeVariation)
}

func TestPendulumEnergy(t *testing.T) {
	const gOverL = 4.0
	var trajs [][][]float64
	for _, theta0 := range []float64{0.4, 1.0, 1.6, 2.2, 2.8} {
		trajs = append(trajs, rk4(pendulum(gOverL), []float64{theta0, 0}, 0.005, 300, 4))
	}
	X, labels := stack(trajs)
	qs, err := Find(context.Background(), X, []string{"theta", "omega"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 {
		t.Fatalf("want 1 quantity, got %d: %+v", len(qs), qs)
	}
	q := qs[0]
	assertTerms(t, q, "cos(theta)", "omega^2")
	// E = omega^2/2 - (g/L) cos(theta)  =>  cos : omega^2 = -2 g/L.
	if r := q.Coefficients["cos(theta)"] / q.Coefficients["omega^2"]; math.Abs(r+2*gOverL) > 1e-3 {
		t.Errorf("cos(theta) : omega^2 = %g, want %g", r, -2*gOverL)
	}
	if q.Expression != "omega^2 - 8*cos(theta)" {
		t.Errorf("expression %q", q.Expression)
	}
}

func TestKeplerAngularMomentum(t *testing.T) {
	// Orbits of different size, shape and orientation, so that no accidental
	// relation between the orbits' energies and angular momenta holds.
	starts := []struct{ r, phase, speed, tilt float64 }{
		{1, 0, 0.9, 0}, {1.3, 1, 0.85, 0.2}, {0.8, 2.5, 1.3, -0.3}, {1.1, 4, 1.1, 0.4}, {0.9, 5.2, 1.0, -0.1},
	}
	var trajs [][][]float64
	for _, s := range starts {
		x, y := s.r*math.Cos(s.phase), s.r*math.Sin(s.phase)
		dir := s.phase + math.Pi/2 + s.tilt
		y0 := []float64{x, y, s.speed * math.Cos(dir), s.speed * math.Sin(dir)}
		trajs = append(trajs, rk4(kepler(1), y0, 0.002, 400, 25))
	}
	X, labels := stack(trajs)
	qs, err := Find(context.Background(), X, []string{"x", "y", "vx", "vy"}, labels, Options{MaxDegree: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) == 0 {
		t.Fatal("no quantity found")
	}
	q := qs[0]
	if q.Expression != "x*vy - y*vx" {
		t.Errorf("expression %q, want %q (all: %+v)", q.Expression, "x*vy - y*vx", qs)
	}
	assertTerms(t, q, "x*vy", "y*vx")
	// The energy needs 1/r, an extended term; it comes second.
	want := "vx^2 + vy^2 - 2*(x^2 + y^2)^-0.5"
	if len(qs) < 2 || qs[1].Expression != want {
		t.Errorf("second quantity: want %q (all: %+v)", want, qs)
	}
	for _, extra := range qs[min(2, len(qs)):] {
		t.Errorf("unexpected extra quantity %q (relative variation %g)", extra.Expression, extra.RelativeVariation)
	}
}

func TestRandomWalkHasNoQuantity(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	var trajs [][][]float64
	for range 4 {
		x, y := 0.0, 0.0
		var states [][]float64
		for range 250 {
			x += 0.1 * rng.NormFloat64()
			y += 0.1 * rng.NormFloat64()
			states = append(states, []float64{x, y})
		}
		trajs = append(trajs, states)
	}
	X, labels := stack(trajs)
	qs, err := Find(context.Background(), X, []string{"x", "y"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 0 {
		t.Errorf("random walk gave %+v", qs)
	}
}

// An exact identity among the variables (z = x + y) is constant everywhere,
// so it is not a conserved quantity of the dynamics and must not be reported.
func TestIdentityIsNotReported(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var trajs [][][]float64
	for range 3 {
		x, y := rng.NormFloat64(), rng.NormFloat64()
		var states [][]float64
		for range 200 {
			x += 0.1 * rng.NormFloat64()
			y += 0.1 * rng.NormFloat64()
			states = append(states, []float64{x, y, x + y})
		}
		trajs = append(trajs, states)
	}
	X, labels := stack(trajs)
	qs, err := Find(context.Background(), X, []string{"x", "y", "z"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 0 {
		t.Errorf("identity reported as conserved: %+v", qs)
	}
}

func TestSingleTrajectoryIsAnError(t *testing.T) {
	states := rk4(massSpring(1, 1), []float64{1, 0}, 0.01, 100, 5)
	X, labels := stack([][][]float64{states})
	_, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{})
	if !errors.Is(err, ErrTooFewTrajectories) {
		t.Errorf("got %v, want ErrTooFewTrajectories", err)
	}
}

func TestInvalidInput(t *testing.T) {
	X, labels := massSpringData(1, 1)
	short := [][]float64{X[0][:4], X[1][:4], append(X[0][:0:0], X[0][200:400]...)}
	cases := map[string]func() error{
		"names mismatch": func() error {
			_, err := Find(context.Background(), X, []string{"x"}, labels, Options{})
			return err
		},
		"labels mismatch": func() error {
			_, err := Find(context.Background(), X, []string{"x", "v"}, labels[1:], Options{})
			return err
		},
		"non-finite": func() error {
			bad := [][]float64{slices.Clone(X[0]), X[1]}
			bad[0][10] = math.NaN()
			_, err := Find(context.Background(), bad, []string{"x", "v"}, labels, Options{})
			return err
		},
		"too few rows in a trajectory": func() error {
			x := append(slices.Clone(short[0]), X[0][200:400]...)
			v := append(slices.Clone(short[1]), X[1][200:400]...)
			l := append(slices.Clone(labels[:4]), labels[200:400]...)
			_, err := Find(context.Background(), [][]float64{x, v}, []string{"x", "v"}, l, Options{})
			return err
		},
		"bad tolerance": func() error {
			_, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{Tolerance: 2})
			return err
		},
		"cancelled": func() error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := Find(ctx, X, []string{"x", "v"}, labels, Options{})
			return err
		},
	}
	for name, run := range cases {
		if err := run(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestDeterministic(t *testing.T) {
	X, labels := massSpringData(3, 2)
	a, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Find(context.Background(), X, []string{"x", "v"}, labels, Options{})
	if !reflect.DeepEqual(a, b) {
		t.Errorf("two runs differ: %+v vs %+v", a, b)
	}
}

// assertTerms checks that q has exactly the given terms (sorted).
func assertTerms(t *testing.T, q Quantity, want ...string) {
	t.Helper()
	var got []string
	for k := range q.Coefficients {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("terms %v, want %v (expression %q)", got, want, q.Expression)
	}
}

// A one-parameter family of orbits lies on a surface in phase space, on which
// smooth functions of the orbit parameter can be approximated by many-term
// combinations (of x and vy alone, for example); only the exact angular
// momentum and energy may be reported.
func TestKeplerOneParameterFamily(t *testing.T) {
	var trajs [][][]float64
	for _, v0 := range []float64{0.9, 1.0, 1.15, 1.25} {
		trajs = append(trajs, rk4(kepler(1), []float64{1, 0, 0, v0}, 0.002, 400, 25))
	}
	X, labels := stack(trajs)
	qs, err := Find(context.Background(), X, []string{"x", "y", "vx", "vy"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, q := range qs {
		exprs = append(exprs, q.Expression)
	}
	if want := []string{"x*vy - y*vx", "vx^2 + vy^2 - 2*(x^2 + y^2)^-0.5"}; !slices.Equal(exprs, want) {
		t.Errorf("got %q, want %q", exprs, want)
	}
}

// Two uncoupled oscillators conserve two energies (and any mix of them); both
// should be found as separate two-term quantities, and MaxQuantities caps
// the count.
func TestTwoIndependentOscillators(t *testing.T) {
	f := func(y []float64) []float64 { return []float64{y[1], -y[0], y[3], -4 * y[2]} }
	starts := [][]float64{{1, 0, 0.3, 0}, {0.4, 0.2, 1.2, 0.5}, {1.6, -0.3, 0.8, 1}, {0.2, 1, 1.5, -0.5}, {1.1, 0.7, 0.1, 0.2}}
	var trajs [][][]float64
	for _, s := range starts {
		trajs = append(trajs, rk4(f, s, 0.01, 250, 4))
	}
	X, labels := stack(trajs)
	names := []string{"x", "u", "y", "w"}
	qs, err := Find(context.Background(), X, names, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, q := range qs {
		exprs = append(exprs, q.Expression)
	}
	for _, want := range []string{"x^2 + u^2", "4*y^2 + w^2"} {
		if !slices.Contains(exprs, want) {
			t.Errorf("missing %q in %q", want, exprs)
		}
	}
	qs, err = Find(context.Background(), X, names, labels, Options{MaxQuantities: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 {
		t.Errorf("MaxQuantities 1 gave %d quantities", len(qs))
	}
}

// A column that is constant within each trajectory (a parameter) carries no
// dynamics and must not be reported as conserved on its own.
func TestParameterColumnIsIgnored(t *testing.T) {
	X, labels := massSpringData(2, 1)
	param := make([]float64, len(labels))
	for i, l := range labels {
		param[i] = float64(len(l)) + float64(l[len(l)-1])
	}
	qs, err := Find(context.Background(), append(X, param), []string{"x", "v", "k"}, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Expression != "2*x^2 + v^2" {
		t.Errorf("got %+v, want only 2*x^2 + v^2", qs)
	}
}

// The reported relative variation follows its documented definition:
// mean over trajectories of std_t(Q) / sum_k |c_k| std_t(term_k).
func TestRelativeVariationDefinition(t *testing.T) {
	X, labels := massSpringData(2, 1)
	addNoise(X, 0.01, rand.New(rand.NewPCG(5, 6)))
	qs, err := Find(context.Background(), X, []string{"x", "v"}, labels, Options{Tolerance: 0.1})
	if err != nil || len(qs) == 0 {
		t.Fatalf("no quantity: %v", err)
	}
	q := qs[0]
	cx, cv := q.Coefficients["x^2"], q.Coefficients["v^2"]
	byTraj := map[string][][3]float64{}
	var order []string
	for i, l := range labels {
		if _, ok := byTraj[l]; !ok {
			order = append(order, l)
		}
		x2, v2 := X[0][i]*X[0][i], X[1][i]*X[1][i]
		byTraj[l] = append(byTraj[l], [3]float64{cx*x2 + cv*v2, x2, v2})
	}
	sum := 0.0
	for _, l := range order {
		var qv, x2, v2 []float64
		for _, r := range byTraj[l] {
			qv, x2, v2 = append(qv, r[0]), append(x2, r[1]), append(v2, r[2])
		}
		sum += popStd(qv) / (math.Abs(cx)*popStd(x2) + math.Abs(cv)*popStd(v2))
	}
	want := sum / float64(len(order))
	if math.Abs(q.RelativeVariation-want) > 1e-9 {
		t.Errorf("relative variation %g, by definition %g", q.RelativeVariation, want)
	}
}

func popStd(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	ss := 0.0
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(v)))
}

// Three oscillators with distinct frequencies at degree 3 (95 candidate
// terms): the three energies must come out, and quickly.
func TestLargerLibrary(t *testing.T) {
	f := func(y []float64) []float64 {
		return []float64{y[1], -y[0], y[3], -2 * y[2], y[5], -3 * y[4]}
	}
	rng := rand.New(rand.NewPCG(2, 2))
	var trajs [][][]float64
	for range 8 {
		s := make([]float64, 6)
		for i := range s {
			s[i] = rng.NormFloat64()
		}
		trajs = append(trajs, rk4(f, s, 0.01, 500, 2))
	}
	X, labels := stack(trajs)
	qs, err := Find(context.Background(), X, []string{"a", "b", "c", "d", "e", "g"}, labels, Options{MaxDegree: 3})
	if err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, q := range qs {
		exprs = append(exprs, q.Expression)
	}
	slices.Sort(exprs)
	if want := []string{"2*c^2 + d^2", "3*e^2 + g^2", "a^2 + b^2"}; !slices.Equal(exprs, want) {
		t.Errorf("got %q, want %q", exprs, want)
	}
}

func TestLibraryTooLarge(t *testing.T) {
	X := make([][]float64, 10)
	names := make([]string, 10)
	labels := make([]string, 20)
	for j := range X {
		X[j] = make([]float64, 20)
		names[j] = string(rune('a' + j))
	}
	for i := range labels {
		labels[i] = []string{"p", "q"}[i%2]
	}
	if _, err := Find(context.Background(), X, names, labels, Options{MaxDegree: 3}); err == nil {
		t.Error("10 variables at degree 3 (285 terms) accepted")
	}
}

// Rows of a trajectory need not be contiguous: interleaving the rows of all
// trajectories must give the same quantity.
func TestInterleavedRows(t *testing.T) {
	X, labels := massSpringData(2, 1)
	perm := rand.New(rand.NewPCG(11, 12)).Perm(len(labels))
	Y := [][]float64{make([]float64, len(labels)), make([]float64, len(labels))}
	shuffled := make([]string, len(labels))
	for to, from := range perm {
		Y[0][to], Y[1][to], shuffled[to] = X[0][from], X[1][from], labels[from]
	}
	qs, err := Find(context.Background(), Y, []string{"x", "v"}, shuffled, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Expression != "2*x^2 + v^2" {
		t.Errorf("got %+v", qs)
	}
}

// Left at its default, the degree is 2 up to 16 variables; past them the
// search is grouped (see groups.go), and a linear quantity of two random
// walks among 20 variables is found in their group; a degree that is set is
// refused instead. Only more than 1000 variables are refused up front.
func TestManyVariablesAreSearchedInGroups(t *testing.T) {
	if DefaultDegree(16) != 2 || DefaultDegree(17) != 1 {
		t.Errorf("default degree %d for 16 variables, %d for 17; want 2 and 1", DefaultDegree(16), DefaultDegree(17))
	}
	if err := CheckVariables(1000); err != nil {
		t.Errorf("1000 variables: %v", err)
	}
	if err := CheckVariables(1001); err == nil || !strings.Contains(err.Error(), "1001 variables are more than the 1000") {
		t.Errorf("1001 variables: err = %v, want them refused", err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	const vars, trajs, rows = 20, 6, 100
	X := make([][]float64, vars)
	names := make([]string, vars)
	var labels []string
	for j := range names {
		names[j] = fmt.Sprint("v", j)
	}
	for k := range trajs {
		total := 1 + float64(k) // p + q is this trajectory's constant
		walk := make([]float64, vars)
		for range rows {
			for j := range walk {
				walk[j] += rng.NormFloat64()
			}
			for j := range vars - 1 {
				X[j] = append(X[j], walk[j])
			}
			X[vars-1] = append(X[vars-1], total-walk[vars-2])
			labels = append(labels, fmt.Sprint(k))
		}
	}
	res, err := Search(context.Background(), X, names, labels, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(res.Groups, func(g []string) bool { return slices.Equal(g, []string{"v18", "v19"}) }) {
		t.Errorf("groups %v, want v18 and v19 together", res.Groups)
	}
	if !strings.Contains(res.Note, "the 20 variables fall into") {
		t.Errorf("note %q", res.Note)
	}
	// The group of v18 and v19 is searched at degree 2, where (v18 + v19)^2
	// is conserved too: a function of a first-stage quantity is dropped only
	// in the extended stage.
	var got []string
	for _, q := range res.Quantities {
		got = append(got, q.Expression)
		if !slices.Equal(q.Variables, []string{"v18", "v19"}) {
			t.Errorf("quantity %s over %v, want only v18 and v19", q.Expression, q.Variables)
		}
	}
	if len(got) == 0 || got[0] != "v18 + v19" {
		t.Errorf("found %q, want v18 + v19 first", got)
	}
	if _, err := Find(context.Background(), X, names, labels, Options{MaxDegree: 2}); err == nil || !strings.Contains(err.Error(), "more than 200") {
		t.Errorf("degree 2 set for 20 variables: err = %v, want the library refused", err)
	}
}
