package engine

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/discolab/disco/engine/dynamics"
)

// maxPlotSamples bounds the rows drawn per state, so the plot stays a few
// hundred kilobytes whatever the length of the trajectory.
const maxPlotSamples = 400

// plotDynamics adds "dynamics-simulation.svg": the states of one held-out
// trajectory (the one engine/dynamics holds out first: the fourth of at
// least four, else the last quarter of the first) as points, and the
// discovered system integrated from its first row as lines. Runs with
// inputs get no plot: simulating them needs the inputs between samples.
// Best effort, like every artifact.
func (m *dynamicsMode) plotDynamics(traj dynamics.Trajectories, res dynamics.Result) {
	observed, simulated, ok := dynamicsSeries(traj, res)
	if !ok {
		return
	}
	p := plot.New()
	p.Title.Text = "held-out trajectory: observed (points) and simulated (lines)"
	p.X.Label.Text = m.plan.constraints.Time
	for s, name := range traj.StateNames {
		if err := addSeries(p, name, observed[s], simulated[s], plotutil.Color(s)); err != nil {
			return
		}
	}
	w, err := p.WriterTo(5*vg.Inch, 4*vg.Inch, "svg")
	if err != nil {
		return
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil {
		return
	}
	m.result.Artifacts = append(m.result.Artifacts,
		NewArtifact("dynamics-simulation.svg", KindPlot, "image/svg+xml", buf.Bytes()))
}

// dynamicsSeries returns, per state, the points plotDynamics draws: the
// held-out rows, every len/maxPlotSamples-th of them, as observed, and the
// discovered system integrated from the first of them to the same times
// as simulated (finite values only; a diverging simulation stops at ten
// times the largest observed magnitude). Only the drawn times are
// integrated to: the integrator lands on every output time, so one per
// row would cost a step per row and, past its step limit, cut the line
// short. ok is false when there is nothing to draw.
func dynamicsSeries(traj dynamics.Trajectories, res dynamics.Result) (observed, simulated []plotter.XYs, ok bool) {
	if len(traj.Inputs) > 0 {
		return nil, nil, false
	}
	rows := heldOutRows(traj)
	if len(rows) < 2 {
		return nil, nil, false
	}
	names := traj.StateNames
	type law struct {
		coef    float64
		factors []termFactor
	}
	laws := make([][]law, len(res.Equations))
	for s, eq := range res.Equations {
		for name, c := range eq.Coefficients {
			factors, ok := parseTerm(name, names)
			if !ok {
				return nil, nil, false
			}
			laws[s] = append(laws[s], law{c, factors})
		}
	}
	bound := 0.0
	for _, i := range rows {
		for s := range names {
			bound = math.Max(bound, 10*math.Abs(traj.States[s][i]))
		}
	}
	step := max(1, len(rows)/maxPlotSamples)
	var drawn []int
	for k := 0; k < len(rows); k += step {
		drawn = append(drawn, rows[k])
	}
	times := make([]float64, len(drawn))
	for k, i := range drawn {
		times[k] = traj.Time[i]
	}
	x0 := make([]float64, len(names))
	for s := range names {
		x0[s] = traj.States[s][drawn[0]]
	}
	rhs := func(_ float64, x, dx []float64) {
		for s, terms := range laws {
			dx[s] = 0
			for _, t := range terms {
				dx[s] += t.coef * evalTerm(t.factors, x)
			}
		}
	}
	// A diverging simulation stops at the bound; what it drew until then is
	// still the evidence.
	path, _ := dynamics.Integrate(rhs, x0, times, dynamics.IntegrateOptions{Bound: bound})
	observed, simulated = make([]plotter.XYs, len(names)), make([]plotter.XYs, len(names))
	for s := range names {
		for k, i := range drawn {
			observed[s] = append(observed[s], plotter.XY{X: times[k], Y: traj.States[s][i]})
		}
		for k, x := range path {
			if v := x[s]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				simulated[s] = append(simulated[s], plotter.XY{X: times[k], Y: v})
			}
		}
	}
	return observed, simulated, true
}

// addSeries draws one state's observed points and simulated line.
func addSeries(p *plot.Plot, name string, observed, simulated plotter.XYs, c color.Color) error {
	points, err := plotter.NewScatter(observed)
	if err != nil {
		return err
	}
	points.Color = c
	points.Radius = vg.Points(1.5)
	p.Add(points)
	p.Legend.Add(fmt.Sprintf("%s observed", name), points)
	if len(simulated) < 2 {
		return nil
	}
	line, err := plotter.NewLine(simulated)
	if err != nil {
		return err
	}
	line.Color = c
	p.Add(line)
	p.Legend.Add(fmt.Sprintf("%s simulated", name), line)
	return nil
}

// heldOutRows are the rows, sorted by time, of the first piece
// engine/dynamics holds out: the fourth trajectory (in order of first
// appearance) when there are at least four, else the last quarter of the
// first.
func heldOutRows(traj dynamics.Trajectories) []int {
	order, groups := trajectoryGroups(traj)
	if len(order) == 0 {
		return nil
	}
	pick := order[0]
	if len(order) >= 4 {
		pick = order[3]
	}
	rows := groups[pick]
	slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(traj.Time[a], traj.Time[b]) })
	if len(order) < 4 {
		rows = rows[len(rows)*3/4:]
	}
	return rows
}

// trajectoryGroups returns the trajectory labels in order of first
// appearance and the rows of each.
func trajectoryGroups(traj dynamics.Trajectories) (order []string, groups map[string][]int) {
	groups = map[string][]int{}
	for i := range traj.Time {
		label := ""
		if traj.Trajectory != nil {
			label = traj.Trajectory[i]
		}
		if _, ok := groups[label]; !ok {
			order = append(order, label)
		}
		groups[label] = append(groups[label], i)
	}
	return order, groups
}
