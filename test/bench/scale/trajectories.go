package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/test/bench"
)

// trajectorySamples is the length of each trajectory of dynamicsTable; more
// rows are more trajectories.
const trajectorySamples = 500

// oscillatorTrajectories is the number of trajectories of oscillatorTable;
// more rows are longer trajectories.
const oscillatorTrajectories = 8

// oscillatorNoise is the noise level of oscillatorTable.
const oscillatorNoise = 0.001

// oscillatorTable holds cols state columns of independent harmonic
// oscillators, x_k” = −ω_k² x_k with ω_k = 1 + k/2, as pairs (x_k, v_k), and,
// when cols is odd, a last column of independent N(0, 1) noise that nothing
// conserves. Rows are oscillatorTrajectories trajectories of rows/8 samples
// at Δt = 0.05 from seeded amplitudes and phases, so every oscillator's
// energy ω_k² x_k²/2 + v_k²/2 is conserved along a trajectory and differs
// between trajectories. The states are exact (no integrator) plus Gaussian
// noise of oscillatorNoise × each column's RMS. It returns the names, the
// noisy columns, the trajectory column ("traj", last) and the clean
// columns at most scoredRows evenly spaced rows long (for scoring, so that
// the child's peak memory holds the table once).
func oscillatorTable(rows, cols int, seed uint64) (names []string, noisy, clean [][]float64) {
	var states [][]float64
	r := rand.New(rand.NewPCG(seed, 11))
	osc := max(cols/2, 1)
	per := max(rows/oscillatorTrajectories, 5)
	n := per * oscillatorTrajectories
	traj := make([]float64, n)
	for k := range osc {
		ks := strconv.Itoa(k)
		names = append(names, "x"+ks, "v"+ks)
		states = append(states, make([]float64, n), make([]float64, n))
	}
	for tr := range oscillatorTrajectories {
		for k := range osc {
			w := 1 + float64(k)/2
			amp, phase := 0.5+2*r.Float64(), 2*math.Pi*r.Float64()
			x, v := states[2*k], states[2*k+1]
			for i := range per {
				t := 0.05 * float64(i)
				x[tr*per+i] = amp * math.Cos(w*t+phase)
				v[tr*per+i] = -amp * w * math.Sin(w*t+phase)
			}
		}
		for i := range per {
			traj[tr*per+i] = float64(tr)
		}
	}
	if cols%2 == 1 && cols > 1 {
		z := make([]float64, n)
		for i := range z {
			z[i] = r.NormFloat64()
		}
		names, states = append(names, "z"), append(states, z)
	}
	step := max(1, n/scoredRows)
	clean = make([][]float64, len(states))
	for j, c := range states {
		for i := 0; i < n; i += step {
			clean[j] = append(clean[j], c[i])
		}
	}
	addNoise(states, oscillatorNoise, r)
	return append(names, "traj"), append(states, traj), clean
}

// addNoise adds Gaussian noise of level·RMS of each column to cols, in
// place.
func addNoise(cols [][]float64, level float64, r *rand.Rand) {
	for _, c := range cols {
		var ss float64
		for _, v := range c {
			ss += v * v
		}
		rms := math.Sqrt(ss / float64(len(c)))
		for i := range c {
			c[i] += level * rms * r.NormFloat64()
		}
	}
}

// scoredRows bounds the clean rows oscillatorTable keeps for scoring.
const scoredRows = 100000

// oscillatorEnergies scores found conserved quantities against the true
// ones, each oscillator's energy: an expression counts as a true one when
// it is an affine function of some oscillator's energy on the clean states
// (R² ≥ 0.99; scale and offset are arbitrary), as test/bench's conservation
// benchmark judges. It returns how many distinct energies were found.
func oscillatorEnergies(coefs []map[string]float64, names []string, clean [][]float64) int {
	osc := len(clean) / 2
	energy := make([][]float64, osc)
	for k := range osc {
		w := 1 + float64(k)/2
		x, v := clean[2*k], clean[2*k+1]
		energy[k] = make([]float64, len(x))
		for i := range x {
			energy[k][i] = w*w*x[i]*x[i]/2 + v[i]*v[i]/2
		}
	}
	found := map[int]bool{}
	for _, c := range coefs {
		vals, err := bench.QuantityValues(c, names[:len(clean)], clean)
		if err != nil {
			continue
		}
		for k, e := range energy {
			if bench.AffineR2(vals, e) >= 0.99 {
				found[k] = true
			}
		}
	}
	return len(found)
}

