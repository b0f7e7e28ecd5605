package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Target transforms ("inverting the target", AI Feynman: Udrescu &
// Tegmark 2020, Sci. Adv. 6:eaay2631, and AI Feynman 2.0, NeurIPS 2020).
//
// Many laws that no short sum of terms fits become one after an invertible
// map of the target. A relativistic factor y = M/sqrt(1 − v²/c²) is
// (y/M)^−2 = 1 − (v/c)², two terms; a Gaussian y = exp(−(θ/σ)²/2)/σ is
// log(y·σ) = c − ½·(θ/σ)²; y = M·(a + b·x)² is sqrt(y/M) = a + b·x.
// transformSeeds fits T(y/M) for each transform T and each candidate
// monomial M (1 and the power-law monomials) as a short sparse linear
// combination c0 + Σ w_k·t_k of library terms and squared ratios, and
// writes the inverse y = M·T⁻¹(c0 + Σ w_k·t_k) as a seed. Unlike the
// implicit rational fit (rational.go) the regression is explicit in the
// transformed target, so noise in y enters as noise in the regression's
// target, which least squares averages out, and not as noise in its
// columns.
//
// The sine transform is the one whose factor stays inside: laws y =
// asin(u) (Snell's θ1 = asin(n·sin θ2), a diffraction angle asin(λ/(n·d)))
// have sin(y) = u, so for |y| ≤ π/2 the pass fits sin(y), with the sign of
// y, as a short sum c0 + Σ w_k·M·t_k of library terms under a factor and
// writes y = asin(c0 + Σ w_k·M·t_k): n·sin θ2 is the library term sin θ2
// under the factor n, λ/(n·d) the term 1/d under the power law with d left
// out.

// targetTransform is an invertible map of the (sign-normalised) target.
type targetTransform struct {
	forward func(z float64) float64
	// gain is |forward'(z)|: how much the map amplifies noise in z.
	gain func(z float64) float64
	// inverse writes T⁻¹(inner) with the allowed operators.
	inverse func(b *termBuilder, inner tree) (tree, bool)
}

// targetTransforms are the maps tried, in order: the identity (a sum
// under a common factor, ¼·m·x²·(ω² + ω0²)), the inverse square (γ
// factors), the inverse, the square (norms), the square root (squares of
// sums) and the logarithm (exponentials and Gaussians).
var targetTransforms = []targetTransform{
	{func(z float64) float64 { return z }, func(float64) float64 { return 1 },
		func(_ *termBuilder, t tree) (tree, bool) { return t, true }},
	{func(z float64) float64 { return 1 / (z * z) }, func(z float64) float64 { return 2 / (z * z * z) },
		func(b *termBuilder, t tree) (tree, bool) { return b.raise(t, -0.5) }},
	{func(z float64) float64 { return 1 / z }, func(z float64) float64 { return 1 / (z * z) },
		func(b *termBuilder, t tree) (tree, bool) { return b.raise(t, -1) }},
	{func(z float64) float64 { return z * z }, func(z float64) float64 { return 2 * z },
		func(b *termBuilder, t tree) (tree, bool) { return b.raise(t, 0.5) }},
	{math.Sqrt, func(z float64) float64 { return 0.5 / math.Sqrt(z) },
		func(b *termBuilder, t tree) (tree, bool) { return b.raise(t, 2) }},
	{math.Log, func(z float64) float64 { return 1 / z }, func(b *termBuilder, t tree) (tree, bool) {
		if !b.has[opExp] {
			return nil, false
		}
		return append(t, opNode(opExp)), true
	}},
}

const (
	// maxTransformTerms bounds the terms of a transformed fit: the point of
	// a transform is that the law becomes short; a long series in the
	// transformed target fits any smooth law.
	maxTransformTerms = 3
	// maxTransformVars bounds the inputs for which the factors M include
	// variants of the power law and single inputs (transformFactors).
	maxTransformVars = 5
	// maxTransformLibrary caps the library terms (simplest first) the
	// transformed regressions choose from, which bounds their cost.
	maxTransformLibrary = 200
	// maxTransformSeeds caps the seeds of this pass.
	maxTransformSeeds = 6
	// transformRows is the number of rows the transformed regressions use
	// (evenly spaced over the data): they only choose supports; the
	// seeds are scored on all rows.
	transformRows = 300
	// transformSlack is how much worse than the plain sparse fit a
	// transformed seed may fit y.
	transformSlack = 1.1
	// asinRangeSlack is how far past ±π/2, relatively, noise may carry a
	// target that the sine transform still tries.
	asinRangeSlack = 0.05
)

// transformSeeds returns seeds M·T⁻¹(c0 + Σ w_k·t_k) and asin(c0 + Σ
// w_k·M·t_k), best (by bic) first, for the factors M of transformFactors;
// monos are the power-law seeds. A seed must fit y about as well as the
// plain sparse pass did, whose smallest residual (a share of var(y)) is
// floor (rankedSeeds).
func transformSeeds(p *problem, lib []libraryTerm, monos []tree, floor float64) []tree {
	b := newSeedBuilder(p.g)
	if len(lib) == 0 || !b.has[opMul] || !b.has[opAdd] || len(p.y) < 20 {
		return nil
	}
	n := len(p.y)
	rows := evenRows(n, transformRows)
	terms := termsOn(append(slices.Clone(lib[:min(len(lib), maxTransformLibrary)]), squaredRatios(p, b)...), rows)
	ySub := pickRows(p.y, rows)
	subEv := newEvaluator(pickColumns(p.cols, p.g.vars, rows), len(rows))
	full := newEvaluator(p.cols, n)

	seeds := newRankedSeeds(p, full, floor)
	// fitAs fits zt as a short sparse sum, with weights wts (nil: equal),
	// and adds the seeds write makes of its fits.
	fitAs := func(terms []libraryTerm, zt, wts []float64, write func(s *sparseRegression, S []int) (tree, bool)) {
		if !usableColumn(zt) {
			return
		}
		s := newWeightedSparseRegression(terms, zt, wts, p.timeUp)
		cand := s.independent()
		models := append(s.forward(cand, 4, maxTransformTerms), s.bestPairs(cand, 4)...)
		for _, sm := range models {
			if t, ok := write(s, sm.support); ok {
				seeds.add(t)
			}
		}
	}
	sine := b.has[opAsin] && withinAsinRange(p.y)
	sinY := make([]float64, len(ySub))
	for i, v := range ySub {
		sinY[i] = math.Sin(v) // with the sign of y: sin is odd
	}
	ms := transformFactors(p, b, monos)
	for _, m := range ms {
		z := slices.Clone(ySub)
		var mv []float64
		if m != nil {
			mv = slices.Clone(subEv.eval(m))
			for i := range z {
				z[i] /= mv[i]
			}
		}
		for k, tr := range targetTransforms {
			if p.timeUp() {
				break
			}
			// The fit runs on the rows where T(y/M) is not mostly noise;
			// only the identity (first) needs no constant sign there.
			keep, wts := noiseWeights(z, mv, tr.gain)
			zk, fitTerms := z, terms
			if keep != nil {
				zk, fitTerms = pickRows(z, keep), termsOn(terms, keep)
			}
			if k > 0 && !sameSign(zk) {
				continue
			}
			zt := make([]float64, len(zk))
			for i, v := range zk {
				zt[i] = tr.forward(math.Abs(v))
			}
			fitAs(fitTerms, zt, wts, func(s *sparseRegression, S []int) (tree, bool) {
				inner, ok := s.affineTree(b, S, zt)
				if !ok {
					return nil, false
				}
				t, ok := tr.inverse(b, inner)
				if ok && m != nil {
					t = append(append(m.clone(), t...), opNode(opMul))
				}
				return t, ok
			})
		}
		if sine && !p.timeUp() {
			fitAs(factoredTerms(terms, m, mv), sinY, nil, func(s *sparseRegression, S []int) (tree, bool) {
				return s.asinTree(b, S, sinY, full)
			})
		}
	}
	return seeds.best(maxTransformSeeds)
}

// transformFactors lists the candidate factors M: none, the power-law
// monomials, the rounded power law, and it with one or two inputs left out (a
// factor inside T⁻¹(…) biases the log-space exponents of the inputs it
// depends on: ¼·m·x²·(ω² + ω0²) looks like m·x²·ω·ω0 in log space), and
// each single input, without repeats.
func transformFactors(p *problem, b *termBuilder, monos []tree) []tree {
	ms := append([]tree{nil}, monos...)
	if len(p.g.vars) <= maxTransformVars {
		if vars, w, ok := powerLawFit(p, true); ok {
			pw := make([]float64, len(w))
			for k := range w {
				pw[k] = math.Round(w[k])
			}
			// The rounded power law itself: the power-law pass seeds it
			// only when it fits, which a factor under a transform spoils
			// (n·α·ε·Ef/(1 − n·α/3) has exponents 1.17 for n and α).
			if t, ok := b.monomial(vars, pw); ok && p.g.fits(t) {
				ms = append(ms, t)
			}
			// Leave out one input, then two.
			for k := range vars {
				for l := k; l < len(vars); l++ {
					if pw[k] == 0 || pw[l] == 0 {
						continue
					}
					q := slices.Clone(pw)
					q[k], q[l] = 0, 0
					if t, ok := b.monomial(vars, q); ok && p.g.fits(t) {
						ms = append(ms, t)
					}
				}
			}
		}
		for _, j := range p.g.vars {
			ms = append(ms, tree{varNode(j)})
		}
	}
	return firstAndDistinct(ms)
}

// affineTree writes c0 + Σ w_k·t_k, fitted by least squares on support S,
// divided by |c0| (or by the largest |w_k| when c0 is 0) so that a weight
// equal to the intercept, as in 1 − (v/c)², carries no constant. The
// positive factor is harmless under every inverse: for powers linear
// scaling absorbs it, and for exp it is a constant exponent scale that the
// constant fitting refines.
func (s *sparseRegression) affineTree(b *termBuilder, S []int, y []float64) (tree, bool) {
	c0, w, ok := s.affineWeights(S, y)
	if !ok {
		return nil, false
	}
	scale, wMax := math.Abs(c0), floats.Norm(w, math.Inf(1))
	if scale < 1e-9*wMax {
		c0, scale = 0, wMax
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, false
	}
	t, ok := b.weightedSum(s.terms(S), w, scale)
	if !ok || c0 == 0 {
		return t, ok
	}
	if !b.has[opAdd] {
		return nil, false
	}
	r := c0 / scale // ±1
	return append(t, constNode(r), opNode(opAdd)), true
}

// affineWeights fits y = c0 + Σ w_k·term_k on support S by unregularised
// (weighted, when the regression is) least squares in the original units.
func (s *sparseRegression) affineWeights(S []int, y []float64) (float64, []float64, bool) {
	return s.leastSquares(S, y, true)
}

// leastSquares fits y = c0 + Σ w_k·term_k on support S by QR, with c0 = 0
// when intercept is false, each row weighted by the regression's weight.
func (s *sparseRegression) leastSquares(S []int, y []float64, intercept bool) (float64, []float64, bool) {
	n, off := len(y), 0
	if intercept {
		off = 1
	}
	a := mat.NewDense(n, len(S)+off, nil)
	b := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		r := 1.0 // √w_i
		if s.w != nil {
			r = math.Sqrt(s.w[i])
		}
		if intercept {
			a.Set(i, 0, r)
		}
		for p, j := range S {
			a.Set(i, p+off, r*s.lib[j].col[i])
		}
		b.SetVec(i, r*y[i])
	}
	var w mat.VecDense
	if err := w.SolveVec(a, b); err != nil {
		return 0, nil, false
	}
	d := w.RawVector().Data
	if !intercept {
		return 0, d, true
	}
	return d[0], d[1:], true
}

