package causal

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestLogCoshStable(t *testing.T) {
	for _, v := range []float64{0, 0.3, -1.7, 5, -12} {
		if got, want := logCoshStable(v), math.Log(math.Cosh(v)); math.Abs(got-want) > 1e-12 {
			t.Errorf("logCosh(%v) = %v, want %v", v, got, want)
		}
	}
	if got := logCoshStable(1000); math.Abs(got-(1000-math.Ln2)) > 1e-9 {
		t.Errorf("logCosh(1000) = %v, want %v", got, 1000-math.Ln2)
	}
}

func TestEntropyApproxRanksGaussianHighest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 20000
	gauss, unif, lap := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		gauss[i] = rng.NormFloat64()
		unif[i] = uniformNoise(rng)
		lap[i] = rng.ExpFloat64() * float64(1-2*rng.IntN(2))
	}
	for _, u := range [][]float64{gauss, unif, lap} {
		standardizeInPlace(u)
	}
	hg, hu, hl := entropyApprox(gauss), entropyApprox(unif), entropyApprox(lap)
	if gaussH := (1 + math.Log(2*math.Pi)) / 2; math.Abs(hg-gaussH) > 0.01 {
		t.Errorf("Gaussian entropy %.4f, want %.4f", hg, gaussH)
	}
	if hu >= hg || hl >= hg {
		t.Errorf("entropies gauss %.4f uniform %.4f laplace %.4f: the Gaussian must be largest", hg, hu, hl)
	}
}

func TestJarqueBera(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gauss, unif := make([]float64, 2000), make([]float64, 2000)
	for i := range gauss {
		gauss[i] = rng.NormFloat64()
		unif[i] = rng.Float64()
	}
	if p := jarqueBeraPValue(gauss); p < 0.01 {
		t.Errorf("Gaussian sample: p = %v, want not significant", p)
	}
	if p := jarqueBeraPValue(unif); p > 1e-10 {
		t.Errorf("uniform sample: p = %v, want tiny", p)
	}
}

func TestResidualIndependence(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 2000
	c, indep, hetero := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		c[i] = rng.NormFloat64()
		indep[i] = uniformNoise(rng)
		hetero[i] = math.Abs(c[i]) * uniformNoise(rng)
	}
	if p := residualIndependenceP(c, indep); p < 0.01 {
		t.Errorf("independent residual: p = %v", p)
	}
	if p := residualIndependenceP(c, hetero); p > 1e-6 {
		t.Errorf("heteroscedastic residual: p = %v, want tiny", p)
	}
}

func TestEntropyTables(t *testing.T) {
	worst := 0.0
	for v := -20.0; v <= 20; v += 0.0007 {
		e1 := math.Abs(logCoshFast(v) - logCoshStable(v))
		e2 := math.Abs(uExpFast(v) - v*math.Exp(-v*v/2))
		worst = max(worst, e1, e2)
	}
	if worst > 5e-8 {
		t.Errorf("largest table error %g, want < 5e-8", worst)
	}
}
