package symbolic

import (
	"math"
	"slices"
)

const (
	// maxExpSeeds caps the exponential seeds; a few good ones are enough and
	// the rest of the seed budget belongs to the other passes.
	maxExpSeeds = 4
	// expSeedRSS is the largest share of var(log|y|) an exponential seed may
	// leave unexplained. A weaker log-space fit is no better a start than a
	// random tree.
	expSeedRSS = 1e-2
	// maxExpTerms bounds the terms inside the exponential. The factors this
	// pass is for have one or two ((x−μ)² expands to x² and x); a longer
	// exponent is a series for log y, which fits any smooth positive law.
	maxExpTerms = 2
)

// exponentialSeeds fits log|y| = c + Σ p_j·log|x_j| + Σ w_k·t_k by sparse
// regression and seeds y = Π x_j^p_j · exp(Σ w_k·t_k); linear scaling
// supplies e^c and the sign. The t_k are the candidate library's terms and
// squared ratios (x_i/x_j)². Gaussians, Boltzmann and Arrhenius factors have
// this shape: exp(−(θ/σ)²/2)/σ is log y = c − log σ − ½·(θ/σ)², two terms in
// log space, while no sparse combination of library terms fits y itself.
// Only variables of constant sign enter as log|x_j|, and y must keep its
// sign; a fit without any exponential term is a power law, which
// powerLawSeeds already offers.
//
// A smooth positive law that is no exponential also has a fair series for
// log y, so a seed must fit y better than the sparse pass did, whose
// smallest residual (a share of var(y)) is floor.
func exponentialSeeds(p *problem, lib []libraryTerm, floor float64) []tree {
	b := newTermBuilder(p.g)
	if !sameSign(p.y) || !b.has[opExp] || !b.has[opMul] || p.timeUp() {
		return nil
	}
	var logVars []int
	var terms []libraryTerm
	for _, v := range p.g.vars {
		if !sameSign(p.cols[v]) {
			continue
		}
		col := make([]float64, len(p.y))
		for i, x := range p.cols[v] {
			col[i] = math.Log(math.Abs(x))
		}
		if usableColumn(col) {
			logVars = append(logVars, v)
			terms = append(terms, libraryTerm{col: col})
		}
	}
	nLog := len(terms)
	terms = append(terms, lib...)
	terms = append(terms, squaredRatios(p, b)...)
	if len(terms) == nLog {
		return nil
	}
	ly := make([]float64, len(p.y))
	for i, v := range p.y {
		ly[i] = math.Log(math.Abs(v))
	}
	if !usableColumn(ly) || p.timeUp() {
		return nil
	}

	s := newSparseRegression(terms, ly, p.timeUp)
	cand := s.independent()
	models := append(s.forward(cand, 4, maxSeedTerms), s.stlsq(cand)...)
	models = append(models, s.bestPairs(cand, maxExpSeeds)...)
	slices.SortStableFunc(models, func(a, b sparseModel) int { return cmpFloat(a.rss, b.rss) })
	var seeds []tree
	seen := map[uint64]bool{}
	ev := newEvaluator(p.cols, len(p.y))
	for _, m := range models {
		if m.rss > expSeedRSS || len(seeds) >= maxExpSeeds || p.timeUp() {
			break
		}
		w, ok := s.weights(m.support, ly)
		if !ok {
			continue
		}
		t, ok := expSeed(b, s, m.support, w, logVars, nLog)
		if !ok || !p.g.fits(t) {
			continue
		}
		if _, _, mse, ok := linearScale(ev.eval(t), p.y); !ok || mse >= floor*p.varY {
			continue
		}
		if h := t.hash(); !seen[h] {
			seen[h] = true
			seeds = append(seeds, t)
		}
	}
	return seeds
}

// expSeed writes the log-space model with support S and weights w as
// Π x_j^p_j · exp(Σ w_k·t_k). Support entries below nLog are log|x_j| of
// logVars[j]; their weights are exponents, rounded to halves as in
// powerLawSeeds.
func expSeed(b *termBuilder, s *sparseRegression, S []int, w []float64, logVars []int, nLog int) (tree, bool) {
	var vars []int
	var powers, coef []float64
	var inExp []int
	for k, j := range S {
		if j < nLog {
			vars = append(vars, logVars[j])
			powers = append(powers, math.Round(2*w[k])/2)
			continue
		}
		inExp = append(inExp, j)
		coef = append(coef, w[k])
	}
	if len(inExp) == 0 || len(inExp) > maxExpTerms {
		return nil, false
	}
	arg, ok := b.weightedSum(s.terms(inExp), coef, 1)
	if !ok {
		return nil, false
	}
	t := append(arg, opNode(opExp))
	if mono, ok := b.monomial(vars, powers); ok {
		t = append(append(mono, t...), opNode(opMul))
	}
	return t, true
}

// maxRatioTerms caps the squared ratios a pass receives. With v inputs
// there are v(v−1) of them, which would make the library, its Gram matrix
// and the sparse regressions grow with the square of the columns; up to 10
// inputs (90 ratios) every ratio is kept.
const maxRatioTerms = 100

// squaredRatios returns (x_i/x_j)² for ordered pairs of variables, the
// argument of Gaussians in a scaled variable, in pair order. Beyond
// maxRatioTerms ratios it keeps the maxRatioTerms most correlated in
// absolute value with log|y| (with y when y changes sign), sure
// independence screening (Fan & Lv 2008, J. R. Stat. Soc. B 70:849): the
// terms of a sparse law are among those most correlated with its target,
// and the ratios serve laws of the form y = M·exp(−c·(x_i/x_j)²), linear
// in log space. The screen scores the ratios on the search rows (at most
// maxSearchRows), so its cost does not grow with the rows, and holds only
// the kept columns; the kept ratios are then evaluated on all rows. The
// scan stops when the search's time is up.
func squaredRatios(p *problem, b *termBuilder) []libraryTerm {
	if !b.has[opDiv] && !b.has[opPow] {
		return nil
	}
	ev := newEvaluator(p.cols, len(p.y))
	var out []libraryTerm
	add := func(t tree) {
		if f := ev.eval(t); usableColumn(f) {
			out = append(out, libraryTerm{t: t, col: append([]float64(nil), f...)})
		}
	}
	v := len(p.g.vars)
	var scr *screen // nil: every ratio is kept
	var sub *evaluator
	if v*(v-1) > maxRatioTerms {
		target := p.searchY
		if sameSign(target) {
			target = make([]float64, len(p.searchY))
			for i, y := range p.searchY {
				target[i] = math.Log(math.Abs(y))
			}
		}
		scr, sub = newScreen(target, maxRatioTerms), newEvaluator(p.searchCols, len(p.searchY))
	}
	for _, i := range p.g.vars {
		if scr != nil && p.timeUp() {
			return nil
		}
		for _, j := range p.g.vars {
			if i == j {
				continue
			}
			t, ok := b.monomial([]int{i, j}, []float64{2, -2})
			switch {
			case !ok:
			case scr == nil:
				add(t)
			default:
				if f := sub.eval(t); usableColumn(f) {
					scr.offer(t, f)
				}
			}
		}
	}
	if scr != nil {
		for _, kept := range scr.terms() {
			add(kept.t)
		}
	}
	return out
}
