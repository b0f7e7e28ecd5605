// Package dynamicstest generates trajectories of a known system for the
// tests of engine/dynamics' callers (the engine's dynamics mode and the
// end-to-end tests), so that they fit the same data.
package dynamicstest

import (
	"math"
	"math/rand"
	"strconv"
	"strings"

	"github.com/discolab/disco/engine/dynamics"
)

// Table is a column-major table of numbers.
type Table struct {
	Names   []string
	Columns [][]float64
}

// CSV is the table as CSV with a header row, every value printed exactly.
func (t Table) CSV() []byte {
	var b strings.Builder
	b.WriteString(strings.Join(t.Names, ",") + "\n")
	for i := range t.Columns[0] {
		for j, col := range t.Columns {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatFloat(col[i], 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// LotkaVolterraRows is the number of samples of each trajectory of
// LotkaVolterra.
const LotkaVolterraRows = 120

// LotkaVolterra holds trajectories of dx/dt = x − 0.5·x·y,
// dy/dt = 0.25·x·y − 0.75·y from eight initial conditions,
// LotkaVolterraRows samples each at Δt = 0.08 and in order, with Gaussian
// noise of noise·RMS per state drawn from seed, as columns traj (0 to 7),
// t, x and y.
func LotkaVolterra(noise float64, seed int64) (Table, error) {
	rhs := func(_ float64, x, dx []float64) {
		dx[0] = x[0] - 0.5*x[0]*x[1]
		dx[1] = 0.25*x[0]*x[1] - 0.75*x[1]
	}
	times := make([]float64, LotkaVolterraRows)
	for i := range times {
		times[i] = 0.08 * float64(i)
	}
	var traj, tm, x, y []float64
	for k, x0 := range [][]float64{{2, 1}, {4, 1.5}, {1, 3}, {3, 2.5}, {2.5, 0.8}, {1.5, 2}, {5, 2}, {3.5, 1}} {
		path, err := dynamics.Integrate(rhs, x0, times, dynamics.IntegrateOptions{RelTol: 1e-10, AbsTol: 1e-12})
		if err != nil {
			return Table{}, err
		}
		for i, p := range path {
			traj, tm = append(traj, float64(k)), append(tm, times[i])
			x, y = append(x, p[0]), append(y, p[1])
		}
	}
	rng := rand.New(rand.NewSource(seed))
	for _, col := range [][]float64{x, y} {
		rms := 0.0
		for _, v := range col {
			rms += v * v
		}
		rms = math.Sqrt(rms / float64(len(col)))
		for i := range col {
			col[i] += noise * rms * rng.NormFloat64()
		}
	}
	return Table{Names: []string{"traj", "t", "x", "y"}, Columns: [][]float64{traj, tm, x, y}}, nil
}
