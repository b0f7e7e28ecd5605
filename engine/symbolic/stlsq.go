package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/discolab/disco/engine/internal/stlsq"
)

// sparseModel is a support (indices into the library) with its fit.
type sparseModel struct {
	support []int
	rss     float64 // residual sum of squares per row, in units of var(y)
}

// sparseRegression fits y as a sparse linear combination of library terms
// and returns candidate supports, best first. Two searches share one Gram
// matrix of the standardised terms:
//
//   - sequentially thresholded least squares (STLSQ, as in SINDy): solve a
//     ridge-regularised least-squares problem, drop the terms whose
//     standardised coefficient is below a threshold, repeat; a ladder of
//     thresholds yields supports of different sparsity;
//   - forward stepwise selection, which adds the term that lowers the
//     residual most, and copes better with strongly correlated terms
//     (x, x², x³ on a positive range) that make thresholding unstable.
type sparseRegression struct {
	lib   []libraryTerm
	mean  []float64
	sd    []float64
	sdY   float64
	gram  *mat.SymDense // correlation matrix of the terms
	corrY []float64     // correlation of each term with y
	// stop, when set, reports that the search's time is up; forward,
	// stlsq and bestPairs then return what they have found so far.
	stop func() bool
	// w holds the rows' weights (mean 1) of a weighted regression, nil
	// for equal weights.
	w []float64
}

// stopped reports whether the regression must stop (never, without stop).
func (s *sparseRegression) stopped() bool { return s.stop != nil && s.stop() }

const (
	maxSeedTerms  = 5 // largest support tried by forward selection
	maxSTLSQTerms = 8 // largest STLSQ support kept as a seed
	// bestTriples tries every support of three of the first
	// maxTripleCands candidates and keeps the best sparseTriples.
	maxTripleCands = 150
	sparseTriples  = 4
	ridge          = 1e-8 // keeps the normal equations positive definite
)

// newSparseRegression standardises lib and y for the sparse searches; stop
// (the search's timeUp, or nil for none) ends them at the deadline, so no
// seeding pass can run a regression past it.
func newSparseRegression(lib []libraryTerm, y []float64, stop func() bool) *sparseRegression {
	return newWeightedSparseRegression(lib, y, nil, stop)
}

// newWeightedSparseRegression is newSparseRegression for weighted least
// squares: row i counts w[i] times (nil: equal weights). The weights are
// scaled to mean 1, and the means, spreads, Gram matrix and correlations
// are the weighted ones, so every search on it minimises the weighted
// residual.
func newWeightedSparseRegression(lib []libraryTerm, y, w []float64, stop func() bool) *sparseRegression {
	n := len(y)
	m := len(lib)
	s := &sparseRegression{lib: lib, mean: make([]float64, m), sd: make([]float64, m), corrY: make([]float64, m), stop: stop}
	root := make([]float64, n) // √w_i
	for i := range root {
		root[i] = 1
	}
	if w != nil {
		s.w = make([]float64, n)
		mw := stat.Mean(w, nil)
		for i, v := range w {
			s.w[i] = v / mw
			root[i] = math.Sqrt(s.w[i])
		}
	}
	my, sy := popMeanStdDev(y, s.w)
	s.sdY = sy
	z := mat.NewDense(n, m, nil)
	for j, t := range lib {
		mj, sj := popMeanStdDev(t.col, s.w)
		s.mean[j], s.sd[j] = mj, sj
		for i, v := range t.col {
			z.Set(i, j, root[i]*(v-mj)/sj)
		}
	}
	yz := mat.NewVecDense(n, nil)
	for i, v := range y {
		yz.SetVec(i, root[i]*(v-my)/sy)
	}
	s.gram = mat.NewSymDense(m, nil)
	s.gram.SymOuterK(1/float64(n), z.T())
	c := mat.NewVecDense(m, nil)
	c.MulVec(z.T(), yz)
	for j := range s.corrY {
		s.corrY[j] = c.AtVec(j) / float64(n)
	}
	return s
}

// popMeanStdDev is the (weighted) mean and population standard deviation.
func popMeanStdDev(x, w []float64) (float64, float64) {
	m := stat.Mean(x, w)
	return m, math.Sqrt(stat.MomentAbout(2, x, m, w))
}

// solve returns the ridge least-squares weights on support S and the
// resulting residual variance (in units of var(y)).
func (s *sparseRegression) solve(S []int) ([]float64, float64, bool) {
	k := len(S)
	a := mat.NewSymDense(k, nil)
	b := mat.NewVecDense(k, nil)
	for p, i := range S {
		for q := p; q < k; q++ {
			a.SetSym(p, q, s.gram.At(i, S[q]))
		}
		a.SetSym(p, p, a.At(p, p)+ridge)
		b.SetVec(p, s.corrY[i])
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, math.Inf(1), false
	}
	w := mat.NewVecDense(k, nil)
	if err := ch.SolveVecTo(w, b); err != nil {
		return nil, math.Inf(1), false
	}
	// rss = 1 − 2wᵀc + wᵀGw, and at the optimum Gw ≈ c, so rss ≈ 1 − wᵀc.
	rss := 1 - mat.Dot(w, b)
	return w.RawVector().Data, math.Max(rss, 0), true
}

