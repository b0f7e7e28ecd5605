package conservation

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

const (
	// separationFactor is how many times larger the spread of a quantity's
	// per-trajectory means must be than its spread along trajectories. A
	// genuine conserved quantity labels trajectories; an approximate identity
	// of the data wobbles about as much along a trajectory as between them.
	separationFactor = 3
	// exactIdentitySpread is the spread between trajectories, relative to the
	// size of the terms, below which a combination is constant everywhere:
	// an exact identity such as a linear dependence among variables.
	exactIdentitySpread = 1e-6
)

// candidate is a combination of library terms; coef holds the coefficients of
// the raw (unscaled) terms listed in support, ascending.
type candidate struct {
	support []int
	coef    []float64

	relVar    float64
	separates bool
	// heldOut is the relative variation with the coefficients refitted
	// without each trajectory in turn and measured on the one left out; NaN
	// until computed. heldOutNoise is the pooled noise ratio (see noise.go)
	// of those refits on the trajectories left out.
	heldOut      float64
	heldOutNoise float64
	// noise is the pooled noise ratio of the candidate and resolved whether
	// all its terms rise clearly above their noise floor (see noise.go); NaN
	// and false until computed.
	noise    float64
	resolved bool
}

// assess computes the relative variation of the candidate and whether it
// separates trajectories.
//
// The relative variation is the mean over trajectories of
//
//	std_t(Q) / sum_k |c_k| std_t(f_k)
//
// the fraction of the terms' own variation along the trajectory that fails to
// cancel in Q = sum_k c_k f_k. It lies in [0, 1] (triangle inequality), is 0
// for an exactly conserved quantity and does not depend on the scale of Q or
// on an added constant, unlike std(Q)/|mean(Q)|, which is undefined for
// quantities such as the pendulum energy whose mean can be zero. Trajectories
// on which every term is constant are skipped.
func (p *problem) assess(c *candidate) {
	var ratios []float64
	means := make([]float64, len(p.groups))
	within := 0.0
	for g := range p.groups {
		for a, k := range c.support {
			means[g] += c.coef[a] * p.means[g][k]
			for b, kb := range c.support {
				within += c.coef[a] * c.coef[b] * p.cov[g].At(k, kb)
			}
		}
		if r, ok := p.ratioOn(g, c.support, c.coef); ok {
			ratios = append(ratios, r)
		}
	}
	if len(ratios) == 0 {
		c.relVar, c.separates, c.heldOut, c.heldOutNoise, c.noise = math.Inf(1), false, math.Inf(1), math.Inf(1), math.Inf(1)
		return
	}
	c.relVar = stat.Mean(ratios, nil)
	within = math.Sqrt(math.Max(within, 0) / float64(len(p.groups)))
	between := stat.PopStdDev(means, nil)
	size := 0.0
	for a, k := range c.support {
		size += math.Abs(c.coef[a]) * p.spread[k]
	}
	c.separates = between >= separationFactor*within && between > exactIdentitySpread*size
	c.heldOut, c.heldOutNoise, c.noise = math.NaN(), math.NaN(), math.NaN()
}

// heldOutVariation refits the combination on support without each trajectory
// in turn and averages its relative variation on the trajectory left out. A
// real conserved quantity holds on trajectories it was not fitted to; a
// many-term combination that merely approximates something on the given
// orbits usually does not.
//
// The second result is the pooled noise ratio (see noise.go) of the refits on
// the trajectories left out.
func (p *problem) heldOutVariation(support []int) (float64, float64) {
	var ratios []float64
	sig, noise := 0.0, 0.0
	for g := range p.groups {
		c, ok := p.fitWithout(support, g)
		if !ok {
			return math.Inf(1), math.Inf(1)
		}
		if r, ok := p.ratioOn(g, support, c); ok {
			ratios = append(ratios, r)
		}
		if s, n, ok := p.noiseParts(g, support, c); ok {
			sig, noise = sig+s, noise+n
		}
	}
	if len(ratios) == 0 {
		return math.Inf(1), math.Inf(1)
	}
	nr := math.Inf(1)
	if noise > 0 {
		nr = math.Sqrt(sig / noise)
	}
	return stat.Mean(ratios, nil), nr
}

// ratioOn is std_g(Q) / sum_k |c_k| std_g(f_k) for trajectory g; ok is false
// when every term is constant on g.
func (p *problem) ratioOn(g int, support []int, coef []float64) (float64, bool) {
	v, denom := 0.0, 0.0
	for a, ka := range support {
		for b, kb := range support {
			v += coef[a] * coef[b] * p.cov[g].At(ka, kb)
		}
		denom += math.Abs(coef[a]) * math.Sqrt(p.cov[g].At(ka, ka))
	}
	if denom == 0 {
		return 0, false
	}
	return math.Sqrt(math.Max(v, 0)) / denom, true
}

// relativeVariationFromData recomputes the relative variation of a final
// quantity from the data rather than from the term covariances: for a nearly
// exact quantity c'Cc is a difference of large numbers and loses the digits
// that a direct standard deviation of Q keeps.
func (p *problem) relativeVariationFromData(c candidate) float64 {
	var ratios []float64
	for g, idx := range p.groups {
		q := make([]float64, len(idx))
		denom := 0.0
		for a, k := range c.support {
			values := p.terms[k].values
			for r, i := range idx {
				q[r] += c.coef[a] * values[i]
			}
			denom += math.Abs(c.coef[a]) * math.Sqrt(p.cov[g].At(k, k))
		}
		if denom > 0 {
			ratios = append(ratios, stat.PopStdDev(q, nil)/denom)
		}
	}
	if len(ratios) == 0 {
		return math.Inf(1)
	}
	return stat.Mean(ratios, nil)
}
