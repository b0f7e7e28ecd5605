package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// Link seeds: a monomial under a one-parameter link (AI Feynman's inverted
// target, Udrescu & Tegmark 2020, Sci. Adv. 6:eaay2631, applied with a
// fitted constant).
//
// Many laws are y = M·g(m) with M and m monomials of the inputs and g one
// of a few functions of statistical physics: Boltzmann factors
// n0·exp(−m·g·x/(k·T)), Bose–Einstein occupation 1/(exp(ħω/(k·T)) − 1),
// diode currents I0·(exp(q·V/(k·T)) − 1), paramagnetic tanh and sech laws
// n·μ·tanh(μ·B/(k·T)) and n0/(2·cosh(μ·B/(k·T))). Inverting g turns such a
// law into a monomial: with z = y/M, T_a(z) = m for a link T_a with one
// constant a (the 1/(2π) of ħ = h/(2π), the 2 of 2·cosh), and a monomial
// is a linear fit in log space, log|T_a(z)| = log|c| + Σ p_j·log|x_j|. So
// for each factor M (transformFactors), each link and a scan over a, the
// pass measures how linear log|T_a(z)| is in the log-inputs, keeps the best
// a, rounds the exponents and seeds y = M·g(c·Π x_j^p_j). The links, with
// their inverses g (tanh and cosh as such where the operators or the seed
// operators allow them, options.go, else written with exp):
//
//	log(a·z)       → z = exp(m)/a
//	log(1 + a/z)   → z = a/(exp(m) − 1)
//	log(1 + a·z)   → z = (exp(m) − 1)/a
//	atanh(a·z)     → z = tanh(m)/a = (exp(2m) − 1)/((exp(2m) + 1)·a)
//	acosh(a/z)     → z = a/cosh(m) = 2a/(exp(m) + exp(−m))
//
// Linear scaling absorbs the constant factors in front (1/a, 2a), and the
// constant fitting of the search refines c and the constants inside g.

// link is one inverted link T_a and its inverse g.
type link struct {
	name string
	// t returns T_a(z) for z > 0, NaN outside its domain.
	t func(z, a float64) float64
	// scale maps the scan variable s ∈ [0, 1] to a for the sample zs
	// (sorted ascending, positive).
	scale func(s float64, zs []float64) float64
	// g is the inverse numerically, up to a constant factor.
	g func(m float64) float64
	// inverse writes g(m), up to a constant factor, with m(k) the tree of
	// k·m; when over is true it writes 1/g(m) instead, which the caller
	// puts under M as M/(1/g(m)), a level shallower than M·(1/(…)).
	inverse func(b *termBuilder, m func(k float64) tree) (g tree, over, ok bool)
}

// logScale maps s ∈ [0, 1] to a ∈ [10⁻³, 10³]·median(z) on a log scale.
func logScale(s float64, zs []float64) float64 {
	return zs[len(zs)/2] * math.Pow(10, 6*s-3)
}

