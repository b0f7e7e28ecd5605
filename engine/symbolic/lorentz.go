package symbolic

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// Lorentz factors: a numerator that is a sum (Feynman I.15.3x, x' = (x −
// u·t)/sqrt(1 − u²/c²), and I.15.3t, t' = (t − u·x/c²)/sqrt(1 − u²/c²);
// Feynman Lectures I, eq. 15.3; Udrescu & Tegmark 2020, Sci. Adv.
// 6:eaay2631, table S1).
//
// The target transforms (transform.go) find y = M/sqrt(1 − (v/c)²) when M
// is a monomial: (y/M)^−2 = 1 − (v/c)² is two terms. When the numerator
// is a sum, no monomial M makes y/M a function of v/c alone, and the
// power law, the factor move and the transforms all miss it. But dividing
// y by the factor γ = 1/sqrt(1 − (a/b)²) of the right pair of inputs
// leaves the numerator, a short sum. So for each ordered pair of inputs
// with |a| < |b| on every row (the only pairs for which γ is defined on
// the data), lorentzSeeds fits y·sqrt(1 − (a/b)²) as a short sparse sum
// Σ w_k·t_k without intercept, over the library and the products
// x_i·x_j/b and x_i·x_j/b² of the other inputs (u·x/c², ω0·v/c: a
// Lorentz transformation's terms carry b once or twice), and writes
// Σ w_k·t_k/sqrt(1 − (a/b)²). Monomial numerators (m0, m0·v, m·c²) come
// out too, so the pass also seeds the laws the transforms find, in the
// law's own form.

const (
	// maxLorentzPairs caps the pairs tried, those whose ratio comes
	// closest to 1 first.
	maxLorentzPairs = 4
	// minLorentzRatio is the largest |a/b| below which a pair is not
	// tried: γ then differs from 1 by at most 0.5 % on the data, which no
	// fit tells from a constant.
	minLorentzRatio = 0.1
	// maxLorentzSeeds caps the seeds of this pass.
	maxLorentzSeeds = 4
)

// lorentzPair is a pair of inputs with |a| < |b| on every row and the
// largest |a/b| over the rows.
type lorentzPair struct {
	a, b int
	top  float64
}

// lorentzPairs returns the pairs lorentzSeeds tries, closest to |a/b| = 1
// first, at most maxLorentzPairs.
func lorentzPairs(p *problem) []lorentzPair {
	var out []lorentzPair
	for _, a := range p.g.vars {
		for _, b := range p.g.vars {
			if a == b {
				continue
			}
			top, ok := 0.0, true
			for i, x := range p.cols[a] {
				r := math.Abs(x / p.cols[b][i])
				if !(r < 1) {
					ok = false
					break
				}
				top = math.Max(top, r)
			}
			if ok && top >= minLorentzRatio {
				out = append(out, lorentzPair{a, b, top})
			}
		}
	}
	slices.SortStableFunc(out, func(x, y lorentzPair) int { return cmp.Compare(y.top, x.top) })
	return out[:min(len(out), maxLorentzPairs)]
}

// lorentzSeeds returns seeds Σ w_k·t_k/sqrt(1 − (a/b)²), best (by bic)
// first (see above), or nil when the operators cannot write them or there are more
// than maxTransformVars inputs. A seed must fit y about as well as the
// sparse pass did, whose smallest residual (a share of var(y)) is floor,
// as in transformSeeds.
func lorentzSeeds(p *problem, lib []libraryTerm, floor float64) []tree {
	tb := newSeedBuilder(p.g)
	d := len(p.g.vars)
	if len(lib) == 0 || d < 2 || d > maxTransformVars || len(p.y) < 20 ||
		!tb.has[opMul] || !tb.has[opDiv] || !tb.has[opSub] {
		return nil
	}
	pairs := lorentzPairs(p)
	if len(pairs) == 0 {
		return nil
	}
	rows := evenRows(len(p.y), transformRows)
	sub := pickColumns(p.cols, p.g.vars, rows)
	subEv, full := newEvaluator(sub, len(rows)), newEvaluator(p.cols, len(p.y))
	base := termsOn(lib[:min(len(lib), maxTransformLibrary)], rows)
	seeds := newRankedSeeds(p, full, floor)
	for _, pr := range pairs {
		if p.timeUp() {
			break
		}
		root, ok := tb.lorentzRoot(pr.a, pr.b)
		if !ok {
			continue
		}
		rv := subEv.eval(root)
		z := make([]float64, len(rows))
		for k, i := range rows {
			z[k] = p.y[i] * rv[k]
		}
		if !usableColumn(z) {
			continue
		}
		terms := append(slices.Clone(base), lorentzTerms(tb, subEv, p.g.vars, pr.b)...)
		s := newSparseRegression(terms, z, p.timeUp)
		cand := s.independent()
		for _, sm := range append(s.forward(cand, 4, maxTransformTerms), s.bestPairs(cand, 4)...) {
			num, ok := s.throughOrigin(tb, sm.support, z)
			if !ok {
				continue
			}
			seeds.add(append(append(num, root...), opNode(opDiv)))
		}
	}
	return seeds.best(maxLorentzSeeds)
}

// lorentzRoot writes sqrt(1 − (a/b)²), as short as the operators allow.
func (tb *termBuilder) lorentzRoot(a, b int) (tree, bool) {
	ratio := tree{varNode(a), varNode(b), opNode(opDiv)}
	sq, ok := tb.raise(ratio, 2)
	if !ok {
		return nil, false
	}
	inner := append(append(tree{constNode(1)}, sq...), opNode(opSub))
	if tb.has[opSqrt] {
		return append(inner, opNode(opSqrt)), true
	}
	return tb.raise(inner, 0.5)
}

// lorentzTerms returns x_i·x_j/b and x_i·x_j/b² for the pairs i ≤ j of
// inputs other than b, on the evaluator's rows.
func lorentzTerms(tb *termBuilder, ev *evaluator, vars []int, b int) []libraryTerm {
	var out []libraryTerm
	for x, i := range vars {
		for _, j := range vars[x:] {
			if i == b || j == b {
				continue
			}
			for _, k := range []float64{-1, -2} {
				vs, ks := []int{i, j, b}, []float64{1, 1, k}
				if i == j {
					vs, ks = []int{i, b}, []float64{2, k}
				}
				if t, ok := tb.monomial(vs, ks); ok {
					if c := ev.eval(t); usableColumn(c) {
						out = append(out, libraryTerm{t: t, col: slices.Clone(c)})
					}
				}
			}
		}
	}
	return out
}

// throughOrigin writes Σ (w_k/w_max)·t_k for the least-squares fit of y
// on support S without intercept: a numerator under the Lorentz factor
// has none, and the search's linear scaling adds the law's own outer
// scale and offset.
func (s *sparseRegression) throughOrigin(tb *termBuilder, S []int, y []float64) (tree, bool) {
	_, ws, ok := s.leastSquares(S, y, false)
	if !ok {
		return nil, false
	}
	scale := floats.Norm(ws, math.Inf(1))
	if !(scale > 0) || math.IsInf(scale, 0) {
		return nil, false
	}
	return tb.weightedSum(s.terms(S), ws, scale)
}
