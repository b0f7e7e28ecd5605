package symbolic

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat"
)

// feynmanCase is an equation from the Feynman symbolic regression
// database (AI Feynman), with the sampling box of its inputs.
type feynmanCase struct {
	id     string
	vars   []string
	lo, hi []float64 // per variable; a single entry applies to all
	f      func(x []float64) float64
}

func (c feynmanCase) box(j int) (float64, float64) {
	if len(c.lo) == 1 {
		return c.lo[0], c.hi[0]
	}
	return c.lo[j], c.hi[j]
}

// data draws n rows of c's inputs and target (column-major X).
func (c feynmanCase) data(seed uint64, n int) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := make([][]float64, len(c.vars))
	for j := range X {
		lo, hi := c.box(j)
		X[j] = make([]float64, n)
		for i := range X[j] {
			X[j][i] = lo + (hi-lo)*rng.Float64()
		}
	}
	return X, target(X, c.f)
}

var one5 = []float64{1}
var five = []float64{5}

func sq(x float64) float64 { return x * x }

var feynmanCases = []feynmanCase{
	{"I.6.2a", []string{"theta"}, []float64{1}, []float64{3}, func(x []float64) float64 { return math.Exp(-x[0]*x[0]/2) / math.Sqrt(2*math.Pi) }},
	{"I.6.2", []string{"sigma", "theta"}, []float64{1}, []float64{3}, func(x []float64) float64 {
		return math.Exp(-sq(x[1]/x[0])/2) / (math.Sqrt(2*math.Pi) * x[0])
	}},
	{"I.8.14", []string{"x1", "x2", "y1", "y2"}, one5, five, func(x []float64) float64 { return math.Sqrt(sq(x[1]-x[0]) + sq(x[3]-x[2])) }},
	{"I.10.7", []string{"m_0", "v", "c"}, []float64{1, 1, 3}, []float64{5, 2, 10}, func(x []float64) float64 { return x[0] / math.Sqrt(1-sq(x[1]/x[2])) }},
	{"I.11.19", []string{"x1", "x2", "x3", "y1", "y2", "y3"}, one5, five, func(x []float64) float64 { return x[0]*x[3] + x[1]*x[4] + x[2]*x[5] }},
	{"I.12.1", []string{"mu", "Nn"}, one5, five, func(x []float64) float64 { return x[0] * x[1] }},
	{"I.12.2", []string{"q1", "q2", "epsilon", "r"}, one5, five, func(x []float64) float64 { return x[0] * x[1] / (4 * math.Pi * x[2] * x[3] * x[3]) }},
	{"I.12.11", []string{"q", "Ef", "B", "v", "theta"}, one5, five, func(x []float64) float64 { return x[0] * (x[1] + x[2]*x[3]*math.Sin(x[4])) }},
	{"I.13.4", []string{"m", "v", "u", "w"}, one5, five, func(x []float64) float64 { return 0.5 * x[0] * (x[1]*x[1] + x[2]*x[2] + x[3]*x[3]) }},
	{"I.13.12", []string{"G", "m1", "m2", "r1", "r2"}, one5, five, func(x []float64) float64 { return x[0] * x[1] * x[2] * (1/x[4] - 1/x[3]) }},
	{"I.14.3", []string{"m", "g", "z"}, one5, five, func(x []float64) float64 { return x[0] * x[1] * x[2] }},
	{"I.14.4", []string{"k_spring", "x"}, one5, five, func(x []float64) float64 { return 0.5 * x[0] * x[1] * x[1] }},
	{"I.15.3x", []string{"x", "u", "c", "t"}, []float64{5, 1, 3, 1}, []float64{10, 2, 20, 2}, func(x []float64) float64 {
		return (x[0] - x[1]*x[3]) / math.Sqrt(1-sq(x[1]/x[2]))
	}},
	{"I.16.6", []string{"c", "v", "u"}, one5, five, func(x []float64) float64 { return (x[2] + x[1]) / (1 + x[2]*x[1]/(x[0]*x[0])) }},
	{"I.18.4", []string{"m1", "m2", "r1", "r2"}, one5, five, func(x []float64) float64 { return (x[0]*x[2] + x[1]*x[3]) / (x[0] + x[1]) }},
	{"I.18.12", []string{"r", "F", "theta"}, []float64{1, 1, 0}, []float64{5, 5, 5}, func(x []float64) float64 { return x[0] * x[1] * math.Sin(x[2]) }},
	{"I.24.6", []string{"m", "omega", "omega_0", "x"}, one5, five, func(x []float64) float64 { return 0.25 * x[0] * (x[1]*x[1] + x[2]*x[2]) * x[3] * x[3] }},
	{"I.27.6", []string{"d1", "d2", "n"}, one5, five, func(x []float64) float64 { return 1 / (1/x[0] + x[2]/x[1]) }},
	{"I.29.16", []string{"x1", "x2", "theta1", "theta2"}, one5, five, func(x []float64) float64 {
		return math.Sqrt(x[0]*x[0] + x[1]*x[1] - 2*x[0]*x[1]*math.Cos(x[2]-x[3]))
	}},
	{"I.30.3", []string{"Int_0", "theta", "n"}, one5, five, func(x []float64) float64 {
		return x[0] * sq(math.Sin(x[2]*x[1]/2)) / sq(math.Sin(x[1]/2))
	}},
	{"I.32.5", []string{"q", "a", "epsilon", "c"}, one5, five, func(x []float64) float64 {
		return x[0] * x[0] * x[1] * x[1] / (6 * math.Pi * x[2] * x[3] * x[3] * x[3])
	}},
	{"I.34.14", []string{"c", "v", "omega_0"}, []float64{3, 1, 1}, []float64{10, 2, 5}, func(x []float64) float64 {
		return (1 + x[1]/x[0]) / math.Sqrt(1-sq(x[1]/x[0])) * x[2]
	}},
	{"I.37.4", []string{"I1", "I2", "delta"}, one5, five, func(x []float64) float64 {
		return x[0] + x[1] + 2*math.Sqrt(x[0]*x[1])*math.Cos(x[2])
	}},
	{"I.39.22", []string{"n", "kb", "T", "V"}, one5, five, func(x []float64) float64 { return x[0] * x[1] * x[2] / x[3] }},
	{"I.40.1", []string{"n_0", "m", "x", "T", "g", "kb"}, one5, five, func(x []float64) float64 {
		return x[0] * math.Exp(-x[1]*x[4]*x[2]/(x[5]*x[3]))
	}},
	{"I.43.43", []string{"gamma", "kb", "A", "v"}, []float64{2, 1, 1, 1}, []float64{5, 5, 5, 5}, func(x []float64) float64 {
		return 1 / (x[0] - 1) * x[1] * x[3] / x[2]
	}},
	{"I.44.4", []string{"n", "kb", "T", "V1", "V2"}, one5, five, func(x []float64) float64 { return x[0] * x[1] * x[2] * math.Log(x[4]/x[3]) }},
	{"I.47.23", []string{"gamma", "pr", "rho"}, one5, five, func(x []float64) float64 { return math.Sqrt(x[0] * x[1] / x[2]) }},
	{"I.48.2", []string{"m", "v", "c"}, []float64{1, 1, 3}, []float64{5, 2, 10}, func(x []float64) float64 {
		return x[0] * x[2] * x[2] / math.Sqrt(1-sq(x[1]/x[2]))
	}},
	{"I.50.26", []string{"x1", "omega", "t", "alpha"}, one5, []float64{3}, func(x []float64) float64 {
		c := math.Cos(x[1] * x[2])
		return x[0] * (c + x[3]*c*c)
	}},
	{"II.6.15a", []string{"epsilon", "p_d", "r", "x", "y", "z"}, one5, []float64{3}, func(x []float64) float64 {
		return x[1] / (4 * math.Pi * x[0]) * 3 * x[5] / math.Pow(x[2], 5) * math.Sqrt(x[3]*x[3]+x[4]*x[4])
	}},
	{"II.11.27", []string{"n", "alpha", "epsilon", "Ef"}, []float64{0}, []float64{1}, func(x []float64) float64 {
		return x[0] * x[1] / (1 - x[0]*x[1]/3) * x[2] * x[3]
	}},
	{"II.35.21", []string{"n_rho", "mom", "B", "kb", "T"}, one5, five, func(x []float64) float64 {
		return x[0] * x[1] * math.Tanh(x[1]*x[2]/(x[3]*x[4]))
	}},
	{"II.36.38", []string{"mom", "H", "kb", "T", "alpha", "epsilon", "c", "M"}, one5, []float64{3}, func(x []float64) float64 {
		return x[0]*x[1]/(x[2]*x[3]) + x[0]*x[4]/(x[5]*x[6]*x[6]*x[2]*x[3])*x[7]
	}},
	{"III.4.33", []string{"h", "omega", "kb", "T"}, one5, five, func(x []float64) float64 {
		hb := x[0] / (2 * math.Pi)
		return hb * x[1] / (math.Exp(hb*x[1]/(x[2]*x[3])) - 1)
	}},
	{"III.9.52", []string{"p_d", "Ef", "t", "h", "omega", "omega_0"}, []float64{1, 1, 1, 1, 1, 1}, []float64{3, 3, 3, 3, 5, 5}, func(x []float64) float64 {
		d := (x[4] - x[5]) * x[2] / 2
		return x[0] * x[1] * x[2] / (x[3] / (2 * math.Pi)) * sq(math.Sin(d)) / (d * d)
	}},
	{"III.15.12", []string{"U", "k", "d"}, one5, five, func(x []float64) float64 { return 2 * x[0] * (1 - math.Cos(x[1]*x[2])) }},
	{"III.17.37", []string{"beta", "alpha", "theta"}, one5, five, func(x []float64) float64 { return x[0] * (1 + x[1]*math.Cos(x[2])) }},
	{"damped", []string{"x", "a", "t", "w"}, []float64{1, 0.1, 0, 1}, []float64{5, 1, 5, 3}, func(x []float64) float64 {
		return x[0] * math.Exp(-x[1]*x[2]) * math.Cos(x[3]*x[2])
	}},
}