var links = []link{
	{name: "log", g: math.Exp, t: func(z, a float64) float64 { return math.Log(a * z) },
		scale: func(s float64, zs []float64) float64 { return 1 / logScale(s, zs) },
		inverse: func(b *termBuilder, m func(k float64) tree) (tree, bool, bool) {
			return append(m(1), opNode(opExp)), false, true
		}},
	{name: "bose", g: func(m float64) float64 { return 1 / math.Expm1(m) }, t: func(z, a float64) float64 { return math.Log1p(a / z) },
		scale: logScale,
		inverse: func(b *termBuilder, m func(k float64) tree) (tree, bool, bool) {
			if !b.has[opSub] || !b.has[opDiv] {
				return nil, false, false
			}
			return append(m(1), opNode(opExp), constNode(1), opNode(opSub)), true, true
		}},
	{name: "expm1", g: math.Expm1, t: func(z, a float64) float64 { return math.Log1p(a * z) },
		scale: func(s float64, zs []float64) float64 { return 1 / logScale(s, zs) },
		inverse: func(b *termBuilder, m func(k float64) tree) (tree, bool, bool) {
			if !b.has[opSub] {
				return nil, false, false
			}
			return append(m(1), opNode(opExp), constNode(1), opNode(opSub)), false, true
		}},
	{name: "tanh", g: math.Tanh, t: func(z, a float64) float64 {
		if u := a * z; u < 1 {
			return math.Atanh(u)
		}
		return math.NaN()
	},
		// a·z = tanh(r) for r from 0.05 to 6 (a·z < 1) at z = robustMax.
		scale: func(s float64, zs []float64) float64 { return math.Tanh(0.05+5.95*s) / robustMax(zs) },
		inverse: func(b *termBuilder, m func(k float64) tree) (tree, bool, bool) {
			if b.has[opTanh] {
				return append(m(1), opNode(opTanh)), false, true
			}
			if !b.has[opAdd] || !b.has[opSub] || !b.has[opDiv] {
				return nil, false, false
			}
			e := append(m(2), opNode(opExp))
			num := append(e.clone(), constNode(1), opNode(opSub))
			den := append(e, constNode(1), opNode(opAdd))
			return append(append(num, den...), opNode(opDiv)), false, true
		}},
	{name: "sech", g: func(m float64) float64 { return 1 / math.Cosh(m) }, t: func(z, a float64) float64 {
		if u := a / z; u >= 1 {
			return math.Acosh(u)
		}
		return math.NaN()
	},
		// a/z = cosh(r) for r from 0.05 to 6 (a/z ≥ 1) at z = robustMax.
		scale: func(s float64, zs []float64) float64 { return math.Cosh(0.05+5.95*s) * robustMax(zs) },
		inverse: func(b *termBuilder, m func(k float64) tree) (tree, bool, bool) {
			if b.has[opCosh] && b.has[opDiv] {
				return append(m(1), opNode(opCosh)), true, true
			}
			if !b.has[opAdd] || !b.has[opDiv] {
				return nil, false, false
			}
			t := append(m(1), opNode(opExp))
			t = append(append(t, m(-1)...), opNode(opExp), opNode(opAdd))
			return t, true, true
		}},
}

const (
	// linkRows is the number of rows (evenly spaced) the log-space fits use.
	linkRows = 120
	// linkGrid is the number of scan points of a link's constant before a
	// golden-section refinement of the best.
	linkGrid = 32
	// linkRefine is the number of golden-section steps.
	linkRefine = 45
	// linkMaxRSS is the largest share of var(log|T_a(z)|) the monomial may
	// leave unexplained for the pass to write a seed: the pass is for laws
	// that are monomials under the link, up to noise.
	linkMaxRSS = 3e-2
	// maxLinkSeeds caps the seeds of this pass.
	maxLinkSeeds = 4
	// maxLinkRefactors is how many of the best fits get a refitted factor.
	maxLinkRefactors = 6
	// maxUndefinedShare is the largest share of rows on which T_a(z) may
	// be undefined (atanh(a·z) with a·z ≥ 1) for a fit on the others:
	// with noise the rows where tanh saturates scatter past 1/a.
	maxUndefinedShare = 0.05
)

// robustMax is the value below which all but the top maxUndefinedShare
// of the sorted sample zs lie: the scans' reference for a link's range.
func robustMax(zs []float64) float64 {
	return zs[int(float64(len(zs)-1)*(1-maxUndefinedShare))]
}

