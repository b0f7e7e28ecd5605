package bench

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Rows is the number of rows of every generated table case.
const Rows = 1000

// Seed derives a deterministic seed from a case name, so every case is
// reproducible on its own whatever else is generated.
func Seed(name string, extra uint64) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() ^ (extra * 0x9e3779b97f4a7c15)
}

func newRand(name string, extra uint64) *rand.Rand {
	s := Seed(name, extra)
	return rand.New(rand.NewPCG(s, s>>1|1))
}

// Table is a generated dataset, column-major.
type Table struct {
	Names []string
	Cols  [][]float64
}

// WriteCSV writes t with a header row, numbers in their shortest exact form.
func (t *Table) WriteCSV(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	_, _ = w.WriteString(strings.Join(t.Names, ",") + "\n") // bufio errors stick; Flush reports them
	n := len(t.Cols[0])
	buf := make([]string, len(t.Cols))
	for i := 0; i < n; i++ {
		for j := range t.Cols {
			buf[j] = strconv.FormatFloat(t.Cols[j][i], 'g', -1, 64)
		}
		_, _ = w.WriteString(strings.Join(buf, ",") + "\n")
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func rms(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

// FeynmanTable samples Rows rows of eq's inputs from their ranges and
// computes the target y, adding Gaussian noise with σ = noise·RMS(y)
// (noise 0.01 is the benchmark's "1 %"). The inputs do not depend on the
// noise level: both noise levels of an equation share the same X.
func FeynmanTable(eq Equation, noise float64) *Table {
	r := newRand("feynman/"+eq.Name, 0)
	t := &Table{}
	for _, v := range eq.Vars {
		t.Names = append(t.Names, v.Name)
		t.Cols = append(t.Cols, make([]float64, Rows))
	}
	y := make([]float64, Rows)
	row := make([]float64, len(eq.Vars))
	for i := 0; i < Rows; i++ {
		for j, v := range eq.Vars {
			row[j] = v.Lo + (v.Hi-v.Lo)*r.Float64()
			t.Cols[j][i] = row[j]
		}
		y[i] = eq.F(row)
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			panic(fmt.Sprintf("feynman %s: non-finite target at row %d: %v", eq.Name, i, row))
		}
	}
	if noise > 0 {
		nr := newRand("feynman-noise/"+eq.Name, uint64(noise*1e6))
		s := noise * rms(y)
		for i := range y {
			y[i] += s * nr.NormFloat64()
		}
	}
	t.Names = append(t.Names, "y")
	t.Cols = append(t.Cols, y)
	return t
}

// SEM is a linear structural equation model over variables x0..x{p-1}
// whose causal order is a random permutation.
type SEM struct {
	Name  string
	Edges [][2]string // true directed edges, cause -> effect
	Data  *Table
}

// LinearSEM draws a random DAG on p variables with edge probability chosen
// for an expected degree (parents + children) of deg, weights uniform in
// ±[0.5, 2], and n rows with independent noise of the given kind
// ("gaussian", "uniform" or "laplace"), each scaled to unit variance.
func LinearSEM(name string, p, n int, deg float64, noise string, seed uint64) *SEM {
	r := newRand("sem/"+name, seed)
	prob := deg / float64(p-1)
	order := r.Perm(p)
	names := make([]string, p)
	for i := range names {
		names[i] = fmt.Sprintf("x%d", i)
	}
	// w[a][b] != 0: order[a] -> order[b], a < b.
	type edge struct {
		from, to int
		w        float64
	}
	var edges []edge
	for b := 0; b < p; b++ {
		for a := 0; a < b; a++ {
			if r.Float64() < prob {
				w := 0.5 + 1.5*r.Float64()
				if r.IntN(2) == 0 {
					w = -w
				}
				edges = append(edges, edge{order[a], order[b], w})
			}
		}
	}
	cols := make([][]float64, p)
	for i := range cols {
		cols[i] = make([]float64, n)
	}
	draw := func() float64 {
		switch noise {
		case "uniform":
			return (2*r.Float64() - 1) * math.Sqrt(3)
		case "laplace":
			u := r.Float64() - 0.5
			return -math.Copysign(1, u) * math.Log(1-2*math.Abs(u)) / math.Sqrt2
		default:
			return r.NormFloat64()
		}
	}
	for _, v := range order { // causal order: parents first
		for i := 0; i < n; i++ {
			cols[v][i] = draw()
		}
		for _, e := range edges {
			if e.to == v {
				for i := 0; i < n; i++ {
					cols[v][i] += e.w * cols[e.from][i]
				}
			}
		}
	}
	s := &SEM{Name: name, Data: &Table{Names: names, Cols: cols}}
	for _, e := range edges {
		s.Edges = append(s.Edges, [2]string{names[e.from], names[e.to]})
	}
	return s
}

// Trajectories is a conservation case: states along several trajectories
// (clean and with noise), the conserved quantity's formula and an evaluator
// of it on the clean states, used to judge a found quantity.
type Trajectories struct {
	Name     string
	Truth    string // the conserved quantity, e.g. "k*x^2/2 + m*v^2/2"
	Names    []string
	Clean    [][]float64 // column-major
	Noisy    [][]float64
	Traj     []string
	Quantity func(state []float64) float64
}

func rk4(f func(s []float64) []float64, s []float64, h float64) []float64 {
	add := func(a, b []float64, c float64) []float64 {
		out := make([]float64, len(a))
		for i := range a {
			out[i] = a[i] + c*b[i]
		}
		return out
	}
	k1 := f(s)
	k2 := f(add(s, k1, h/2))
	k3 := f(add(s, k2, h/2))
	k4 := f(add(s, k3, h))
	out := make([]float64, len(s))
	for i := range s {
		out[i] = s[i] + h/6*(k1[i]+2*k2[i]+2*k3[i]+k4[i])
	}
	return out
}

func simulate(name string, names []string, inits [][]float64, f func([]float64) []float64,
	h float64, sub, steps int, noise float64, q func([]float64) float64, truth string) *Trajectories {
	t := &Trajectories{Name: name, Truth: truth, Names: names, Quantity: q}
	t.Clean = make([][]float64, len(names))
	t.Noisy = make([][]float64, len(names))
	for k, s := range inits {
		for i := 0; i < steps; i++ {
			for j := range names {
				t.Clean[j] = append(t.Clean[j], s[j])
			}
			t.Traj = append(t.Traj, fmt.Sprintf("t%d", k))
			for m := 0; m < sub; m++ {
				s = rk4(f, s, h)
			}
		}
	}
	r := newRand("conservation/"+name, uint64(noise*1e6))
	for j := range names {
		sd := noise * rms(t.Clean[j])
		t.Noisy[j] = make([]float64, len(t.Clean[j]))
		for i, v := range t.Clean[j] {
			t.Noisy[j][i] = v + sd*r.NormFloat64()
		}
	}
	return t
}

// MassSpring: x” = -(k/m) x with k = 4, m = 1; energy k x^2/2 + m v^2/2.
func MassSpring(noise float64) *Trajectories {
	const k, m = 4.0, 1.0
	var inits [][]float64
	for _, a := range []float64{0.5, 1, 1.5, 2, 2.5, 3} {
		inits = append(inits, []float64{a, 0.3 * a})
	}
	return simulate("mass_spring", []string{"x", "v"}, inits,
		func(s []float64) []float64 { return []float64{s[1], -k / m * s[0]} },
		0.01, 5, 200, noise,
		func(s []float64) float64 { return k*s[0]*s[0]/2 + m*s[1]*s[1]/2 }, "2*x^2 + v^2/2")
}

// Pendulum: theta” = -(g/L) sin(theta) with g/L = 9.81; energy
// omega^2/2 - (g/L) cos(theta).
func Pendulum(noise float64) *Trajectories {
	const gl = 9.81
	var inits [][]float64
	for _, a := range []float64{0.3, 0.6, 0.9, 1.2, 1.6, 2.0} {
		inits = append(inits, []float64{a, 0})
	}
	return simulate("pendulum", []string{"theta", "omega"}, inits,
		func(s []float64) []float64 { return []float64{s[1], -gl * math.Sin(s[0])} },
		0.002, 10, 200, noise,
		func(s []float64) float64 { return s[1]*s[1]/2 - gl*math.Cos(s[0]) }, "omega^2/2 - 9.81*cos(theta)")
}

// Kepler: planar orbits around GM = 1 with several eccentricities; angular
// momentum x*vy - y*vx (the energy needs 1/r, which the library lacks).
func Kepler(noise float64) *Trajectories {
	var inits [][]float64
	for _, c := range [][2]float64{{1, 1}, {1, 0.8}, {1.2, 0.7}, {0.8, 1.2}, {1.5, 0.6}, {1, 1.15}} {
		inits = append(inits, []float64{c[0], 0, 0, c[1]})
	}
	return simulate("kepler", []string{"x", "y", "vx", "vy"}, inits,
		func(s []float64) []float64 {
			r3 := math.Pow(s[0]*s[0]+s[1]*s[1], 1.5)
			return []float64{s[2], s[3], -s[0] / r3, -s[1] / r3}
		},
		0.001, 30, 200, noise,
		func(s []float64) float64 { return s[0]*s[3] - s[1]*s[2] }, "x*vy - y*vx")
}

// NullTable is a calibration case: k inputs U(1, 5) and a target y ~ N(0, 1)
// drawn independently of them.
func NullTable(seed uint64, rows, k int) *Table {
	r := newRand("calibration", seed)
	t := &Table{}
	for j := 0; j < k; j++ {
		c := make([]float64, rows)
		for i := range c {
			c[i] = 1 + 4*r.Float64()
		}
		t.Names = append(t.Names, fmt.Sprintf("x%d", j))
		t.Cols = append(t.Cols, c)
	}
	y := make([]float64, rows)
	for i := range y {
		y[i] = r.NormFloat64()
	}
	t.Names = append(t.Names, "y")
	t.Cols = append(t.Cols, y)
	return t
}
