package causal

import (
	"math"

	"context"
	"gonum.org/v1/gonum/stat/distuv"
	"math/rand/v2"
	"testing"
)

// simulateVAR draws x_t = 0.5·x_{t-1} + e, y_t = 0.6·x_{t-1} + 0.3·y_{t-1} + e,
// w_t = e (independent white noise).
func simulateVAR(seed uint64, T int) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	x, y, w := make([]float64, T), make([]float64, T), make([]float64, T)
	for t := range T {
		x[t], y[t], w[t] = rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		if t > 0 {
			x[t] += 0.5 * x[t-1]
			y[t] += 0.6*x[t-1] + 0.3*y[t-1]
		}
	}
	return [][]float64{x, y, w}
}

func TestDiscoverLaggedFindsLagOneCause(t *testing.T) {
	X := simulateVAR(1, 1000)
	g, err := DiscoverLagged(context.Background(), X, []string{"x", "y", "w"}, Options{Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range g.Edges {
		t.Logf("%s -> %s lag %d F=%.1f p=%.2g effect=%.2f by=%q", e.From, e.To, e.Lag, e.GrangerF, e.PValue, e.EffectStrength, e.OrientedBy)
		switch {
		case e.From == "x" && e.To == "y" && e.Lag == 1:
			found = true
			if !e.Directed || e.OrientedBy != OrientedByLag {
				t.Errorf("x → y lag 1 not a directed lagged edge: %+v", e)
			}
			if e.GrangerF < 100 || e.PValue > 1e-10 {
				t.Errorf("x → y: F = %.1f, p = %.3g; want a strong effect", e.GrangerF, e.PValue)
			}
			if e.EffectStrength < 0.3 {
				t.Errorf("x → y effect %.2f, want clearly positive", e.EffectStrength)
			}
		case e.From == "y" && e.To == "x":
			t.Errorf("reverse edge %+v", e)
		case e.From != e.To && (e.From == "w" || e.To == "w"):
			t.Errorf("edge involving independent noise w: %+v", e)
		case e.From == "x" && e.To == "y" && e.Lag != 1:
			t.Errorf("spurious lag: %+v", e)
		case e.Lag == 0:
			t.Errorf("spurious contemporaneous edge: %+v", e)
		}
	}
	if !found {
		t.Fatal("x → y at lag 1 not found")
	}
	if _, ok := findSelf(g, "x", 1); !ok {
		t.Error("x's own lag-1 dependence not reported")
	}
}

func TestDiscoverLaggedContemporaneous(t *testing.T) {
	// a_t drives b_t within the same time step; both are white noise
	// otherwise, so the only link is a contemporaneous a — b.
	rng := rand.New(rand.NewPCG(5, 5))
	T := 800
	a, b := make([]float64, T), make([]float64, T)
	for t := range T {
		a[t] = rng.NormFloat64()
		b[t] = 0.8*a[t] + rng.NormFloat64()
	}
	g, err := DiscoverLagged(context.Background(), [][]float64{a, b}, []string{"a", "b"}, Options{Alpha: 0.01, MaxLag: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Edges) != 1 || g.Edges[0].Lag != 0 || g.Edges[0].Directed {
		t.Fatalf("edges %+v, want one undirected contemporaneous a — b", g.Edges)
	}
}

func TestDiscoverLaggedRejectsShortSeries(t *testing.T) {
	X := [][]float64{{1, 2, 3, 4, 5}, {2, 1, 3, 5, 4}}
	if _, err := DiscoverLagged(context.Background(), X, []string{"a", "b"}, Options{}); err == nil {
		t.Fatal("want error for 5 time points")
	}
}

func findSelf(g *Graph, v string, lag int) (Edge, bool) {
	for _, e := range g.Edges {
		if e.From == v && e.To == v && e.Lag == lag {
			return e, true
		}
	}
	return Edge{}, false
}

func TestNestedFMatchesFDistribution(t *testing.T) {
	// r = 0.1 with n = 100 rows and 3 other regressors: F = 0.01/0.99·95.
	f, p := nestedF(0.1, 100, 3)
	if want := 0.01 / 0.99 * 95; math.Abs(f-want) > 1e-12 {
		t.Errorf("F = %v, want %v", f, want)
	}
	if want := (distuv.F{D1: 1, D2: 95}).Survival(f); math.Abs(p-want) > 1e-9 {
		t.Errorf("p = %v, want %v", p, want)
	}
	if _, p := nestedF(0.5, 1000, 1); p <= 0 || p > 1e-40 {
		t.Errorf("strong effect p = %v, want tiny but positive", p)
	}
}

func TestDiscoverLaggedFindsLagTwo(t *testing.T) {
	// y_t = 0.7·x_{t-2} + e: the link must be reported at lag 2 only.
	rng := rand.New(rand.NewPCG(7, 7))
	T := 1000
	x, y := make([]float64, T), make([]float64, T)
	for t := range T {
		x[t], y[t] = rng.NormFloat64(), rng.NormFloat64()
		if t >= 2 {
			y[t] += 0.7 * x[t-2]
		}
	}
	g, err := DiscoverLagged(context.Background(), [][]float64{x, y}, []string{"x", "y"}, Options{Alpha: 0.01, MaxLag: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Self-links of the white-noise series are false positives at rate
	// alpha each and say nothing about the cross link, so only the links
	// between x and y are checked.
	var lags []int
	for _, e := range g.Edges {
		switch {
		case e.From == "x" && e.To == "y":
			lags = append(lags, e.Lag)
		case e.From != e.To:
			t.Errorf("unexpected edge %+v", e)
		}
	}
	if len(lags) != 1 || lags[0] != 2 {
		t.Fatalf("x → y found at lags %v, want [2]; edges %+v", lags, g.Edges)
	}
}