// maxNoiseGain bounds the noise gains of the rows the transformed
// regressions fit, relative to the median row's: T(y/M) carries noise
// σ·|T'(z)|/|M| on each row, the gain |T'(z)|/|M|, which is unbounded
// where M nears zero (n·α·ε·Ef/(1 − n·α/3) with n and α from 0) or T' is
// steep. Rows whose gain exceeds maxNoiseGain times the median are left
// out, and the rest are weighted by the inverse of their gain squared
// (inverse-variance weights, by the delta method), with no row weighing
// more than maxNoiseGain² times the median row.
const maxNoiseGain = 10

// noiseWeights returns the positions of the rows to fit (nil for all) and
// their weights (see maxNoiseGain), for z = y/M (mv holds M, nil for 1)
// and gain = |T'|.
func noiseWeights(z, mv []float64, gain func(float64) float64) ([]int, []float64) {
	g := make([]float64, len(z))
	for i, v := range z {
		g[i] = gain(math.Abs(v))
		if mv != nil {
			g[i] /= math.Abs(mv[i])
		}
	}
	med := slices.Sorted(slices.Values(g))[len(g)/2]
	if !(med > 0) || math.IsInf(med, 0) {
		return nil, nil
	}
	var keep []int
	var w []float64
	for i, v := range g {
		if v <= maxNoiseGain*med {
			keep = append(keep, i)
			v = math.Max(v, med/maxNoiseGain)
			w = append(w, 1/(v*v))
		}
	}
	if len(keep) < 20 {
		return nil, nil
	}
	if len(keep) == len(z) {
		keep = nil
	}
	return keep, w
}