// linkSeeds returns seeds M·g(c·Π x_j^p_j), best first (see above), or nil
// when a seed so far already fits y exactly or the operators cannot write
// the laws. A seed must fit y about as well as the sparse pass did, whose
// smallest residual (a share of var(y)) is floor, as in transformSeeds.
func linkSeeds(p *problem, monos, seeds []tree, floor float64) []tree {
	b := newSeedBuilder(p.g)
	if !b.has[opExp] || !b.has[opMul] || len(p.y) < 20 || len(p.g.vars) > maxStructureVars {
		return nil
	}
	full := newEvaluator(p.cols, len(p.y))
	for _, t := range seeds {
		if evaluate(full, p.y, t).loss <= exactNMSE*p.varY {
			return nil
		}
	}
	rows := evenRows(len(p.y), linkRows)
	var vars []int
	for _, v := range p.g.vars {
		if sameSign(p.cols[v]) {
			vars = append(vars, v)
		}
	}
	if len(vars) == 0 {
		return nil
	}
	// The log-space design [1, log|x_j|] is the same for every link: its
	// thin QR factor turns each fit into a projection.
	design := newLogDesign(p.cols, vars, rows)
	sub := pickColumns(p.cols, p.g.vars, rows)
	subEv := newEvaluator(sub, len(rows))

	type candidate struct {
		t    tree
		loss float64
	}
	var cands []candidate
	seen := map[uint64]bool{}
	lt := make([]float64, len(rows))
	// A hit is a factor and link whose monomial fits in log space; its
	// g(m) without the factor gives a better factor (refactor).
	type hit struct {
		rss float64
		pw  []float64 // the monomial's exponents over vars
	}
	var hits []hit
	// exact is set once a candidate reproduces y: the rest of the pass
	// can only add seeds the search does not need.
	exact := false
	add := func(t tree) {
		if hs := t.hash(); !seen[hs] {
			seen[hs] = true
			if ind := evaluate(full, p.y, t); ind.loss <= transformSlack*floor*p.varY {
				cands = append(cands, candidate{t, ind.loss})
				exact = exact || ind.loss <= exactNMSE*p.varY
			}
		}
	}
	try := func(m tree) {
		z := make([]float64, len(rows))
		for k, i := range rows {
			z[k] = p.y[i]
		}
		var mv []float64
		if m != nil {
			mv = slices.Clone(subEv.eval(m))
			for k := range z {
				z[k] /= mv[k]
			}
		}
		if !sameSign(z) {
			return
		}
		for k := range z {
			z[k] = math.Abs(z[k])
		}
		zs := slices.Sorted(slices.Values(z))
		for _, l := range links {
			if p.timeUp() || exact {
				return
			}
			// rss is the unexplained share of log|T_a(z)| in log space,
			// +Inf when T_a(z) is undefined, zero or of both signs.
			rss := func(a float64) float64 {
				sign, undefined := 0.0, 0
				for k, v := range z {
					t := l.t(v, a)
					if math.IsNaN(t) || math.IsInf(t, 0) || t == 0 {
						// Rows past the link's range: noise on a saturated
						// tanh; linkWeights leaves them out.
						undefined++
						lt[k] = 0
						continue
					}
					if sign != 0 && (t > 0) != (sign > 0) {
						return math.Inf(1)
					}
					sign = t
					lt[k] = math.Log(math.Abs(t))
				}
				if undefined > int(maxUndefinedShare*float64(len(z))) {
					return math.Inf(1)
				}
				keep, w := linkWeights(l, z, mv, a)
				if w == nil {
					if undefined > 0 {
						return math.Inf(1)
					}
					return design.rss(lt)
				}
				_, r, _ := design.weightedFit(lt, keep, w)
				return r
			}
			s, best := scanLink(func(s float64) float64 { return rss(l.scale(s, zs)) })
			a := l.scale(s, zs)
			if !(best <= linkMaxRSS) {
				continue
			}
			keep, w := linkWeights(l, z, mv, a)
			ts, pw := linkTrees(p, b, design, l, m, z, a, vars, keep, w)
			if pw != nil {
				hits = append(hits, hit{best, pw})
			}
			for _, t := range ts {
				add(t)
			}
		}
	}
	factors := linkFactors(p, b, monos)
	for _, m := range factors {
		if p.timeUp() || exact {
			break
		}
		try(m)
	}
	// Refactor: for the best hits' monomials m, each link's g(c·m) with c
	// scanned so that y/g(c·m) is a monomial M', the factor, in log space.
	// A Bose factor biases a factor fitted first (ħω³/(c²·(exp(ħω/kT) − 1))
	// looks like ω²·k·T/c² in log space), while m comes out right.
	slices.SortStableFunc(hits, func(a, b hit) int { return cmpFloat(a.rss, b.rss) })
	ySub := make([]float64, len(rows))
	for k, i := range rows {
		ySub[k] = p.y[i]
	}
	doneMono := map[uint64]bool{}
	for _, h := range hits {
		if p.timeUp() || exact || len(doneMono) >= maxLinkRefactors {
			break
		}
		mono, ok := b.shallowMonomial(vars, h.pw)
		if !ok || doneMono[mono.hash()] {
			continue
		}
		doneMono[mono.hash()] = true
		u := subEv.eval(mono)
		inv := make([]float64, len(u))
		for k, v := range u {
			inv[k] = math.Abs(1 / v)
		}
		c0 := slices.Sorted(slices.Values(inv))[len(inv)/2]
		r := make([]float64, len(rows))
		for _, l := range links {
			for _, sign := range []float64{1, -1} {
				if sign < 0 && l.name != "log" {
					continue
				}
				scale := func(s float64) float64 { return sign * c0 * math.Pow(10, 6*s-3) }
				rss := func(s float64) float64 {
					c := scale(s)
					for k := range r {
						g := l.g(c * u[k])
						r[k] = ySub[k] / g
						if g == 0 || math.IsNaN(r[k]) || math.IsInf(r[k], 0) {
							return math.Inf(1)
						}
						if k > 0 && (r[k] > 0) != (r[0] > 0) {
							return math.Inf(1)
						}
					}
					for k, v := range r {
						lt[k] = math.Log(math.Abs(v))
					}
					return design.rss(lt)
				}
				s, best := scanLink(rss)
				if !(best <= linkMaxRSS) {
					continue
				}
				c := scale(s)
				rss(s) // leaves y/g(c·m) in r
				m, ok := roundedPowerLaw(b, design, r, vars)
				if !ok {
					m = nil
				}
				arg := func(k float64) tree { return append(append(tree{constNode(k * c)}, mono...), opNode(opMul)) }
				if t, ok := linkTree(b, l, m, arg); ok {
					if t, ok = p.simplest(t); ok {
						add(t)
					}
				}
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmpFloat(a.loss, b.loss) })
	var out []tree
	for _, c := range cands[:min(len(cands), maxLinkSeeds)] {
		out = append(out, c.t)
	}
	return out
}

// scanLink minimises f over s ∈ [0, 1]: a grid, then golden-section steps
// around the best grid point. It returns the minimiser and the minimum.
func scanLink(f func(s float64) float64) (float64, float64) {
	bestS, best := 0.0, math.Inf(1)
	for k := 0; k <= linkGrid; k++ {
		s := float64(k) / linkGrid
		if v := f(s); v < best {
			bestS, best = s, v
		}
	}
	if math.IsInf(best, 1) {
		return bestS, best
	}
	lo, hi := math.Max(bestS-1.0/linkGrid, 0), math.Min(bestS+1.0/linkGrid, 1)
	const phi = 0.6180339887498949
	x1, x2 := hi-phi*(hi-lo), lo+phi*(hi-lo)
	f1, f2 := f(x1), f(x2)
	for k := 0; k < linkRefine; k++ {
		if f1 <= f2 {
			hi, x2, f2 = x2, x1, f1
			x1 = hi - phi*(hi-lo)
			f1 = f(x1)
		} else {
			lo, x1, f1 = x1, x2, f2
			x2 = lo + phi*(hi-lo)
			f2 = f(x2)
		}
	}
	for _, c := range []struct{ s, v float64 }{{x1, f1}, {x2, f2}} {
		if c.v < best {
			bestS, best = c.s, c.v
		}
	}
	return bestS, best
}

// linkTrees fits log|T_a(z)| = log|c| + Σ p_j·log|x_j| against the pass's
// design, rounds the exponents to integers and to halves, refits c and
// writes M·g(c·Π x_j^p_j) for each rounding.
func linkTrees(p *problem, b *termBuilder, d *logDesign, l link, m tree, z []float64, a float64, vars []int, keep []int, weights []float64) ([]tree, []float64) {
	n := len(z)
	lt := make([]float64, n)
	sign := math.Copysign(1, l.t(z[0], a))
	for k, v := range z {
		lt[k] = math.Log(math.Abs(l.t(v, a)))
	}
	if keep == nil {
		keep = evenRows(n, n)
	}
	if weights == nil {
		weights = make([]float64, len(keep))
		floats.AddConst(1, weights)
	}
	w, _, ok := d.weightedFit(lt, keep, weights)
	if !ok {
		return nil, nil
	}
	var out []tree
	var integer []float64
	for _, step := range []float64{1, 0.5} {
		pw := make([]float64, len(vars))
		zero := true
		for q := range vars {
			pw[q] = math.Round(w[q+1]/step) * step
			zero = zero && pw[q] == 0
		}
		if zero {
			continue
		}
		if step == 1 {
			integer = pw
		}
		// log|c| is the (weighted) mean of what the rounded monomial leaves.
		var lc, sw float64
		for r, k := range keep {
			res := lt[k]
			for q := range vars {
				res -= pw[q] * d.x.At(k, q+1)
			}
			lc += weights[r] * res
			sw += weights[r]
		}
		c := sign * math.Exp(lc/sw)
		mono, ok := b.shallowMonomial(vars, pw)
		if !ok {
			continue
		}
		arg := func(k float64) tree { return append(append(tree{constNode(k * c)}, mono...), opNode(opMul)) }
		if g, ok := linkTree(b, l, m, arg); ok {
			if g, ok = p.simplest(g); ok {
				out = append(out, g)
			}
		}
	}
	return out, integer
}

// linkWeights returns the rows and weights of the log-space fit of
// log|T_a(z)| for z = y/M (mv holds M, nil for 1), by noiseWeights: the
// noise of log|T_a(z)| is σ·|d log|T_a|/dz|/|M| (the delta method), which
// is large where T_a is steep, as atanh(a·z) is where tanh saturates
// (II.35.21 at 1 % noise). The derivative is taken numerically.
func linkWeights(l link, z, mv []float64, a float64) ([]int, []float64) {
	const h = 1e-5
	return noiseWeights(z, mv, func(v float64) float64 {
		up, down := l.t(v*(1+h), a), l.t(v*(1-h), a)
		d := (math.Log(math.Abs(up)) - math.Log(math.Abs(down))) / (2 * h * v)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return math.Inf(1)
		}
		return math.Abs(d)
	})
}

