package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/engine/dynamics"
	"github.com/discolab/disco/engine/dynamics/dynamicstest"
)

// lotkaVolterraFrame is dynamicstest.LotkaVolterra as a frame.
func lotkaVolterraFrame(t *testing.T, noise float64, seed int64) *data.Frame {
	t.Helper()
	lv, err := dynamicstest.LotkaVolterra(noise, seed)
	if err != nil {
		t.Fatal(err)
	}
	return frameOf(t, lv.Names, lv.Columns...)
}

func dynamicsSpec(constraints ...string) Spec {
	return Spec{Mode: ModeSymbolic, Seed: 1, Parameters: Parameters{Constraints: constraints}}
}

// lawClaims returns the law claims of res by target.
func lawClaims(res *Result) map[string]Claim {
	out := map[string]Claim{}
	for _, c := range res.Claims {
		if c.Type == ClaimLaw {
			out[c.Target] = c
		}
	}
	return out
}

func TestDynamicsLotkaVolterra(t *testing.T) {
	f := lotkaVolterraFrame(t, 0.01, 1)
	rec := &recorder{}
	res, err := Discover(context.Background(), f, dynamicsSpec("time:t", "trajectory:traj", "dynamics:x,y"), rec)
	if err != nil {
		t.Fatal(err)
	}
	rec.check(t, ModeSymbolic)
	laws := lawClaims(res)
	want := map[string][]string{"dx/dt": {"x", "x*y"}, "dy/dt": {"x*y", "y"}}
	if len(laws) != len(want) {
		t.Fatalf("law claims %v, want targets dx/dt and dy/dt", laws)
	}
	for target, terms := range want {
		c, ok := laws[target]
		if !ok {
			t.Fatalf("no law claim for %s: %v", target, laws)
		}
		got := make([]string, 0, len(c.Evidence.TermInclusion))
		for term := range c.Evidence.TermInclusion {
			got = append(got, term)
		}
		slices.Sort(got)
		if !slices.Equal(got, terms) {
			t.Errorf("%s = %s: terms %v, want %v", target, c.Expression, got, terms)
		}
		ev := c.Evidence
		if !ev.NegativeControlsPassed || len(ev.NegativeControls) != 2 {
			t.Errorf("%s = %s: controls %v, want both dynamics controls passed", target, c.Expression, ev.NegativeControls)
		}
		if *ev.RSquared < 0.9 || *ev.SimulationHorizon < 3**ev.PersistenceHorizon || ev.BootstrapStability < 0.6 || c.Score <= 0.5 {
			t.Errorf("%s = %s: evidence %+v, score %v", target, c.Expression, ev, c.Score)
		}
		// the held-out trajectories' fit is reported (engine/dynamics' held-out fit)
		if ev.HeldOutRSquared == nil || *ev.HeldOutRSquared < 0.9 {
			t.Errorf("%s = %s: held_out_r_squared %v, want at least 0.9", target, c.Expression, ev.HeldOutRSquared)
		}
		if strings.Contains(c.Summary, "fitted and simulated on") {
			t.Errorf("%s: summary %q names a sample, but every row was fitted on", target, c.Summary)
		}
		if c.Scope.Variables[0] != strings.TrimSuffix(strings.TrimPrefix(target, "d"), "/dt") {
			t.Errorf("%s: scope variables %v start with another state", target, c.Scope.Variables)
		}
	}
	plotted := false
	for _, a := range res.Artifacts {
		if a.Name == "dynamics-simulation.svg" {
			plotted = a.Kind == KindPlot && a.Size > 0 && a.Size < 1<<20 && strings.Contains(string(a.Content), "<svg")
		}
	}
	if !plotted {
		t.Error("no bounded dynamics-simulation.svg plot among the artifacts")
	}
	if !slices.Equal(res.Summary.Targets, []string{"x", "y"}) || len(res.Summary.Features) != 0 {
		t.Errorf("summary targets %v, features %v; want states x, y and no inputs", res.Summary.Targets, res.Summary.Features)
	}
}