// withinAsinRange reports whether y can be asin of something: |y| ≤ π/2,
// up to asinRangeSlack for noise.
func withinAsinRange(y []float64) bool {
	return floats.Norm(y, math.Inf(1)) <= (1+asinRangeSlack)*math.Pi/2
}

// factoredTerms returns M and M·t_k for the library terms t_k on the
// same rows (mv holds M's values), or the terms themselves when M is nil.
// Fitting sin(y) on M·t_k rather than sin(y)/M on t_k keeps the noise of
// the rows where |M| is small from dominating the fit.
func factoredTerms(terms []libraryTerm, m tree, mv []float64) []libraryTerm {
	if m == nil {
		return terms
	}
	out := []libraryTerm{{t: m, col: mv}}
	for _, lt := range terms {
		col := make([]float64, len(mv))
		for i, v := range lt.col {
			col[i] = v * mv[i]
		}
		if usableColumn(col) {
			out = append(out, libraryTerm{t: append(append(m.clone(), lt.t...), opNode(opMul)), col: col})
		}
	}
	return out
}

// asinTree writes asin(k·(Σ (w_k/k)·t_k + c0/k)) for the fit c0 + Σ
// w_k·t_k of sin(y) on support S, with k the largest |w_k|: unlike a
// power, asin does not commute with a constant factor, so the argument
// carries the fitted weights, and the intercept, which noise makes small
// but not zero, stays a small constant that rounding can remove. When the
// argument leaves [−1, 1] on a row of the data (weights fitted to noisy
// data), k shrinks until it does not, so that the seed is defined on every
// row and its constant fitting starts from a valid point.
func (s *sparseRegression) asinTree(b *termBuilder, S []int, sinY []float64, full *evaluator) (tree, bool) {
	c0, w, ok := s.affineWeights(S, sinY)
	if !ok {
		return nil, false
	}
	k := floats.Norm(w, math.Inf(1))
	if !(k > 0) || math.IsInf(k, 0) {
		return nil, false
	}
	arg, ok := b.weightedSum(s.terms(S), w, k)
	if !ok {
		return nil, false
	}
	// An intercept at rounding level (exact data) is left out.
	if math.Abs(c0) > 1e-9*floats.Norm(sinY, math.Inf(1)) {
		if !b.has[opAdd] {
			return nil, false
		}
		arg = append(arg, constNode(c0/k), opNode(opAdd))
	}
	top := k * floats.Norm(full.eval(arg), math.Inf(1))
	if !(top > 0) || math.IsInf(top, 0) {
		return nil, false
	}
	if top > 1 {
		k /= top * (1 + 1e-9)
	}
	if math.Abs(k-1) > 1e-9 {
		arg = append(append(tree{constNode(k)}, arg...), opNode(opMul))
	}
	return append(arg, opNode(opAsin)), true
}

