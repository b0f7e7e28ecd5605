package controls

import (
	"math"
	"math/rand"
	"sync"
)

// Sequential is a Monte Carlo test that draws its null statistics one at a
// time and stops as soon as its outcome is settled (Besag & Clifford 1991,
// "Sequential Monte Carlo p-values", Biometrika 78(2), 301–304):
//
//   - it stops after Exceed null statistics at least as large as the
//     observed one, at draw l, with p = Exceed/l;
//   - otherwise it stops after Draws draws, g of them exceeding, with
//     p = (g+1)/(Draws+1), the fixed-size test's p-value.
//
// With Exceed = Alpha·(Draws+1) (5 of 99) it makes the same decision as the
// fixed test of Draws draws at Alpha and at every smaller level: a stop
// means g ≥ Exceed, which fails the fixed test too, and a run to the end
// has the fixed test's p-value. A statistic at the median of its null
// distribution stops after about 2·Exceed draws instead of Draws.
//
// EarlyPass > 0 also stops when none of the first EarlyPass draws exceeds
// the observed statistic. The p-value of every outcome is then its exact
// probability, under the null hypothesis, of an outcome at least as extreme
// (early pass, then runs to the end by fewer exceedances, then stops by
// later stops): under exchangeability of the observed statistic with the
// null draws the exceedance indicators follow a Pólya urn starting from one
// ball of each colour (Besag & Clifford 1991, section 2), so these
// probabilities are computed exactly and the p-value stays valid. Without
// EarlyPass they are the formulas above.
type Sequential struct {
	Draws     int
	Exceed    int
	EarlyPass int
}

// DefaultSequential is the test every control runs: at most Permutations
// draws, a stop at the Alpha·(Permutations+1)-th exceedance, no early pass,
// so that the decision and the p-value of every control that does not stop
// early are those of the fixed test.
var DefaultSequential = Sequential{Draws: Permutations, Exceed: int(math.Round(Alpha * (Permutations + 1)))}

// Run draws null statistics with draw until the test is settled and returns
// the result and the number of draws made. A NaN observed or null
// statistic counts as a null at least as extreme, so a model that cannot be
// evaluated never passes.
func (s Sequential) Run(observed float64, draw func() float64) (Result, int) {
	s = s.normalised()
	g := 0
	for l := 1; l <= s.Draws; l++ {
		v := draw()
		if math.IsNaN(observed) || math.IsNaN(v) || v >= observed {
			g++
		}
		if g == s.Exceed {
			return decide(s.stopP(l)), l
		}
		if s.EarlyPass > 0 && l == s.EarlyPass && g == 0 {
			return decide(s.earlyP()), l
		}
	}
	return decide(s.fullP(g)), s.Draws
}

func (s Sequential) normalised() Sequential {
	s.Draws = max(s.Draws, 1)
	s.Exceed = min(max(s.Exceed, 1), s.Draws)
	if s.EarlyPass >= s.Draws || s.EarlyPass < 0 {
		s.EarlyPass = 0
	}
	return s
}

// stopP is the p-value of a stop at the Exceed-th exceedance at draw l.
func (s Sequential) stopP(l int) float64 {
	if s.EarlyPass == 0 {
		return float64(s.Exceed) / float64(l)
	}
	return s.outcomes().stop[l]
}

// fullP is the p-value of a run to Draws draws with g exceedances.
func (s Sequential) fullP(g int) float64 {
	if s.EarlyPass == 0 {
		return float64(g+1) / float64(s.Draws+1)
	}
	return s.outcomes().full[g]
}

func (s Sequential) earlyP() float64 { return s.outcomes().early }

// outcomeP holds the p-value of each outcome of a test with early pass.
type outcomeP struct {
	early float64
	full  []float64 // by exceedances at the end
	stop  []float64 // by the draw of the stop
}

var outcomeCache sync.Map // Sequential -> *outcomeP

