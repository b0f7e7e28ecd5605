package dynamics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

// unevenGrid returns n strictly increasing times with mean step dt and
// steps drawn uniformly from [0.5·dt, 1.5·dt].
func unevenGrid(n int, dt float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 4))
	out := make([]float64, n)
	for i := 1; i < n; i++ {
		out[i] = out[i-1] + dt*(0.5+rng.Float64())
	}
	return out
}

func TestLocalPolynomialDerivativeOfNoisySine(t *testing.T) {
	ts := unevenGrid(400, 0.025, 1)
	rng := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, len(ts))
	for i, v := range ts {
		x[i] = math.Sin(v) + 0.01*rng.NormFloat64()
	}
	smooth, deriv := LocalPolynomial(ts, x, 20, 2)
	var es, ed float64
	for i, v := range ts {
		es += math.Pow(smooth[i]-math.Sin(v), 2)
		ed += math.Pow(deriv[i]-math.Cos(v), 2)
	}
	es, ed = math.Sqrt(es/float64(len(ts))), math.Sqrt(ed/float64(len(ts)))
	// a plain finite difference of this data has an error of about
	// 0.01·√2/0.025 ≈ 0.6
	if es > 0.006 || ed > 0.05 {
		t.Errorf("RMS error of the smoothed values %.4f (want ≤ 0.006), of the derivative %.4f (want ≤ 0.05)", es, ed)
	}
}

// TestWeakFormIntegratesByParts checks −∫φ'x = ∫φẋ on uneven samples of
// x = sin t, ẋ = cos t: the left side is the weak response of the state,
// the right side the weak row of an input column holding cos t. With 1 %
// noise on x the weak response stays within a few hundredths, where a
// finite difference of the same data errs by about 0.01·√2/0.02 ≈ 0.7.
func TestWeakFormIntegratesByParts(t *testing.T) {
	ts := unevenGrid(300, 0.02, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct{ noise, tol float64 }{{0, 2e-3}, {0.01, 0.03}} {
		s := segment{t: ts, x: make([][]float64, len(ts))}
		for i, v := range ts {
			s.x[i] = []float64{math.Sin(v) + c.noise*rng.NormFloat64(), math.Cos(v)}
		}
		lib := []Term{{Name: "u", Eval: func(z []float64) float64 { return z[1] }}}
		var worst float64
		rowCount := 0
		weakRows(s, lib, []int{0}, 30, nil, func(g, b []float64) {
			worst = math.Max(worst, math.Abs(b[0]-g[0]))
			rowCount++
		})
		if rowCount != weakRowCount(len(ts), 30) || rowCount < 15 {
			t.Fatalf("%d weak rows, want %d (at least 15)", rowCount, weakRowCount(len(ts), 30))
		}
		if worst > c.tol {
			t.Errorf("noise %g: largest |−∫φ'x − ∫φẋ| = %.4f, want ≤ %g", c.noise, worst, c.tol)
		}
	}
}

func TestSparseSelectionRecoversKnownSupport(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	const m, n = 15, 400
	truth := map[int]float64{2: 1.5, 7: -0.8, 11: 0.3}
	d := newDesign(ones(m), 1, 4, 1)
	d.startBlock()
	g := make([]float64, m)
	for range n {
		for j := range m {
			g[j] = rng.NormFloat64()
		}
		g[3] = g[2] + 0.05*rng.NormFloat64() // a near-duplicate of a true term
		b := 0.01 * rng.NormFloat64()
		for j, c := range truth {
			b += c * g[j]
		}
		d.addRow(g, []float64{b})
	}
	if err := d.finish(); err != nil {
		t.Fatal(err)
	}
	all := make([]int, len(d.chunks))
	for i := range all {
		all[i] = i
	}
	full := make([]int, m)
	for j := range full {
		full[j] = j
	}
	if got := d.sum(0, all).stlsq(full, 0.05); !slices.Equal(got, []int{2, 7, 11}) {
		t.Errorf("STLSQ at threshold 0.05: support %v, want [2 7 11]", got)
	}
	sel, err := d.selectSupport(context.Background(), 0, all)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sel.support, []int{2, 7, 11}) {
		t.Fatalf("support %v, want [2 7 11]", sel.support)
	}
	c, _ := d.coefficients(0, all, sel.support)
	for j, want := range truth {
		if math.Abs(c[j]-want) > 0.01 {
			t.Errorf("coefficient %d = %.4f, want %.4f", j, c[j], want)
		}
	}
}

