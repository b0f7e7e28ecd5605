package symbolic

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestDebugFeynman(t *testing.T) {
	cases := []struct {
		name   string
		d      int
		lo, hi float64
		f      func(x []float64) float64
	}{
		{"ma", 2, 1, 5, func(x []float64) float64 { return x[0] * x[1] }},
		{"lin", 1, -3, 3, func(x []float64) float64 { return 2.5*x[0] + 1 }},
		{"sq", 2, -3, 3, func(x []float64) float64 { return x[0]*x[0] + x[1] }},
		{"coulomb", 4, 1, 5, func(x []float64) float64 { return x[0] * x[1] / (4 * math.Pi * x[2] * x[3] * x[3]) }},
		{"damped", 3, 1, 5, func(x []float64) float64 { return x[0] * math.Exp(-x[1]*x[2]/10) * math.Cos(x[2]) }},
		{"relmass", 3, 1, 5, func(x []float64) float64 { return x[0] / math.Sqrt(1-x[1]*x[1]/(x[2]*x[2]+30)) }},
	}
	for _, c := range cases {
		rng := rand.New(rand.NewPCG(1, 2))
		X := sample(rng, c.d, 1000, c.lo, c.hi)
		y := target(X, c.f)
		st := time.Now()
		res, err := Fit(context.Background(), X, y, nil, Options{Seed: 1, TimeLimit: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s  (c=%d mse=%.3g) exact=%v in %v", c.name, res.Best.Expression, res.Best.Complexity, res.Best.MSE, exactlyRecovers(t, res.Best, c.d, c.lo, c.hi, c.f), time.Since(st))
		for _, m := range res.Front {
			t.Logf("   %3d %.3g %s", m.Complexity, m.MSE, m.Expression)
		}
	}
}