// Independent random walks follow no equation of motion: no law claim may
// pass its controls.
func TestDynamicsRandomWalksGiveNoPassingClaim(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	var traj, tm, a, b []float64
	for k := range 4 {
		va, vb := rng.NormFloat64(), rng.NormFloat64()
		for i := range 120 {
			va, vb = va+0.3*rng.NormFloat64(), vb+0.3*rng.NormFloat64()
			traj, tm, a, b = append(traj, float64(k)), append(tm, 0.1*float64(i)), append(a, va), append(b, vb)
		}
	}
	f := frameOf(t, []string{"traj", "t", "a", "b"}, traj, tm, a, b)
	res, err := Discover(context.Background(), f, dynamicsSpec("time:t", "trajectory:traj", "dynamics:a,b"), nil)
	if err != nil {
		t.Fatal(err)
	}
	noPassingLaw(t, res)
}

// noPassingLaw fails when a law claim of res passed any control.
func noPassingLaw(t *testing.T, res *Result) {
	t.Helper()
	laws := lawClaims(res)
	if len(laws) != 2 {
		t.Fatalf("law claims %v, want one per state", laws)
	}
	for target, c := range laws {
		if c.Evidence.NegativeControlsPassed || c.Score > 0.5 {
			t.Errorf("%s = %s passed: %+v, score %v", target, c.Expression, c.Evidence.NegativeControls, c.Score)
		}
		for name, r := range c.Evidence.NegativeControls {
			if r.Passed {
				t.Errorf("%s: control %s passed", target, name)
			}
		}
	}
}

// Time-shuffled states carry no equation of motion: no law claim may pass
// its controls.
func TestDynamicsTimeShuffledDataGivesNoPassingClaim(t *testing.T) {
	f := lotkaVolterraFrame(t, 0.01, 2)
	rng := rand.New(rand.NewSource(3))
	x, _ := f.Column("x")
	y, _ := f.Column("y")
	n := dynamicstest.LotkaVolterraRows
	for k := 0; k < f.Rows; k += n {
		perm := rng.Perm(n)
		xs, ys := slices.Clone(x.Values[k:k+n]), slices.Clone(y.Values[k:k+n])
		for i, p := range perm {
			x.Values[k+i], y.Values[k+i] = xs[p], ys[p]
		}
	}
	res, err := Discover(context.Background(), f, dynamicsSpec("time:t", "trajectory:traj", "dynamics:x,y"), nil)
	if err != nil {
		t.Fatal(err)
	}
	noPassingLaw(t, res)
}