// dynamicsSystem is ẋ = A·x on n states x0..x(n−1): a damped chain,
// ẋ_i = −d_i·x_i + w·(x_{i+1} − x_{i−1}) (neighbours that exist), with
// d_i = 0.3 + 0.1·(i mod 3) and w = 1. Its skew-symmetric part turns the
// state, the diagonal damps it, so every equation has two or three terms.
func dynamicsSystem(n int) *mat.Dense {
	A := mat.NewDense(n, n, nil)
	for i := range n {
		A.Set(i, i, -(0.3 + 0.1*float64(i%3)))
		if i+1 < n {
			A.Set(i, i+1, 1)
		}
		if i > 0 {
			A.Set(i, i-1, -1)
		}
	}
	return A
}

// dynamicsTable holds rows samples of dynamicsSystem(cols): max(8,
// rows/trajectorySamples) trajectories of equal length at Δt = 0.01 from
// seeded N(0, 1) initial states, exact (x_{k+1} = e^{AΔt}·x_k) plus Gaussian
// noise of 1 % of each state's RMS. It returns the names, then the columns
// states, "t" and "traj".
func dynamicsTable(rows, cols int, seed uint64) ([]string, [][]float64) {
	r := rand.New(rand.NewPCG(seed, 13))
	ntraj := max(8, rows/trajectorySamples)
	per := max(rows/ntraj, 7)
	n := ntraj * per
	A := dynamicsSystem(cols)
	var step mat.Dense
	step.Scale(0.01, A)
	step.Exp(&step)
	names := make([]string, 0, cols+2)
	states := make([][]float64, cols)
	for j := range cols {
		names = append(names, "x"+strconv.Itoa(j))
		states[j] = make([]float64, n)
	}
	tm, traj := make([]float64, n), make([]float64, n)
	x := mat.NewVecDense(cols, nil)
	var next mat.VecDense
	for tr := range ntraj {
		for j := range cols {
			x.SetVec(j, r.NormFloat64())
		}
		for i := range per {
			row := tr*per + i
			tm[row], traj[row] = 0.01*float64(i), float64(tr)
			for j := range cols {
				states[j][row] = x.AtVec(j)
			}
			next.MulVec(&step, x)
			x.CopyVec(&next)
		}
	}
	addNoise(states, 0.01, r)
	return append(names, "t", "traj"), slices.Concat(states, [][]float64{tm, traj})
}

// dynamicsScore judges the found right-hand sides (state name → expression)
// against dynamicsSystem(n), as test/bench/dynamics does: exact = the true
// terms and no others in every equation, every coefficient within 2 % of
// the truth. wrong counts missing plus extra terms; maxErr is the largest
// relative coefficient error over the true terms found.
func dynamicsScore(found map[string]string, n int) (exact bool, wrong int, maxErr float64) {
	A := dynamicsSystem(n)
	for i := range n {
		got := parseRHS(found["x"+strconv.Itoa(i)])
		for j := range n {
			want := A.At(i, j)
			name := "x" + strconv.Itoa(j)
			g, ok := got[name]
			delete(got, name)
			switch {
			case want == 0 && ok:
				wrong++
			case want != 0 && !ok:
				wrong++
			case want != 0:
				maxErr = math.Max(maxErr, math.Abs(g-want)/math.Abs(want))
			}
		}
		wrong += len(got) // terms that are not a single state
	}
	return wrong == 0 && maxErr <= 0.02, wrong, maxErr
}