// independent drops terms that duplicate an earlier one (|corr| ≈ 1).
func (s *sparseRegression) independent() []int { return s.independentExcept(-1) }

// independentExcept is independent over all terms but skip.
func (s *sparseRegression) independentExcept(skip int) []int {
	var keep []int
	for j := range s.lib {
		if j == skip {
			continue
		}
		dup := false
		for _, i := range keep {
			if math.Abs(s.gram.At(i, j)) > 1-1e-9 {
				dup = true
				break
			}
		}
		if !dup {
			keep = append(keep, j)
		}
	}
	return keep
}

// forward runs forward stepwise selection over the candidates and returns
// the nested supports it visits, plus the best single terms.
func (s *sparseRegression) forward(cand []int, singles, maxTerms int) []sparseModel {
	var out []sparseModel
	type scored struct {
		j   int
		rss float64
	}
	var S []int
	for step := 0; step < maxTerms && step < len(cand); step++ {
		var all []scored
		for _, j := range cand {
			if s.stopped() {
				return out
			}
			if slices.Contains(S, j) {
				continue
			}
			_, rss, ok := s.solve(append(slices.Clone(S), j))
			if ok {
				all = append(all, scored{j, rss})
			}
		}
		if len(all) == 0 {
			break
		}
		slices.SortStableFunc(all, func(a, b scored) int { return cmpFloat(a.rss, b.rss) })
		if step == 0 {
			for _, c := range all[:min(singles, len(all))] {
				out = append(out, sparseModel{support: []int{c.j}, rss: c.rss})
			}
		} else {
			out = append(out, sparseModel{support: append(slices.Clone(S), all[0].j), rss: all[0].rss})
		}
		S = append(S, all[0].j)
		if all[0].rss < 1e-14 {
			break
		}
	}
	return out
}

// bestPairs tries every support of two candidates and returns the k with
// the lowest residual, best first. Greedy forward selection misses a pair
// whose first term is not the best single term (in log space, −log σ and
// (θ/σ)² of a Gaussian); with a few hundred candidates trying all pairs is
// still cheap: each is a 2×2 system on the shared Gram matrix, solved in
// closed form as solve would (same ridge, same residual).
func (s *sparseRegression) bestPairs(cand []int, k int) []sparseModel {
	var out []sparseModel
	for a, i := range cand {
		if s.stopped() {
			break
		}
		gii, ci := s.gram.At(i, i)+ridge, s.corrY[i]
		for _, j := range cand[a+1:] {
			gjj, gij, cj := s.gram.At(j, j)+ridge, s.gram.At(i, j), s.corrY[j]
			det := gii*gjj - gij*gij
			if !(det > 0) {
				continue
			}
			wi, wj := (gjj*ci-gij*cj)/det, (gii*cj-gij*ci)/det
			rss := math.Max(1-(wi*ci+wj*cj), 0)
			if len(out) < k || rss < out[len(out)-1].rss {
				m := sparseModel{support: []int{i, j}, rss: rss}
				at, _ := slices.BinarySearchFunc(out, rss, func(e sparseModel, r float64) int { return cmpFloat(e.rss, r) })
				out = slices.Insert(out, at, m)
				if len(out) > k {
					out = out[:k]
				}
			}
		}
	}
	return out
}

// bestTriples tries every support of three candidates and returns the k
// with the lowest residual, best first, as bestPairs does for two. Each
// is a 3×3 system on the shared Gram matrix, solved by Cramer's rule
// with the same ridge as solve.
func (s *sparseRegression) bestTriples(cand []int, k int) []sparseModel {
	var out []sparseModel
	g := func(i, j int) float64 {
		if i == j {
			return s.gram.At(i, i) + ridge
		}
		return s.gram.At(i, j)
	}
	for a, i := range cand {
		if s.stopped() {
			break
		}
		for b, j := range cand[a+1:] {
			gii, gij, gjj := g(i, i), g(i, j), g(j, j)
			ci, cj := s.corrY[i], s.corrY[j]
			for _, l := range cand[a+1+b+1:] {
				gil, gjl, gll, cl := g(i, l), g(j, l), g(l, l), s.corrY[l]
				// The cofactors of the symmetric matrix [[gii gij gil]
				// [gij gjj gjl] [gil gjl gll]].
				k11, k12, k13 := gjj*gll-gjl*gjl, gil*gjl-gij*gll, gij*gjl-gil*gjj
				k22, k23, k33 := gii*gll-gil*gil, gij*gil-gii*gjl, gii*gjj-gij*gij
				det := gii*k11 + gij*k12 + gil*k13
				if !(det > 1e-12) {
					continue
				}
				wi := (k11*ci + k12*cj + k13*cl) / det
				wj := (k12*ci + k22*cj + k23*cl) / det
				wl := (k13*ci + k23*cj + k33*cl) / det
				rss := math.Max(1-(wi*ci+wj*cj+wl*cl), 0)
				if len(out) < k || rss < out[len(out)-1].rss {
					m := sparseModel{support: []int{i, j, l}, rss: rss}
					at, _ := slices.BinarySearchFunc(out, rss, func(e sparseModel, r float64) int { return cmpFloat(e.rss, r) })
					out = slices.Insert(out, at, m)
					if len(out) > k {
						out = out[:k]
					}
				}
			}
		}
	}
	return out
}