// linkTree writes M·g(m) for link l, or g(m) when M is nil; arg(k) is the
// tree of k·m.
func linkTree(b *termBuilder, l link, m tree, arg func(k float64) tree) (tree, bool) {
	g, over, ok := l.inverse(b, arg)
	switch {
	case !ok:
		return nil, false
	case over && m != nil:
		g = append(append(m.clone(), g...), opNode(opDiv))
	case over:
		g = append(append(tree{constNode(1)}, g...), opNode(opDiv))
	case m != nil:
		g = append(append(m.clone(), g...), opNode(opMul))
	}
	return g, true
}

// linkFactors lists the factors M the links are tried under: those of the
// target transforms, every single input and every product of two inputs
// (n·μ of n·μ·tanh(μB/kT), ħω of the Bose law), without repeats.
func linkFactors(p *problem, b *termBuilder, monos []tree) []tree {
	ms := transformFactors(p, b, monos)
	for a, i := range p.g.vars {
		ms = append(ms, tree{varNode(i)})
		if b.has[opMul] {
			for _, j := range p.g.vars[a+1:] {
				ms = append(ms, tree{varNode(i), varNode(j), opNode(opMul)})
			}
		}
	}
	return firstAndDistinct(ms)
}

// roundedPowerLaw fits log|r| = c + Σ p_j·log|x_j| against the pass's
// design (r on its rows) and returns Π x_j^round(p_j) over vars, or false
// when r changes sign or every exponent rounds to zero.
func roundedPowerLaw(b *termBuilder, d *logDesign, r []float64, vars []int) (tree, bool) {
	if !sameSign(r) {
		return nil, false
	}
	lr := make([]float64, len(r))
	for k, v := range r {
		lr[k] = math.Log(math.Abs(v))
	}
	w, ok := d.fit(lr)
	if !ok {
		return nil, false
	}
	pw := make([]float64, len(vars))
	for q := range vars {
		pw[q] = math.Round(w[q+1])
	}
	return b.shallowMonomial(vars, pw)
}

