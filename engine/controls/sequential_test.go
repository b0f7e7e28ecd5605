package controls

import (
	"math"
	"math/rand"
	"testing"
)

// drawsFrom returns a draw function that hands out the given null
// statistics in order and counts how many were taken.
func drawsFrom(null []float64, taken *int) func() float64 {
	return func() float64 {
		v := null[*taken]
		*taken++
		return v
	}
}

func TestSequentialStopsEarlyOnClearlyNullStatistic(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	null := make([]float64, Permutations)
	for i := range null {
		null[i] = rng.Float64()
	}
	taken := 0
	r, draws := DefaultSequential.Run(0.2, drawsFrom(null, &taken))
	if r.Passed || draws >= Permutations || draws != taken {
		t.Fatalf("a statistic below most nulls must fail early, got %+v after %d draws", r, draws)
	}
	// Besag–Clifford: stopped at the h-th exceedance at draw l, p = h/l.
	if want := float64(DefaultSequential.Exceed) / float64(draws); r.PValue != want {
		t.Fatalf("p = %v, want h/l = %v", r.PValue, want)
	}
}

func TestSequentialEarlyPassStopsOnClearlySignificantStatistic(t *testing.T) {
	s := Sequential{Draws: Permutations, Exceed: 5, EarlyPass: 64}
	null := make([]float64, Permutations)
	taken := 0
	r, draws := s.Run(1, drawsFrom(null, &taken))
	if !r.Passed || draws != 64 {
		t.Fatalf("a statistic above every null must pass after 64 draws, got %+v after %d", r, draws)
	}
	// Its p-value is the null probability that the first 64 draws all fall
	// below the observed statistic: 1/65.
	if math.Abs(r.PValue-1.0/65) > 1e-12 {
		t.Fatalf("early-pass p = %v, want 1/65", r.PValue)
	}
	// Without early pass the same statistic needs all draws and gets the
	// fixed test's smallest p-value.
	taken = 0
	r, draws = DefaultSequential.Run(1, drawsFrom(null, &taken))
	if !r.Passed || draws != Permutations || r.PValue != 0.01 {
		t.Fatalf("fixed-size end: got %+v after %d draws, want p 0.01 after %d", r, draws, Permutations)
	}
}

// TestSequentialDecidesAsTheFixedTest compares the sequential test with the
// fixed test of Permutations draws (PValue) on the same null draws, at Alpha
// and at the Bonferroni level of three laws, for observed statistics at
// every rank among the nulls.
func TestSequentialDecidesAsTheFixedTest(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for trial := 0; trial < 20; trial++ {
		null := make([]float64, Permutations)
		for i := range null {
			null[i] = rng.NormFloat64()
		}
		for rank := 0; rank <= 20; rank++ {
			sorted := append([]float64(nil), null...)
			for i := range sorted { // observed just above the rank-th largest null
				for j := i + 1; j < len(sorted); j++ {
					if sorted[j] > sorted[i] {
						sorted[i], sorted[j] = sorted[j], sorted[i]
					}
				}
			}
			observed := sorted[rank] + 1e-9
			if rank == 0 {
				observed = sorted[0] + 1
			}
			fixed := PValue(observed, null)
			taken := 0
			seq, _ := DefaultSequential.Run(observed, drawsFrom(null, &taken))
			for _, level := range []float64{Alpha, Alpha / 3} {
				if (fixed <= level) != (seq.PValue <= level) {
					t.Fatalf("trial %d rank %d level %v: fixed p %v, sequential p %v", trial, rank, level, fixed, seq.PValue)
				}
			}
			if seq.PValue <= Alpha && seq.PValue != fixed {
				t.Fatalf("a passing sequential test must report the fixed p-value: %v vs %v", seq.PValue, fixed)
			}
		}
	}
}

// TestSequentialPValueIsValid checks P(p <= u) <= u under the null, by
// exact enumeration: the observed statistic's rank among itself and the
// Draws nulls is uniform, for Besag–Clifford's test and with early pass.
func TestSequentialPValueIsValid(t *testing.T) {
	for _, s := range []Sequential{DefaultSequential, {Draws: Permutations, Exceed: 5, EarlyPass: 64}, {Draws: 19, Exceed: 3, EarlyPass: 10}} {
		n := s.Draws
		// Under the null the exceedance pattern is a uniformly random
		// arrangement given the rank; simulate many arrangements.
		rng := rand.New(rand.NewSource(3))
		counts := map[float64]int{}
		const trials = 200000
		for tr := 0; tr < trials; tr++ {
			vals := make([]float64, n+1)
			for i := range vals {
				vals[i] = rng.Float64()
			}
			k := 0
			r, _ := s.Run(vals[n], func() float64 { k++; return vals[k-1] })
			counts[r.PValue]++
		}
		cum := 0
		for _, u := range sortedKeys(counts) {
			cum += counts[u]
			frac := float64(cum) / trials
			// Monte Carlo error at 200,000 trials: allow 4 standard errors.
			if se := math.Sqrt(u * (1 - u) / trials); frac > u+4*se+1e-12 {
				t.Fatalf("%+v: P(p <= %v) = %v exceeds %v", s, u, frac, u)
			}
		}
		if s.EarlyPass == 0 {
			continue
		}
		// The early-pass outcome is the most extreme: its p-value is its
		// own null probability, 1/(m+1).
		if got, want := s.normalised().earlyP(), 1/float64(s.EarlyPass+1); math.Abs(got-want) > 1e-12 {
			t.Fatalf("%+v: early-pass p %v, want %v", s, got, want)
		}
	}
}