func TestIntegrateMatchesAnalyticSolutions(t *testing.T) {
	times := unevenGrid(50, 0.2, 6)
	// harmonic oscillator ẍ = −4x: x = cos 2t, v = −2 sin 2t
	path, err := Integrate(func(_ float64, x, dx []float64) { dx[0], dx[1] = x[1], -4*x[0] }, []float64{1, 0}, times, IntegrateOptions{RelTol: 1e-9, AbsTol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range times {
		if e := math.Abs(path[i][0] - math.Cos(2*tt)); e > 1e-7 {
			t.Fatalf("x(%.3f) off by %.2g", tt, e)
		}
	}
	// logistic growth ẋ = x(1 − x), x0 = 0.1
	path, err = Integrate(func(_ float64, x, dx []float64) { dx[0] = x[0] * (1 - x[0]) }, []float64{0.1}, times, IntegrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tt := range times {
		want := 1 / (1 + 9*math.Exp(-tt))
		if e := math.Abs(path[i][0] - want); e > 1e-5 {
			t.Fatalf("logistic x(%.3f) off by %.2g", tt, e)
		}
	}
	// ẋ = x² from 1 blows up at t = 1
	path, err = Integrate(func(_ float64, x, dx []float64) { dx[0] = x[0] * x[0] }, []float64{1}, grid(30, 0.1), IntegrateOptions{Bound: 1e6})
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("blow-up: err = %v, want ErrDiverged", err)
	}
	if len(path) < 9 || len(path) > 11 {
		t.Errorf("blow-up: %d states returned, want those before t = 1", len(path))
	}
}

func TestDiscoverRecoversKnownSystems(t *testing.T) {
	cases := []struct {
		name  string
		sys   system
		ics   [][]float64
		times []float64
	}{
		{"lotka_volterra", lotkaVolterra, [][]float64{{2, 1}, {4, 1.5}, {1, 3}, {3, 2.5}}, grid(400, 0.025)},
		{"linear3", linear3, [][]float64{{1, 0, 0}, {0, 1, 1}, {-1, 0.5, 2}, {0.5, -1, -1}}, grid(400, 0.025)},
		// Lorenz turns fast: 100 samples per time unit
		{"lorenz", lorenz, [][]float64{{-8, 7, 27}, {5, -3, 20}, {1, 1, 15}, {-10, -12, 30}}, grid(1000, 0.01)},
	}
	for _, c := range cases {
		for _, noise := range []float64{0, 0.01} {
			d := sample(t, c.sys, c.ics, c.times, noise, 7)
			res, err := Discover(context.Background(), d, Settings{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if ok, why := exact(res, c.sys, 0.02); !ok {
				t.Errorf("%s at noise %g: %s", c.name, noise, why)
			}
			for _, eq := range res.Equations {
				if !eq.Passed {
					t.Errorf("%s at noise %g: %s = %s did not pass: %v", c.name, noise, eq.Target, eq.Expression, eq.Reasons)
				}
			}
		}
	}
}

// TestDiscoverUnevenSamplingAndInputs recovers a forced system,
// ẋ = −0.5x + 2u with input u = sin(1.3t), from unevenly sampled
// trajectories with 1 % noise.
func TestDiscoverUnevenSamplingAndInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	d := Trajectories{StateNames: []string{"x"}, States: make([][]float64, 1), InputNames: []string{"u"}, Inputs: make([][]float64, 1)}
	u := func(t float64) float64 { return math.Sin(1.3 * t) }
	for k, x0 := range []float64{1, -2, 0.5, 3} {
		times := unevenGrid(200, 0.05, uint64(k+10))
		path, err := Integrate(func(t float64, x, dx []float64) { dx[0] = -0.5*x[0] + 2*u(t) }, []float64{x0}, times, IntegrateOptions{RelTol: 1e-10, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for i, tt := range times {
			d.Time = append(d.Time, tt)
			d.Trajectory = append(d.Trajectory, string(rune('a'+k)))
			d.States[0] = append(d.States[0], path[i][0]+0.01*rng.NormFloat64())
			d.Inputs[0] = append(d.Inputs[0], u(tt))
		}
	}
	res, err := Discover(context.Background(), d, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	eq := res.Equations[0]
	c := eq.Coefficients
	if len(c) != 2 || math.Abs(c["x"]+0.5) > 0.01 || math.Abs(c["u"]-2) > 0.04 {
		t.Fatalf("dx/dt = %s, want -0.5*x + 2*u", eq.Expression)
	}
	if !eq.Passed {
		t.Errorf("dx/dt = %s did not pass: %v", eq.Expression, eq.Reasons)
	}
}

// TestDiscoverLocalPolynomialDerivatives runs the alternative derivative
// treatment on noise-free data; with noise the weak form is the method of
// choice (package documentation).
func TestDiscoverLocalPolynomialDerivatives(t *testing.T) {
	d := sample(t, lotkaVolterra, [][]float64{{2, 1}, {4, 1.5}, {1, 3}, {3, 2.5}}, grid(200, 0.05), 0, 9)
	res, err := Discover(context.Background(), d, Settings{Derivatives: LocalPolynomialDerivative, Radius: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if ok, why := exact(res, lotkaVolterra, 0.02); !ok {
		t.Errorf("local polynomial derivatives: %s", why)
	}
}

func TestDiscoverRejectsBadInput(t *testing.T) {
	good := func() Trajectories {
		return sample(t, lotkaVolterra, [][]float64{{2, 1}, {4, 1.5}, {1, 3}, {3, 2.5}}, grid(40, 0.1), 0, 1)
	}
	cases := map[string]func(d *Trajectories, s *Settings){
		"no states":          func(d *Trajectories, _ *Settings) { d.States, d.StateNames = nil, nil },
		"names mismatch":     func(d *Trajectories, _ *Settings) { d.StateNames = d.StateNames[:1] },
		"duplicate name":     func(d *Trajectories, _ *Settings) { d.StateNames[1] = "x" },
		"short column":       func(d *Trajectories, _ *Settings) { d.States[1] = d.States[1][:10] },
		"not finite":         func(d *Trajectories, _ *Settings) { d.States[0][3] = math.NaN() },
		"labels mismatch":    func(d *Trajectories, _ *Settings) { d.Trajectory = d.Trajectory[:5] },
		"repeated time":      func(d *Trajectories, _ *Settings) { d.Time[1] = d.Time[0] },
		"too few rows":       func(d *Trajectories, _ *Settings) { d.Trajectory[0] = "lonely" },
		"degree":             func(_ *Trajectories, s *Settings) { s.Degree = 9 },
		"ensemble":           func(_ *Trajectories, s *Settings) { s.Ensemble = 2 },
		"extra term":         func(_ *Trajectories, s *Settings) { s.ExtraTerms = []Term{{Name: "f"}} },
		"library too large":  func(_ *Trajectories, s *Settings) { s.Degree = 5; s.ExtraTerms = make200() },
		"inputs names":       func(d *Trajectories, _ *Settings) { d.InputNames = []string{"u"} },
		"unknown derivative": func(_ *Trajectories, s *Settings) { s.Derivatives = 7 },
		"term not finite": func(_ *Trajectories, s *Settings) {
			s.ExtraTerms = []Term{{Name: "log(x - 100)", Eval: func(z []float64) float64 { return math.Log(z[0] - 100) }}}
		},
		"overflow": func(d *Trajectories, _ *Settings) { d.States[0][7] = 1e120 },
		"max rows": func(_ *Trajectories, s *Settings) { s.MaxRows = minMaxRows - 1 },
		// counted, not built: degree 3 would make 4.5·10⁹ terms
		"inputs too many": func(d *Trajectories, _ *Settings) {
			for j := range 3000 {
				d.InputNames = append(d.InputNames, fmt.Sprint("u", j))
				d.Inputs = append(d.Inputs, make([]float64, len(d.Time)))
			}
		},
	}
	for name, mutate := range cases {
		d, s := good(), Settings{}
		mutate(&d, &s)
		if _, err := Discover(context.Background(), d, s); !errors.Is(err, ErrInvalidData) {
			t.Errorf("%s: err = %v, want ErrInvalidData", name, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Discover(ctx, good(), Settings{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v, want context.Canceled", err)
	}
}

func make200() []Term {
	out := make([]Term, 200)
	for i := range out {
		out[i] = Term{Name: "t", Eval: func([]float64) float64 { return 0 }}
	}
	return out
}

func TestExpressionPrintsColumnNames(t *testing.T) {
	lib := buildLibrary([]string{"x", "y"}, 2, true, nil)
	names := make([]string, len(lib))
	for j, term := range lib {
		names[j] = term.Name
	}
	want := []string{"1", "x", "y", "x^2", "x*y", "y^2", "sin(x)", "cos(x)", "sin(y)", "cos(y)"}
	if !slices.Equal(names, want) {
		t.Fatalf("library %v, want %v", names, want)
	}
	coef := make([]float64, len(lib))
	coef[0], coef[1], coef[4], coef[6] = 2, -1, 0.5, -3.25
	if got := expression(lib, coef); got != "2 - x + 0.5*x*y - 3.25*sin(x)" {
		t.Errorf("expression %q", got)
	}
	if got := lib[4].Eval([]float64{3, 5}); got != 15 {
		t.Errorf("x*y at (3, 5) = %g", got)
	}
	// gradients: analytic for the library, central differences for an
	// extra term without Grad
	cubic := buildLibrary([]string{"x", "y"}, 3, true, []Term{{Name: "e", Eval: func(z []float64) float64 { return z[0] * z[0] * z[1] }}})
	z, g := []float64{3, 5}, make([]float64, 2)
	for _, term := range cubic {
		switch term.Name {
		case "x^2*y", "e":
			termGrad(term, z, g)
			if math.Abs(g[0]-30) > 1e-6 || math.Abs(g[1]-9) > 1e-6 {
				t.Errorf("∇%s at (3, 5) = %v, want [30 9]", term.Name, g)
			}
		case "cos(y)":
			termGrad(term, z, g)
			if g[0] != 0 || g[1] != -math.Sin(5) {
				t.Errorf("∇cos(y) at (3, 5) = %v", g)
			}
		}
	}
}

func ones(m int) []float64 {
	out := make([]float64, m)
	for i := range out {
		out[i] = 1
	}
	return out
}

// TestSimulationEvidence checks the simulation half of the acceptance
// rule on held-out Lotka–Volterra data: the true system passes, the
// persistence model ẋ = 0 and a system with a wrong coefficient do not.
func TestSimulationEvidence(t *testing.T) {
	d := sample(t, lotkaVolterra, [][]float64{{2, 1}, {4, 1.5}}, grid(300, 0.05), 0.01, 11)
	segs, err := d.segments()
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]struct {
		rhs  func(z, dx []float64)
		pass bool
	}{
		"truth":       {func(z, dx []float64) { lotkaVolterra.f(z, dx) }, true},
		"persistence": {func(_, dx []float64) { clear(dx) }, false},
		"wrong rate": {func(z, dx []float64) {
			lotkaVolterra.f(z, dx)
			dx[0] += 0.6 * z[0] // growth rate 1.6 instead of 1
		}, false},
	}
	for name, m := range models {
		sim := simulate(segs, 2, m.rhs)
		if sim.Passed != m.pass {
			t.Errorf("%s: passed = %v, want %v (horizon %.3g, persistence %.3g)", name, sim.Passed, m.pass, sim.Horizon, sim.PersistenceHorizon)
		}
		if sim.Segments != 2*startsPerPiece {
			t.Errorf("%s: %d segments, want %d", name, sim.Segments, 2*startsPerPiece)
		}
	}
}

// TestDesignMemoryIsBounded checks that the number of chunks (one Gram
// matrix each) stays within maxChunks plus one per trajectory however long
// the trajectories are, and that no chunk spans two trajectories.
func TestDesignMemoryIsBounded(t *testing.T) {
	d := sample(t, lotkaVolterra, [][]float64{{2, 1}, {4, 1.5}, {1, 3}}, grid(8000, 0.0025), 0.01, 12)
	segs, err := d.segments()
	if err != nil {
		t.Fatal(err)
	}
	lib := buildLibrary(lotkaVolterra.names, 2, false, nil)
	for _, m := range []DerivativeMethod{WeakForm, LocalPolynomialDerivative} {
		des, err := buildDesign(context.Background(), segs, lib, 2, allTargets(2), Settings{Derivatives: m})
		if err != nil {
			t.Fatal(err)
		}
		if len(des.chunks) > maxChunks+len(segs) {
			t.Errorf("%v: %d chunks, want at most %d", m, len(des.chunks), maxChunks+len(segs))
		}
		want := 0
		for _, s := range segs {
			r := min(autoRadius(len(s.t)), (len(s.t)-1)/2)
			if m == WeakForm {
				want += weakRowCount(len(s.t), r)
			} else {
				want += len(s.t) - 2*r
			}
		}
		if got := des.total(); got != want {
			t.Errorf("%v: %d rows in the chunks, want %d", m, got, want)
		}
	}
}

// TestDiscoverSingleTrajectory holds out the tail of one trajectory given
// without labels.
func TestDiscoverSingleTrajectory(t *testing.T) {
	d := sample(t, lotkaVolterra, [][]float64{{3, 1}}, grid(800, 0.025), 0.01, 13)
	d.Trajectory = nil
	res, err := Discover(context.Background(), d, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Simulation.HeldOut != "tails" || res.TrainingTrajectories != 1 {
		t.Errorf("held out %q with %d training trajectories, want tails of 1", res.Simulation.HeldOut, res.TrainingTrajectories)
	}
	if ok, why := exact(res, lotkaVolterra, 0.02); !ok {
		t.Errorf("single trajectory: %s", why)
	}
	for _, eq := range res.Equations {
		if !eq.Passed {
			t.Errorf("%s = %s did not pass: %v", eq.Target, eq.Expression, eq.Reasons)
		}
	}
}

// TestNoiseCorrectionReducesBias puts 5 % noise on z alone in Lorenz data:
// the noisy x·z column biases plain least squares (dy/dt's small −y term
// absorbs it); the corrected fit stays near the truth.
func TestNoiseCorrectionReducesBias(t *testing.T) {
	ics := [][]float64{{-8, 7, 27}, {5, -3, 20}, {1, 1, 15}, {-10, -12, 30}, {12, 10, 35}}
	clean := sample(t, lorenz, ics, grid(800, 0.01), 0, 1)
	var plainErr, corrErr float64
	for seed := range uint64(3) {
		d := sample(t, lorenz, ics, grid(800, 0.01), 0, 1)
		rng := rand.New(rand.NewPCG(seed, 14))
		sd := 0.05 * math.Sqrt(stat.Mean(sq(clean.States[2]), nil))
		for i := range d.States[2] {
			d.States[2][i] += sd * rng.NormFloat64()
		}
		for _, plain := range []bool{true, false} {
			res, err := Discover(context.Background(), d, Settings{Seed: 1, NoNoiseCorrection: plain})
			if err != nil {
				t.Fatal(err)
			}
			e := math.Abs(res.Equations[1].Coefficients["y"] + 1)
			if plain {
				plainErr += e / 3
			} else {
				corrErr += e / 3
			}
		}
	}
	if corrErr > 0.1 || corrErr > plainErr/2 {
		t.Errorf("mean |error| of dy/dt's y coefficient: corrected %.3f, plain %.3f; want corrected ≤ 0.1 and at most half of plain", corrErr, plainErr)
	}
	t.Logf("mean |error| of the y coefficient: corrected %.3f, plain %.3f", corrErr, plainErr)
}

func TestNoiseSDOnUnevenSamples(t *testing.T) {
	ts := unevenGrid(2000, 0.01, 15)
	rng := rand.New(rand.NewPCG(16, 16))
	s := segment{t: ts, x: make([][]float64, len(ts))}
	for i, v := range ts {
		s.x[i] = []float64{math.Sin(3*v) + 0.05*rng.NormFloat64(), math.Cos(v)}
	}
	sd := noiseSD(s)
	if math.Abs(sd[0]-0.05) > 0.005 || sd[1] > 1e-4 {
		t.Errorf("noise estimates %v, want about [0.05 0]", sd)
	}
}