// shallowMonomial returns Π x_v^k as num/den, each a balanced product of
// the positive powers, so that a monomial nested in a link's inverse keeps
// within the depth limit; false when the operators cannot write it.
func (b *termBuilder) shallowMonomial(vars []int, powers []float64) (tree, bool) {
	var num, den []tree
	for i, v := range vars {
		k := powers[i]
		if k == 0 {
			continue
		}
		f, ok := b.power(v, math.Abs(k))
		if !ok {
			return nil, false
		}
		if k > 0 {
			num = append(num, f)
		} else {
			den = append(den, f)
		}
	}
	if (len(num) > 1 || len(den) > 1) && !b.has[opMul] || len(den) > 0 && !b.has[opDiv] {
		return nil, false
	}
	var balanced func(fs []tree) tree
	balanced = func(fs []tree) tree {
		if len(fs) == 1 {
			return fs[0]
		}
		h := len(fs) / 2
		return append(append(balanced(fs[:h]), balanced(fs[h:])...), opNode(opMul))
	}
	switch {
	case len(num) == 0 && len(den) == 0:
		return nil, false
	case len(den) == 0:
		return balanced(num), true
	case len(num) == 0:
		return append(append(tree{constNode(1)}, balanced(den)...), opNode(opDiv)), true
	}
	return append(append(balanced(num), balanced(den)...), opNode(opDiv)), true
}