func sortedKeys(m map[float64]int) []float64 {
	out := make([]float64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestSequentialNaNNeverPasses(t *testing.T) {
	taken := 0
	r, draws := DefaultSequential.Run(math.NaN(), drawsFrom(make([]float64, Permutations), &taken))
	if r.Passed || r.PValue != 1 || draws != DefaultSequential.Exceed {
		t.Fatalf("NaN observed: got %+v after %d draws, want p 1 after %d", r, draws, DefaultSequential.Exceed)
	}
}

func TestPartialMatchesRegressionResiduals(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	n := 200
	z1, z2, x, y := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range x {
		z1[i], z2[i] = rng.NormFloat64(), 3+rng.NormFloat64()
		x[i] = z1[i] - 0.5*z2[i] + rng.NormFloat64()
		y[i] = 0.3*x[i] + 2*z1[i] + z2[i] + rng.NormFloat64()
	}
	Z := [][]float64{z1, z2}
	// Reference: residuals of ordinary least squares on [1, z1, z2] by the
	// normal equations, solved by Cramer's rule.
	want := correlationOf(olsResidual(x, Z), olsResidual(y, Z))
	if got := PartialCorrelation(x, y, Z); math.Abs(got-want) > 1e-9 {
		t.Fatalf("PartialCorrelation %v, want %v", got, want)
	}
	p := NewPartial(x, y, Z)
	if math.Abs(p.Observed()-math.Abs(want)) > 1e-9 {
		t.Fatalf("Observed %v, want %v", p.Observed(), math.Abs(want))
	}
	perm := rng.Perm(n)
	yp, xp := make([]float64, n), make([]float64, n)
	for i, j := range perm {
		yp[i], xp[i] = y[j], x[j]
	}
	if got, want := p.ByEffect(yp), math.Abs(PartialCorrelation(x, yp, Z)); math.Abs(got-want) > 1e-9 {
		t.Fatalf("ByEffect %v, want %v", got, want)
	}
	if got, want := p.ByCause(xp), math.Abs(PartialCorrelation(xp, y, Z)); math.Abs(got-want) > 1e-9 {
		t.Fatalf("ByCause %v, want %v", got, want)
	}
	// A conditioning column that repeats another leaves the fit undefined:
	// only the mean is removed.
	if got, want := PartialCorrelation(x, y, [][]float64{z1, z1}), PartialCorrelation(x, y, nil); got != want {
		t.Fatalf("rank-deficient Z: %v, want the plain correlation %v", got, want)
	}
}

func olsResidual(v []float64, Z [][]float64) []float64 {
	k := len(Z) + 1
	col := func(j, i int) float64 {
		if j == 0 {
			return 1
		}
		return Z[j-1][i]
	}
	A := make([][]float64, k)
	b := make([]float64, k)
	for a := 0; a < k; a++ {
		A[a] = make([]float64, k)
		for c := 0; c < k; c++ {
			for i := range v {
				A[a][c] += col(a, i) * col(c, i)
			}
		}
		for i := range v {
			b[a] += col(a, i) * v[i]
		}
	}
	// Gaussian elimination.
	for c := 0; c < k; c++ {
		for r := c + 1; r < k; r++ {
			f := A[r][c] / A[c][c]
			for j := c; j < k; j++ {
				A[r][j] -= f * A[c][j]
			}
			b[r] -= f * b[c]
		}
	}
	coef := make([]float64, k)
	for r := k - 1; r >= 0; r-- {
		s := b[r]
		for j := r + 1; j < k; j++ {
			s -= A[r][j] * coef[j]
		}
		coef[r] = s / A[r][r]
	}
	out := make([]float64, len(v))
	for i := range v {
		out[i] = v[i]
		for j := 0; j < k; j++ {
			out[i] -= coef[j] * col(j, i)
		}
	}
	return out
}

func correlationOf(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// TestSharedNullDataAreReusedAcrossClaims: two claims tested on the same
// Shared see the same permutations, and a dependent pair passes while an
// independent one fails.
func TestSharedNullDataAreReusedAcrossClaims(t *testing.T) {
	s := NewShared(rand.New(rand.NewSource(5)))
	if a, b := s.perm(50, 3), s.perm(50, 3); &a[0] != &b[0] {
		t.Fatal("the k-th permutation must be drawn once and shared")
	}
	if a, b := s.placebo(50, 2), s.placebo(50, 2); &a[0] != &b[0] {
		t.Fatal("the k-th placebo must be drawn once and shared")
	}
	x, y := linearData(6, 100, 1, true)
	p := NewPartial(x, y, nil)
	if r := s.ShuffledTarget(y, p.ByEffect); !r.Passed {
		t.Fatalf("dependent pair must pass shuffled_target: %+v", r)
	}
	if r := s.PlaceboCause(p.Observed(), len(x), p.ByCause); !r.Passed {
		t.Fatalf("dependent pair must pass placebo_cause: %+v", r)
	}
	if r := s.NoiseFeature([][]float64{x}, func(X [][]float64) float64 { return p.ByCause(X[0]) }); !r.Passed {
		t.Fatalf("dependent pair must pass noise_feature: %+v", r)
	}
	// Calibration across claims that share the null data: about Alpha of
	// independent pairs pass; over 60 pairs expect about 3, allow up to 9.
	passes := 0
	for seed := int64(0); seed < 60; seed++ {
		xi, yi := linearData(seed+10, 100, 0, false)
		q := NewPartial(xi, yi, nil)
		if s.ShuffledTarget(yi, q.ByEffect).Passed {
			passes++
		}
	}
	if passes > 9 {
		t.Fatalf("independent pairs passed %d/60 times on shared permutations", passes)
	}
}