// stlsq runs sequentially thresholded ridge regression for a ladder of
// thresholds and returns the distinct small supports found.
func (s *sparseRegression) stlsq(cand []int) []sparseModel {
	var out []sparseModel
	solve := func(S []int) ([]float64, bool) {
		if s.stopped() {
			return nil, false
		}
		w, _, ok := s.solve(S)
		return w, ok
	}
	for _, tau := range []float64{1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3} {
		if s.stopped() {
			break
		}
		S, ok := stlsq.Threshold(cand, tau, 25, solve)
		if !ok || len(S) == 0 || len(S) > maxSTLSQTerms {
			continue
		}
		if _, rss, ok := s.solve(S); ok {
			out = append(out, sparseModel{support: S, rss: rss})
		}
	}
	return out
}

// tree turns a support into Σ w_j·term_j in the original units, up to the
// scale and offset that linear scaling supplies. An exact support gives an
// exact seed (see weights).
func (s *sparseRegression) tree(b *termBuilder, S []int, y []float64) (tree, bool) {
	coef, ok := s.weights(S, y)
	if !ok {
		return nil, false
	}
	return b.linearCombination(s.terms(S), coef)
}

// weights fits y = c + Σ w_j·term_j on support S in the original units and
// returns the w_j. The fit is unregularised least squares (QR) on the raw
// terms plus an intercept, so an exact support gives exact weights.
func (s *sparseRegression) weights(S []int, y []float64) ([]float64, bool) {
	_, w, ok := s.affineWeights(S, y)
	return w, ok
}

// terms returns the library terms of support S.
func (s *sparseRegression) terms(S []int) []tree {
	out := make([]tree, len(S))
	for p, j := range S {
		out[p] = s.lib[j].t
	}
	return out
}

// sparseSeeds runs the sparse-regression pass and returns its models as
// trees, best first, for seeding the populations. When y keeps one sign
// and square roots are allowed it also fits y² and seeds the square roots
// of those models, which catches distances and magnitudes such as
// sqrt((x2 − x1)^2 + (y2 − y1)^2). It also returns the smallest residual
// of its fits of y, as a share of var(y) (1 without any).
func sparseSeeds(p *problem, lib []libraryTerm) ([]tree, float64) {
	best := 1.0
	if len(lib) == 0 {
		return nil, best
	}
	b := newTermBuilder(p.g)
	var seeds []tree
	seen := map[uint64]bool{}
	targets := [][]float64{p.y}
	if sameSign(p.y) && (b.has[opSqrt] || b.has[opPow]) {
		y2 := make([]float64, len(p.y))
		for i, v := range p.y {
			y2[i] = v * v
		}
		targets = append(targets, y2)
	}
	for k, y := range targets {
		if p.timeUp() {
			break
		}
		s := newSparseRegression(lib, y, p.timeUp)
		cand := s.independent()
		models := append(s.forward(cand, 8, maxSeedTerms), s.stlsq(cand)...)
		// Greedy selection goes astray when the best single term is not
		// in the law: for I1 + I2 + 2·sqrt(I1·I2)·cos δ (I.37.4) at 1 %
		// noise it starts from cos δ, and I1·I2 stands in for I1 + I2
		// beside the cross term, so no path and no best pair holds I1 and
		// I2. The best triples hold the law.
		models = append(models, s.bestTriples(cand[:min(len(cand), maxTripleCands)], sparseTriples)...)
		slices.SortStableFunc(models, func(a, b sparseModel) int { return cmpFloat(a.rss, b.rss) })
		if k == 0 && len(models) > 0 {
			best = models[0].rss
		}
		for _, m := range models {
			t, ok := s.tree(b, m.support, y)
			if !ok {
				continue
			}
			if k == 1 {
				if b.has[opSqrt] {
					t = append(t, opNode(opSqrt))
				} else {
					t = append(t, powNode(0.5))
				}
			}
			if !p.g.fits(t) {
				continue
			}
			if h := t.hash(); !seen[h] {
				seen[h] = true
				seeds = append(seeds, t)
			}
		}
	}
	return seeds, best
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
