package conservation

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/discolab/disco/engine/internal/stlsq"
)

// thresholds are the coefficient cut-offs, in units of the scaled terms, tried
// by sequential thresholding: small ones keep weak but real terms, large ones
// find the sparsest quantities. Every resulting support is assessed.
var thresholds = []float64{0.02, 0.05, 0.1, 0.2, 0.35, 0.5}

const (
	// maxThresholdIterations bounds sequential thresholding; it usually
	// settles in a handful of rounds.
	maxThresholdIterations = 25
	// maxQuantityTerms is the most terms a reported quantity may have. Longer
	// combinations are neither readable nor credible (see termTolerance), and
	// skipping them keeps the search cheap.
	maxQuantityTerms = 8
)

// implicitSupport runs sequential thresholding with term k on the left-hand
// side: regress k on the other terms of pool, drop coefficients below lambda,
// re-solve on what is left, until the support stops changing. The returned
// support includes k; nil means nothing survived.
func (p *problem) implicitSupport(k int, lambda float64, pool []int) []int {
	others := slices.DeleteFunc(slices.Clone(pool), func(j int) bool { return j == k })
	others, ok := stlsq.Threshold(others, lambda, maxThresholdIterations,
		func(S []int) ([]float64, bool) { return p.regress(k, S) })
	if !ok || len(others) == 0 {
		return nil
	}
	support := append(others, k)
	slices.Sort(support)
	return support
}

// vectorSupport thresholds a unit null vector: entries below lambda times the
// largest are dropped, the null vector is re-solved on the remaining terms,
// and the process repeats until the support is stable.
func (p *problem) vectorSupport(v []float64, lambda float64) []int {
	support := make([]int, len(v))
	for j := range support {
		support[j] = j
	}
	for range maxThresholdIterations {
		limit := lambda * floats.Norm(v, math.Inf(1))
		var kept []int
		var keptV []float64
		for a, j := range support {
			if math.Abs(v[a]) >= limit {
				kept = append(kept, j)
				keptV = append(keptV, v[a])
			}
		}
		if len(kept) == len(support) {
			break
		}
		support = kept
		if len(support) > 2*maxQuantityTerms {
			// Thresholding the original vector again is enough while the
			// support is far too large to be reported; re-solving every
			// round would cost an eigendecomposition of the whole library.
			v = keptV
			continue
		}
		var ok bool
		if v, ok = p.nullOnSupport(support); !ok {
			return nil
		}
	}
	return support
}

// candidateOn fits the least-varying combination on support and assesses it.
func (p *problem) candidateOn(support []int) (candidate, bool) {
	v, ok := p.nullOnSupport(support)
	if !ok {
		return candidate{}, false
	}
	c := candidate{support: support, coef: make([]float64, len(support))}
	for a, k := range support {
		c.coef[a] = v[a] / p.scale[k]
	}
	p.assess(&c)
	return c, true
}

// accepted reports whether a candidate is conserved, also on trajectories it
// was not fitted to, and separates trajectories. Conserved means either
// within its tolerance or, on well-resolved noisy trajectories, varying no
// more than its measurement-noise floor (see noise.go). The held-out check,
// the costly part, runs only for candidates that pass the others.
func (p *problem) accepted(c *candidate, tol float64) bool {
	if !c.separates {
		return false
	}
	if p.noNoiseModel {
		return p.acceptedFixed(c, tol)
	}
	t := termTolerance(tol, len(c.support))
	fixed := c.relVar <= t
	noisy := false
	if tn := termTolerance(maxNoisyVariation, len(c.support)); c.relVar <= tn {
		if math.IsNaN(c.noise) {
			c.resolved = p.resolved(c.support)
			c.noise = math.Inf(1)
			if c.resolved {
				c.noise = p.noiseRatio(c.support, c.coef)
			}
		}
		noisy = c.resolved && c.noise <= noiseRatioBound(len(c.support))
	}
	if !fixed && !noisy {
		return false
	}
	if math.IsNaN(c.heldOut) {
		c.heldOut, c.heldOutNoise = p.heldOutVariation(c.support)
	}
	if c.heldOut <= t {
		return true
	}
	return noisy && c.heldOut <= termTolerance(maxNoisyVariation, len(c.support)) &&
		c.heldOutNoise <= noiseRatioBound(len(c.support))
}

// acceptedFixed is the acceptance rule without the noise model: relative
// variation within the tolerance, on the data and on average on trajectories
// left out of the fit.
func (p *problem) acceptedFixed(c *candidate, tol float64) bool {
	t := termTolerance(tol, len(c.support))
	if c.relVar > t {
		return false
	}
	if math.IsNaN(c.heldOut) {
		c.heldOut, c.heldOutNoise = p.heldOutVariation(c.support)
	}
	return c.heldOut <= t
}

// termTolerance is the tolerance for a quantity of the given number of terms:
// tol for up to two terms and tol/(terms-1) beyond. Each extra coefficient is
// extra freedom to make a combination look conserved by accident (with a
// dozen terms, smooth functions of the orbit parameters are easy to
// approximate to a percent), so longer quantities must be conserved better.
func termTolerance(tol float64, terms int) float64 {
	if terms <= 2 {
		return tol
	}
	return tol / float64(terms-1)
}

// prune removes terms one at a time, each time the one whose removal leaves
// the least-varying quantity, as long as the quantity stays accepted: fewer
// terms read better and overfit less.
func (p *problem) prune(c candidate, tol float64) candidate {
	for len(c.support) > 1 {
		best, found := c, false
		for drop := range c.support {
			smaller := slices.Delete(slices.Clone(c.support), drop, drop+1)
			d, ok := p.candidateOn(smaller)
			if !ok || !p.accepted(&d, tol) {
				continue
			}
			if !found || d.relVar < best.relVar {
				best, found = d, true
			}
		}
		if !found {
			break
		}
		c = best
	}
	return c
}