// TestFeynmanSuite measures recovery on the whole table. It is slow, so it
// only runs when SYMBOLIC_FEYNMAN is set; SYMBOLIC_SECONDS sets the time
// limit per equation (default 10) and SYMBOLIC_NOISE a relative noise level.
func TestFeynmanSuite(t *testing.T) {
	if os.Getenv("SYMBOLIC_FEYNMAN") == "" {
		t.Skip("set SYMBOLIC_FEYNMAN=1 to run the Feynman recovery suite")
	}
	secs, _ := strconv.ParseFloat(os.Getenv("SYMBOLIC_SECONDS"), 64)
	if secs <= 0 {
		secs = 10
	}
	noise, _ := strconv.ParseFloat(os.Getenv("SYMBOLIC_NOISE"), 64)
	only := os.Getenv("SYMBOLIC_ONLY")
	recovered, total := 0, 0
	for _, c := range feynmanCases {
		if only != "" && !slices.Contains(strings.Split(only, ","), c.id) {
			continue
		}
		total++
		X, y := c.data(1, 1000)
		if noise > 0 {
			rng := rand.New(rand.NewPCG(5, 5))
			_, sd := stat.PopMeanStdDev(y, nil)
			for i := range y {
				y[i] += noise * sd * rng.NormFloat64()
			}
		}
		start := time.Now()
		res, err := Fit(context.Background(), X, y, c.vars, Options{
			Seed: 1, Generations: 100000, TimeLimit: time.Duration(secs * float64(time.Second)),
		})
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		Xt, yt := c.data(2, 1000)
		score := r2(res.Best.Predict(Xt), yt)
		ok := score > 1-1e-11
		if ok {
			recovered++
		}
		t.Logf("%-9s ok=%-5v R2=1-%-9.2g %6.1fs  c=%-3d %s", c.id, ok, 1-score, time.Since(start).Seconds(), res.Best.Complexity, res.Best.Expression)
	}
	t.Logf("recovered %d/%d", recovered, total)
}