// parseRHS reads an expression as engine/dynamics prints it, a sum of
// "c*term" and "term" with " + " and " - " between them, into term →
// coefficient; "0" is no term.
func parseRHS(expr string) map[string]float64 {
	out := map[string]float64{}
	expr = strings.TrimSpace(expr)
	if expr == "" || expr == "0" {
		return out
	}
	for _, part := range splitSum(expr) {
		sign := 1.0
		if rest, ok := strings.CutPrefix(part, "-"); ok {
			sign, part = -1, rest
		}
		coef, term := 1.0, part
		if head, tail, ok := strings.Cut(part, "*"); ok {
			if v, err := strconv.ParseFloat(head, 64); err == nil {
				coef, term = v, tail
			}
		} else if v, err := strconv.ParseFloat(part, 64); err == nil {
			coef, term = v, "1"
		}
		out[term] += sign * coef
	}
	return out
}

// splitSum splits a sum at its top-level " + " and " - " (not inside
// parentheses), a subtracted part getting a leading "-".
func splitSum(expr string) []string {
	var parts []string
	depth, start, sign := 0, 0, ""
	for i := 0; i+2 < len(expr); i++ {
		switch c := expr[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ' ' && depth == 0 && (expr[i+1] == '+' || expr[i+1] == '-') && expr[i+2] == ' ':
			parts = append(parts, sign+expr[start:i])
			sign = ""
			if expr[i+1] == '-' {
				sign = "-"
			}
			start = i + 3
			i += 2
		}
	}
	return append(parts, sign+expr[start:])
}

// conservationEpochs cuts the law search of the symbolic run the
// conservation search rides on (a symbolic run with a trajectory:
// constraint explains its target too), so that the point measures the
// conservation search; the law search's own cost is the symbolic points'.
const conservationEpochs = 20

// conservationSpec is a symbolic run over oscillatorTable's columns with
// trajectory:traj, explaining the first state.
func conservationSpec(names []string, seed int64, limit time.Duration) engine.Spec {
	return engine.Spec{Mode: engine.ModeSymbolic, Seed: seed, TimeLimit: limit, Targets: []string{names[0]},
		Parameters: engine.Parameters{Epochs: conservationEpochs, Constraints: []string{"trajectory:traj"}}}
}

// dynamicsSpec is a symbolic run with time:t, trajectory:traj and
// dynamics: over every state of dynamicsTable.
func dynamicsSpec(names []string, seed int64, limit time.Duration) engine.Spec {
	states := names[:len(names)-2]
	return engine.Spec{Mode: engine.ModeSymbolic, Seed: seed, TimeLimit: limit,
		Parameters: engine.Parameters{Constraints: []string{"time:t", "trajectory:traj", "dynamics:" + strings.Join(states, ",")}}}
}

// scoreConservation records how many conservation claims the run made,
// how many pass their controls (in Claims and Passed, which count every
// claim), and how many distinct oscillator energies the conservation
// claims hold ("energies_found", of "energies_true").
func scoreConservation(p *point, res *engine.Result, names []string, clean [][]float64) {
	var coefs []map[string]float64
	for _, c := range res.Claims {
		if c.Type != engine.ClaimConservation {
			continue
		}
		p.Extra["conservation_claims"]++
		if c.Evidence.NegativeControlsPassed {
			p.Extra["conservation_passing"]++
			coefs = append(coefs, parseRHS(c.Expression))
		}
	}
	p.Extra["energies_true"] = float64(len(clean) / 2)
	p.Extra["energies_found"] = float64(oscillatorEnergies(coefs, names, clean))
}

// scoreDynamics judges the run's dynamics claims (target "dx/dt") against
// dynamicsSystem(states): "exact" 1 or 0, "wrong_terms", "max_coef_err".
func scoreDynamics(p *point, res *engine.Result, states int) {
	found := map[string]string{}
	for _, c := range res.Claims {
		if c.Type == engine.ClaimLaw && strings.HasPrefix(c.Target, "d") && strings.HasSuffix(c.Target, "/dt") {
			found[strings.TrimSuffix(strings.TrimPrefix(c.Target, "d"), "/dt")] = c.Expression
		}
	}
	exact, wrong, maxErr := dynamicsScore(found, states)
	p.Extra["exact"] = 0
	if exact {
		p.Extra["exact"] = 1
	}
	p.Extra["wrong_terms"] = float64(wrong)
	p.Extra["max_coef_err"] = maxErr
}