func TestDynamicsSpecErrors(t *testing.T) {
	lv := lotkaVolterraFrame(t, 0, 1)
	withLabel := func() *data.Frame {
		f := &data.Frame{Rows: lv.Rows, Columns: slices.Clone(lv.Columns)}
		labels := make([]string, f.Rows)
		for i := range labels {
			labels[i] = fmt.Sprint("s", i)
		}
		return withColumn(f, data.Column{Name: "label", DType: data.String, Strings: labels})
	}
	short := lotkaVolterraFrame(t, 0, 1).Slice(shortTrajectoryRows())
	// 1,000 more columns: more states and inputs than Discover takes
	wide := &data.Frame{Rows: lv.Rows, Columns: slices.Clone(lv.Columns)}
	for j := range 1000 {
		wide = withColumn(wide, data.Column{Name: fmt.Sprint("u", j), DType: data.Float64, Values: make([]float64, lv.Rows)})
	}
	firstRepeat := fmt.Sprintf("rows 1 and %d ", dynamicstest.LotkaVolterraRows+1)
	cases := []struct {
		name  string
		frame *data.Frame
		spec  Spec
		// names are the words the message must contain: the column at
		// fault and the fix.
		names []string
		code  string
	}{
		{"no time", lv, dynamicsSpec("trajectory:traj", "dynamics:x,y"), []string{"dynamics:x,y", "time:<column>"}, CodeConstraintInvalid},
		{"empty state list", lv, dynamicsSpec("time:t", "dynamics:"), []string{"dynamics:x,y"}, CodeConstraintInvalid},
		{"only commas", lv, dynamicsSpec("time:t", "dynamics: , ,"), []string{"names no state"}, CodeConstraintInvalid},
		{"duplicate state", lv, dynamicsSpec("time:t", "dynamics:x,y,x"), []string{`"x"`, "twice"}, CodeConstraintInvalid},
		{"state not a column", lv, dynamicsSpec("time:t", "dynamics:x,z"), []string{`"z"`, "not a column"}, CodeConstraintInvalid},
		{"state not numeric", withLabel(), dynamicsSpec("time:t", "trajectory:traj", "dynamics:x,label"), []string{`"label"`, "not numeric"}, CodeConstraintInvalid},
		{"time not numeric", withLabel(), dynamicsSpec("time:label", "dynamics:x,y"), []string{`"label"`, "numeric times"}, CodeConstraintInvalid},
		// the first repeat in row order: the second trajectory's first row
		{"time repeats without trajectory", lv, dynamicsSpec("time:t", "dynamics:x,y"), []string{`"t"`, "trajectory:<column>", firstRepeat}, CodeConstraintInvalid},
		{"time repeats within a trajectory", withColumn(lv, data.Column{Name: "batch", DType: data.Float64, Values: make([]float64, lv.Rows)}),
			dynamicsSpec("time:t", "trajectory:batch", "dynamics:x,y"), []string{`"t"`, `trajectory "0"`, "its own time", firstRepeat}, CodeConstraintInvalid},
		{"too many states and inputs", wide, dynamicsSpec("time:t", "trajectory:traj", "dynamics:x,y"), []string{"dynamics:", "1002 states and inputs, at most 1000", "include:"}, CodeConstraintInvalid},
		{"state is the time", lv, dynamicsSpec("time:t", "dynamics:t,x"), []string{`"t"`, "time column"}, CodeConstraintInvalid},
		{"state excluded", lv, dynamicsSpec("time:t", "trajectory:traj", "exclude:y", "dynamics:x,y"), []string{`"y"`, "exclude"}, CodeConstraintInvalid},
		{"neural mode", lv, Spec{Mode: ModeNeural, Parameters: Parameters{Constraints: []string{"time:t", "dynamics:x,y"}}}, []string{"mode symbolic"}, CodeConstraintInvalid},
		{"target not a state", lv, Spec{Mode: ModeSymbolic, Targets: []string{"traj"}, Parameters: Parameters{Constraints: []string{"time:t", "trajectory:traj", "dynamics:x,y"}}},
			[]string{`"traj"`, "target_variables empty"}, CodeParameterInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.spec.Validate(tc.frame)
			checkSpecError(t, err, tc.code, tc.names)
			// What the facade checks without the data fails the same way
			// when the column names suffice.
			if perr := tc.spec.ValidateParameters(tc.frame.Names()); perr != nil {
				checkSpecError(t, perr, tc.code, tc.names)
			}
			if _, err := Discover(context.Background(), tc.frame, tc.spec, nil); err == nil {
				t.Error("Discover ran a spec that Validate refuses")
			}
		})
	}
	// A trajectory too short for engine/dynamics is a SpecError of the run.
	spec := dynamicsSpec("time:t", "trajectory:traj", "dynamics:x,y")
	if err := spec.Validate(short); err != nil {
		t.Fatalf("short trajectories: Validate: %v", err)
	}
	_, err := Discover(context.Background(), short, spec, nil)
	checkSpecError(t, err, CodeConstraintInvalid, []string{"dynamics:", "rows", "longer or more trajectories"})
}

// shortTrajectoryRows keeps the first 6 rows of each of the 8 trajectories
// of lotkaVolterraFrame: too few for one weak-form test function.
func shortTrajectoryRows() []int {
	var rows []int
	for k := range 8 {
		for i := range 6 {
			rows = append(rows, dynamicstest.LotkaVolterraRows*k+i)
		}
	}
	return rows
}

func withColumn(f *data.Frame, c data.Column) *data.Frame {
	return &data.Frame{Rows: f.Rows, Columns: append(slices.Clone(f.Columns), c)}
}

func checkSpecError(t *testing.T, err error, code string, words []string) {
	t.Helper()
	var se *SpecError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T), want a *SpecError", err, err)
	}
	if se.Code != code {
		t.Errorf("code %s, want %s (%v)", se.Code, code, se)
	}
	for _, w := range words {
		if !strings.Contains(se.Message, w) {
			t.Errorf("message %q does not say %q", se.Message, w)
		}
	}
}