// outcomes computes, by dynamic programming over (draws, exceedances), the
// null probability of each outcome and turns it into p-values by summing
// over the outcomes at least as extreme.
func (s Sequential) outcomes() *outcomeP {
	if v, ok := outcomeCache.Load(s); ok {
		return v.(*outcomeP)
	}
	N, h, m := s.Draws, s.Exceed, s.EarlyPass
	var early float64
	full := make([]float64, h)
	stop := make([]float64, N+1)
	cur := make([]float64, h) // probability of (l draws, g exceedances), not yet stopped
	cur[0] = 1
	for l := 0; l < N; l++ {
		next := make([]float64, h)
		for g, pr := range cur {
			if pr == 0 {
				continue
			}
			up := float64(g+1) / float64(l+2) // Pólya urn: next draw exceeds
			if g+1 == h {
				stop[l+1] += pr * up
			} else {
				next[g+1] += pr * up
			}
			next[g] += pr * (1 - up)
		}
		if m > 0 && l+1 == m {
			early, next[0] = next[0], 0
		}
		cur = next
	}
	copy(full, cur)
	out := &outcomeP{early: early, full: make([]float64, h), stop: make([]float64, N+1)}
	acc := early
	for g := range full {
		acc += full[g]
		out.full[g] = math.Min(1, acc)
	}
	for l := N; l >= 1; l-- {
		acc += stop[l]
		out.stop[l] = math.Min(1, acc)
	}
	outcomeCache.Store(s, out)
	return out
}

// Shared hands every claim of one run the same null data: the k-th
// permutation of n rows and the k-th Gaussian placebo of length n are drawn
// once, on first use, and reused by each claim's controls. Each claim's test
// stays exact (its null data are independent of its own data); tests of
// different claims become dependent, which the Bonferroni bound across
// claims allows. Safe for concurrent use.
type Shared struct {
	mu       sync.Mutex
	rng      *rand.Rand
	perms    map[int][][]int32
	placebos map[int][][]float64
}

// NewShared returns an empty set of shared null data drawn from rng.
func NewShared(rng *rand.Rand) *Shared {
	return &Shared{rng: rng, perms: map[int][][]int32{}, placebos: map[int][][]float64{}}
}

// perm returns the k-th shared permutation of 0..n-1.
func (s *Shared) perm(n, k int) []int32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.perms[n]) <= k {
		p := make([]int32, n)
		for i := range p {
			p[i] = int32(i)
		}
		s.rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		s.perms[n] = append(s.perms[n], p)
	}
	return s.perms[n][k]
}

// placebo returns the k-th shared standard Gaussian vector of length n.
func (s *Shared) placebo(n, k int) []float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.placebos[n]) <= k {
		p := make([]float64, n)
		for i := range p {
			p[i] = s.rng.NormFloat64()
		}
		s.placebos[n] = append(s.placebos[n], p)
	}
	return s.placebos[n][k]
}

// permuter returns a function writing the k-th shared permutation of v into
// dst, for k = 0, 1, ... on successive calls.
func (s *Shared) permuter(v []float64) func(dst []float64) []float64 {
	k := 0
	return func(dst []float64) []float64 {
		p := s.perm(len(v), k)
		k++
		for i, j := range p {
			dst[i] = v[j]
		}
		return dst
	}
}

// ShuffledTarget is the shuffled_target control on the shared permutations.
func (s *Shared) ShuffledTarget(y []float64, stat func(y []float64) float64) Result {
	next := s.permuter(y)
	buf := make([]float64, len(y))
	r, _ := DefaultSequential.Run(stat(y), func() float64 { return stat(next(buf)) })
	return r
}

// NoiseFeature is the noise_feature control on the shared permutations.
func (s *Shared) NoiseFeature(X [][]float64, stat func(X [][]float64) float64) Result {
	return noiseFeature(X, stat, func(v []float64) func([]float64) []float64 { return s.permuter(v) })
}

// PlaceboCause is the placebo_cause control on the shared placebos.
func (s *Shared) PlaceboCause(observed float64, n int, stat func(placebo []float64) float64) Result {
	k := 0
	r, _ := DefaultSequential.Run(observed, func() float64 {
		p := s.placebo(n, k)
		k++
		return stat(p)
	})
	return r
}