// raise returns t^k with the allowed operators (k ∈ {2, 0.5, −1, −0.5}),
// or false.
func (b *termBuilder) raise(t tree, k float64) (tree, bool) {
	t = t.clone()
	if b.has[opPow] && b.exponents[k] {
		return append(t, powNode(k)), true
	}
	switch k {
	case 2:
		if b.has[opMul] {
			return append(append(t, t...), opNode(opMul)), true
		}
	case 0.5:
		if b.has[opSqrt] {
			return append(t, opNode(opSqrt)), true
		}
	case -1:
		if b.has[opDiv] {
			return append(append(tree{constNode(1)}, t...), opNode(opDiv)), true
		}
	case -0.5:
		if b.has[opDiv] && b.has[opSqrt] {
			return append(append(tree{constNode(1)}, t...), opNode(opSqrt), opNode(opDiv)), true
		}
	}
	return nil, false
}

// firstAndDistinct keeps ms[0] and, after it, the first of each distinct
// tree (by hash) of the rest, in order.
func firstAndDistinct(ms []tree) []tree {
	out := ms[:1]
	seen := map[uint64]bool{}
	for _, m := range ms[1:] {
		if h := m.hash(); !seen[h] {
			seen[h] = true
			out = append(out, m)
		}
	}
	return out
}