// A run without dynamics: keeps the symbolic law search.
func TestDynamicsConstraintAbsentKeepsLawSearch(t *testing.T) {
	f := lotkaVolterraFrame(t, 0, 1)
	spec := Spec{Mode: ModeSymbolic, Targets: []string{"y"}, Seed: 1, Parameters: Parameters{Epochs: 5, Constraints: []string{"time:t", "exclude:traj"}}}
	res, err := Discover(context.Background(), f, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Claims {
		if c.Type == ClaimLaw && c.Target != "y" {
			t.Errorf("law claim of %q in a run without dynamics:", c.Target)
		}
		if c.Evidence.SimulationHorizon != nil {
			t.Errorf("claim %q carries dynamics evidence", c.Summary)
		}
	}
}

// An equation that fails engine/dynamics' acceptance rule fails both of
// its controls, even when it beats every time-shuffled refit.
func TestDynamicsClaimFailingAcceptanceFailsItsControls(t *testing.T) {
	m := &dynamicsMode{&runner{
		plan: &plan{constraints: &Constraints{}, targets: []string{"x"}},
		data: &dataset{frame: frameOf(t, []string{"x"}, []float64{1, 2, 3})},
	}}
	nulls := make([]shuffled, timeShuffles)
	for k := range nulls {
		nulls[k] = shuffled{cvR2: []float64{0.1}, nrmse: 1.4}
	}
	for _, passed := range []bool{true, false} {
		res := dynamics.Result{
			Equations: []dynamics.Equation{{State: "x", Target: "dx/dt", Expression: "-x", Coefficients: map[string]float64{"x": -1},
				CVR2: 0.99, Stability: 1, Passed: passed}},
			Simulation: dynamics.Simulation{NRMSE: 0.05, Horizon: 5, PersistenceHorizon: 0.5},
		}
		c := m.claim(res, 0, nulls, true)
		for name, r := range c.Evidence.NegativeControls {
			if r.Passed != passed || r.PValue != 0.05 {
				t.Errorf("acceptance %v: control %s = %+v, want passed %v at p = 0.05", passed, name, r, passed)
			}
		}
		if c.Evidence.NegativeControlsPassed != passed || (c.Score > 0.5) != passed {
			t.Errorf("acceptance %v: controls passed %v, score %v", passed, c.Evidence.NegativeControlsPassed, c.Score)
		}
	}
}

// The plot of a held-out piece longer than the integrator's step limit
// (100000 steps) draws at most about maxPlotSamples rows per state, and the
// simulated line reaches the last of them, following the true solution.
func TestDynamicsPlotSeriesBoundedOnLongTrajectories(t *testing.T) {
	const n = 500_000 // one trajectory: its last quarter, 125000 rows, is held out
	traj := dynamics.Trajectories{Time: make([]float64, n), StateNames: []string{"x"}, States: [][]float64{make([]float64, n)}}
	for i := range n {
		tm := 1e-4 * float64(i)
		traj.Time[i], traj.States[0][i] = tm, 2*math.Exp(-0.1*tm)
	}
	res := dynamics.Result{Equations: []dynamics.Equation{{State: "x", Target: "dx/dt", Coefficients: map[string]float64{"x": -0.1}}}}
	observed, simulated, ok := dynamicsSeries(traj, res)
	if !ok {
		t.Fatal("nothing to draw")
	}
	obs, sim := observed[0], simulated[0]
	if len(obs) < maxPlotSamples || len(obs) > 2*maxPlotSamples {
		t.Fatalf("%d observed points drawn, want between %d and %d", len(obs), maxPlotSamples, 2*maxPlotSamples)
	}
	if obs[0].X != traj.Time[n*3/4] || obs[len(obs)-1].X < traj.Time[n-1]-0.1 {
		t.Errorf("observed points span %v..%v, want the held-out last quarter %v..%v", obs[0].X, obs[len(obs)-1].X, traj.Time[n*3/4], traj.Time[n-1])
	}
	if len(sim) != len(obs) {
		t.Fatalf("%d simulated points for %d observed: the simulation stopped at %v of %v", len(sim), len(obs), sim[len(sim)-1].X, obs[len(obs)-1].X)
	}
	for k, p := range sim {
		if p.X != obs[k].X || math.Abs(p.Y-obs[k].Y) > 1e-4 {
			t.Fatalf("simulated point %d = %v, observed %v", k, p, obs[k])
		}
	}
}

// Past the row rule's bound (lowered here from 100,000 to 4,000 rows) a
// dynamics claim says how many rows it was fitted and simulated on, and
// reports its fit on every other row.
func TestDynamicsClaimsNameTheirSample(t *testing.T) {
	defer func(old int) { dynamicsMaxRows = old }(dynamicsMaxRows)
	dynamicsMaxRows = 4000
	times := make([]float64, 500)
	for i := range times {
		times[i] = float64(i) * 0.01
	}
	var tc, traj, xs, ys []float64
	for k := range 16 {
		x0 := []float64{1 + float64(k%5), -1 + float64(k%3)}
		path, err := dynamics.Integrate(func(_ float64, x, dx []float64) { dx[0] = -0.5*x[0] + x[1]; dx[1] = -x[0] - 0.3*x[1] },
			x0, times, dynamics.IntegrateOptions{RelTol: 1e-10, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range path {
			tc, traj, xs, ys = append(tc, times[i]), append(traj, float64(k)), append(xs, p[0]), append(ys, p[1])
		}
	}
	f := frameOf(t, []string{"t", "traj", "x", "y"}, tc, traj, xs, ys)
	res, err := Discover(context.Background(), f, dynamicsSpec("time:t", "trajectory:traj", "dynamics:x,y"), nil)
	if err != nil {
		t.Fatal(err)
	}
	laws := lawClaims(res)
	for _, target := range []string{"dx/dt", "dy/dt"} {
		c, ok := laws[target]
		if !ok {
			t.Fatalf("no claim for %s: %v", target, laws)
		}
		if !strings.Contains(c.Summary, "fitted and simulated on 4000 of 8000 rows") {
			t.Errorf("%s: summary %q does not name the sample", target, c.Summary)
		}
		if h := c.Evidence.HeldOutRSquared; h == nil || *h < 0.99 {
			t.Errorf("%s = %s: held_out_r_squared %v, want ≥ 0.99 on the rows left out", target, c.Expression, h)
		}
	}
}

// A dynamics run over more columns than one library of degree 2 holds (2
// states and 16 inputs) screens each state's library; the claims pass and
// say which columns each library was built from.
func TestDynamicsScreensManyColumns(t *testing.T) {
	times := make([]float64, 400)
	for i := range times {
		times[i] = float64(i) * 0.01
	}
	names := []string{"t", "traj", "x", "y"}
	cols := make([][]float64, 4+16)
	for k := range 8 {
		x0 := []float64{1 + float64(k%5), -1 + float64(k%3)}
		path, err := dynamics.Integrate(func(_ float64, x, dx []float64) { dx[0] = -0.5*x[0] + x[1]; dx[1] = -x[0] - 0.3*x[1] },
			x0, times, dynamics.IntegrateOptions{RelTol: 1e-10, AbsTol: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range path {
			cols[0], cols[1] = append(cols[0], times[i]), append(cols[1], float64(k))
			cols[2], cols[3] = append(cols[2], p[0]), append(cols[3], p[1])
			for j := range 16 {
				cols[4+j] = append(cols[4+j], math.Sin((0.5+0.3*float64(j))*times[i]+float64(k*j)))
			}
		}
	}
	for j := range 16 {
		names = append(names, fmt.Sprint("u", j))
	}
	f := frameOf(t, names, cols...)
	res, err := Discover(context.Background(), f, dynamicsSpec("time:t", "trajectory:traj", "dynamics:x,y"), nil)
	if err != nil {
		t.Fatal(err)
	}
	laws := lawClaims(res)
	for target, want := range map[string]string{"dx/dt": "-0.5*x + y", "dy/dt": "-x - 0.3*y"} {
		c, ok := laws[target]
		if !ok {
			t.Fatalf("no claim for %s: %v", target, laws)
		}
		if !c.Evidence.NegativeControlsPassed {
			t.Errorf("%s = %s (want %s) did not pass: %s", target, c.Expression, want, c.Summary)
		}
		if !strings.Contains(c.Summary, "linear screen") || !strings.Contains(c.Summary, "the library of "+target+": x, y, u") {
			t.Errorf("%s: summary %q does not say its library was screened to x, y and others", target, c.Summary)
		}
	}
}

// Trajectories are numbered in order of first appearance, with labels
// printed as before per row: NaN rows share one trajectory "NaN", as they
// share the printed label.
func TestTrajectoryIDs(t *testing.T) {
	num := &data.Column{Name: "traj", DType: data.Float64, Values: []float64{2, 2, 0.5, 2, math.NaN(), math.NaN()}}
	ids, labels := trajectoryIDs(num, 6)
	if !slices.Equal(ids, []int32{0, 0, 1, 0, 2, 2}) || !slices.Equal(labels, []string{"2", "0.5", "NaN"}) {
		t.Errorf("numeric: ids %v labels %q", ids, labels)
	}
	text := &data.Column{Name: "traj", DType: data.String, Strings: []string{"b", "a", "b"}}
	if got := trajectoryLabels(text, 3); !slices.Equal(got, []string{"b", "a", "b"}) {
		t.Errorf("text: labels %q", got)
	}
}
