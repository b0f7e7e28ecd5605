package conservation

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// thresholds are the coefficient cut-offs, in units of the scaled terms, tried
// by sequential thresholding: small ones keep weak but real terms, large ones
// find the sparsest quantities. Every resulting support is assessed.
var thresholds = []float64{0.02, 0.05, 0.1, 0.2, 0.35, 0.5}

// maxThresholdIterations bounds sequential thresholding; it usually settles
// in a handful of rounds.
const maxThresholdIterations = 25

// subGram returns the Gram matrix restricted to the terms in support.
func (p *problem) subGram(support []int) *mat.SymDense {
	g := mat.NewSymDense(len(support), nil)
	for a, ka := range support {
		for b := a; b < len(support); b++ {
			g.SetSym(a, b, p.gram.At(ka, support[b]))
		}
	}
	return g
}

// fitWithout is nullOnSupport on the data without trajectory g, returned as
// coefficients of the raw terms.
func (p *problem) fitWithout(support []int, g int) ([]float64, bool) {
	rest := float64(p.rows - len(p.groups[g]))
	share := float64(len(p.groups[g]))
	gram := mat.NewSymDense(len(support), nil)
	for a, ka := range support {
		for b := a; b < len(support); b++ {
			kb := support[b]
			own := p.cov[g].At(ka, kb) / (p.scale[ka] * p.scale[kb])
			gram.SetSym(a, b, (float64(p.rows)*p.gram.At(ka, kb)-share*own)/rest)
		}
	}
	v, ok := lowestEigenvector(gram)
	if !ok {
		return nil, false
	}
	for a, k := range support {
		v[a] /= p.scale[k]
	}
	return v, true
}

// lowestEigenvector returns the unit eigenvector of the smallest eigenvalue.
func lowestEigenvector(s *mat.SymDense) ([]float64, bool) {
	var eig mat.EigenSym
	if !eig.Factorize(s, true) {
		return nil, false
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	return mat.Col(nil, 0, &vecs), true
}

// nullOnSupport returns the unit combination of the scaled terms in support
// that varies least within trajectories: the right singular vector of the
// centred library restricted to support with the smallest singular value,
// obtained as the lowest eigenvector of the restricted Gram matrix.
func (p *problem) nullOnSupport(support []int) ([]float64, bool) {
	return lowestEigenvector(p.subGram(support))
}

// regress solves the least-squares problem scaled term k ≈ sum_{j in others}
// xi_j scaled term j through the normal equations, using a pseudo-inverse so
// that near-collinear terms (sin(x) and x on small angles) do not blow up.
func (p *problem) regress(k int, others []int) ([]float64, bool) {
	var eig mat.EigenSym
	if !eig.Factorize(p.subGram(others), true) {
		return nil, false
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	rhs := make([]float64, len(others))
	for a, j := range others {
		rhs[a] = p.gram.At(j, k)
	}
	cutoff := 1e-10 * floats.Max(vals)
	xi := make([]float64, len(others))
	for e, lambda := range vals {
		if lambda <= cutoff {
			continue
		}
		u := mat.Col(nil, e, &vecs)
		floats.AddScaled(xi, floats.Dot(u, rhs)/lambda, u)
	}
	return xi, true
}

// implicitSupport runs sequential thresholding with term k on the left-hand
// side: regress k on the other terms, drop coefficients below lambda, re-solve
// on what is left, until the support stops changing. The returned support
// includes k; nil means nothing survived.
func (p *problem) implicitSupport(k int, lambda float64) []int {
	var others []int
	for j := range p.terms {
		if j != k {
			others = append(others, j)
		}
	}
	for range maxThresholdIterations {
		if len(others) == 0 {
			return nil
		}
		xi, ok := p.regress(k, others)
		if !ok {
			return nil
		}
		var kept []int
		for a, j := range others {
			if math.Abs(xi[a]) >= lambda {
				kept = append(kept, j)
			}
		}
		if len(kept) == len(others) {
			break
		}
		others = kept
	}
	if len(others) == 0 {
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
		for a, j := range support {
			if math.Abs(v[a]) >= limit {
				kept = append(kept, j)
			}
		}
		if len(kept) == len(support) {
			break
		}
		support = kept
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

// accepted reports whether a candidate is conserved within its tolerance,
// also on trajectories it was not fitted to, and separates trajectories.
func accepted(c candidate, tol float64) bool {
	t := termTolerance(tol, len(c.support))
	return c.separates && c.relVar <= t && c.heldOut <= t
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
			if !ok || !accepted(d, tol) {
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
