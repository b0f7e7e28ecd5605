package causal

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// lingamDiscount scales every LiNGAM orientation confidence. Unlike
// collider and Meek orientations, which follow from the independence tests
// alone, a LiNGAM direction also rests on assumptions the data can only
// partly check (linear effects, non-Gaussian noise, no hidden common
// cause), so it is never reported as surely as a test-implied one. The
// value is a policy choice, not an estimate.
const lingamDiscount = 0.8

// lingamBootstrap is the largest number of bootstrap resamples used to judge
// how stable the direction of an edge is.
const lingamBootstrap = 100

// Sequential bootstrap: after every lingamBatch resamples the bootstrap
// stops early when the outcome is already clear. It stops as failed as soon
// as more resamples disagree than the agreement threshold allows (agree is
// then an upper bound, still below it); it stops as passed when every
// resample so far agrees and the bootstrap likelihood ratios lie so far from
// zero (|mean|/sd >= lingamStopZ, a normal tail of 1e-4 per resample) that
// the remaining resamples would, in all likelihood, agree too. Clear edges,
// most of them on non-Gaussian data, then cost lingamBatch resamples
// instead of lingamBootstrap; borderline ones still get all of them.
const (
	lingamBatch = 20
	lingamStopZ = 3.7
)

// lingamEvidence is what the pairwise measure says about an undirected edge
// x — y once both ends are adjusted for their current parents.
type lingamEvidence struct {
	forward bool // true: x → y
	// agree is the fraction of bootstrap resamples whose likelihood ratio
	// has the sign of the full-sample ratio.
	agree float64
	// score is |mean / sd| of the bootstrap ratios, used to rank edges.
	score float64
	// pNonGauss is the smaller Jarque–Bera p-value of the two adjusted
	// variables: the evidence that the model is identifiable at all.
	pNonGauss float64
	// pFit is the p-value of the hypothesis that, in the chosen direction,
	// the residual is independent of the cause (residualIndependenceP). A
	// small value means the linear non-Gaussian model does not describe the
	// pair, so its likelihood ratio cannot be trusted.
	pFit float64
}

// lingamOrienter orients the edges PC and Meek leave undirected.
type lingamOrienter struct {
	z       *mat.Dense // standardised data, one row per variable
	corr    *mat.SymDense
	adjConf [][]float64
	alpha   float64
	seed    int64
	cache   map[[2]int]cachedEvidence
	gate    float64 // Jarque–Bera level, set by orient
}

type cachedEvidence struct {
	adjust []int // the adjustment set the evidence was computed with
	ev     lingamEvidence
}

// orient repeatedly picks the undirected edge with the clearest direction,
// orients it, and closes the graph under Meek's rules, until no edge has
// clear evidence. Evidence is clear when all three hold:
//   - the adjusted pair is non-Gaussian: Jarque–Bera p-value below alpha
//     divided by the number of undirected edges (a Bonferroni bound, so
//     Gaussian data stay undirected);
//   - the residual in the chosen direction passes a rank test of
//     independence from the cause at level alpha (a misspecified model,
//     e.g. heteroscedastic or nonlinear, makes the likelihood ratio
//     confidently wrong, so such edges stay undirected);
//   - at least a fraction 1-alpha of bootstrap resamples agree on the
//     direction.
//
// Orienting one edge changes the parents of its neighbours, so evidence is
// recomputed whenever an edge's adjustment set changes. It returns the
// number of edges oriented by LiNGAM and by the Meek closure that followed.
func (o *lingamOrienter) orient(ctx context.Context, g *pdag) (byLiNGAM, byMeek int, err error) {
	m := 0
	for x := range g.n {
		for y := x + 1; y < g.n; y++ {
			if g.undirected(x, y) {
				m++
			}
		}
	}
	if m == 0 {
		return 0, 0, nil
	}
	o.gate = o.alpha / float64(m)
	refused := map[[2]int]bool{}
	for {
		if err := ctx.Err(); err != nil {
			return byLiNGAM, byMeek, err
		}
		var pairs [][2]int
		for x := range g.n {
			for y := x + 1; y < g.n; y++ {
				if g.undirected(x, y) && !refused[[2]int{x, y}] {
					pairs = append(pairs, [2]int{x, y})
				}
			}
		}
		evs := o.evidenceAll(g, pairs)
		var best [2]int
		var bestEv lingamEvidence
		found := false
		for k, ev := range evs {
			if !o.clear(ev) {
				continue
			}
			if !found || ev.agree > bestEv.agree || (ev.agree == bestEv.agree && ev.score > bestEv.score) {
				best, bestEv, found = pairs[k], ev, true
			}
		}
		if !found {
			return byLiNGAM, byMeek, nil
		}
		from, to := best[0], best[1]
		if !bestEv.forward {
			from, to = to, from
		}
		if g.hasDirectedPath(to, from) {
			// Would close a cycle; keep the edge undirected.
			refused[best] = true
			continue
		}
		g.orient(from, to, OrientedByLiNGAM, lingamDiscount*(2*bestEv.agree-1)*(1-bestEv.pNonGauss))
		byLiNGAM++
		byMeek += applyMeek(g, o.adjConf)
	}
}

// clear reports whether the evidence is strong enough to orient the edge.
func (o *lingamOrienter) clear(ev lingamEvidence) bool {
	return ev.pNonGauss < o.gate && ev.pFit >= o.alpha && ev.agree >= 1-o.alpha
}

// evidenceAll returns the evidence for each pair, computing the cache
// misses on all cores. Each computation is independent and seeded by its
// pair, so the result does not depend on scheduling.
func (o *lingamOrienter) evidenceAll(g *pdag, pairs [][2]int) []lingamEvidence {
	out := make([]lingamEvidence, len(pairs))
	adjusts := make([][]int, len(pairs))
	var todo []int
	for k, pr := range pairs {
		adjusts[k] = adjustmentSet(g, pr[0], pr[1])
		if c, ok := o.cache[pr]; ok && slices.Equal(c.adjust, adjusts[k]) {
			out[k] = c.ev
		} else {
			todo = append(todo, k)
		}
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				out[k] = o.compute(pairs[k][0], pairs[k][1], adjusts[k])
			}
		}()
	}
	for _, k := range todo {
		next <- k
	}
	close(next)
	wg.Wait()
	for _, k := range todo {
		o.cache[pairs[k]] = cachedEvidence{adjust: adjusts[k], ev: out[k]}
	}
	return out
}

// adjustmentSet is the union of the directed parents of x and y: common
// parents are non-descendants of either, so regressing them out leaves the
// pair's own noise terms (after Meek, undirected neighbours share their
// directed parents).
func adjustmentSet(g *pdag, x, y int) []int {
	adjust := g.parents(x)
	for _, p := range g.parents(y) {
		if !slices.Contains(adjust, p) {
			adjust = append(adjust, p)
		}
	}
	slices.Sort(adjust)
	return adjust
}

// compute evaluates the pairwise likelihood ratio for x and y adjusted for
// the variables in adjust, with a seeded bootstrap.
func (o *lingamOrienter) compute(x, y int, adjust []int) lingamEvidence {
	rx := o.residual(x, adjust)
	ry := o.residual(y, adjust)
	ev := lingamEvidence{pNonGauss: min(jarqueBeraPValue(rx), jarqueBeraPValue(ry))}
	n := len(rx)
	bx, by := make([]float64, n), make([]float64, n)
	b1, b2 := make([]float64, n), make([]float64, n)

	copy(bx, rx)
	copy(by, ry)
	if !standardizeInPlace(bx) || !standardizeInPlace(by) {
		return lingamEvidence{pNonGauss: 1}
	}
	full := pairwiseLikelihoodRatio(bx, by, b1, b2)
	ev.forward = full > 0
	ev.pFit = o.directionFit(bx, by, ev.forward)
	if ev.pNonGauss >= o.gate || ev.pFit < o.alpha {
		return ev // fails the cheap checks; the bootstrap cannot rescue it
	}
	// Stop resampling once too many resamples disagree for the edge to
	// pass; agree is then an upper bound, still below the threshold.
	maxDisagree := int(math.Floor(o.alpha * lingamBootstrap))

	// Each edge gets its own stream so results do not depend on the order
	// in which edges are evaluated.
	p := uint64(o.z.RawMatrix().Rows)
	rng := rand.New(rand.NewPCG(uint64(o.seed), uint64(x)*p+uint64(y)))
	var sum, sumSq float64
	agree, done := 0, 0
	for range lingamBootstrap {
		if done-agree > maxDisagree {
			break
		}
		if done > 0 && done%lingamBatch == 0 && agree == done {
			mean := sum / float64(done)
			if sd := math.Sqrt(max(sumSq/float64(done)-mean*mean, 0)); math.Abs(mean) >= lingamStopZ*sd {
				break
			}
		}
		done++
		for i := range n {
			k := rng.IntN(n)
			bx[i], by[i] = rx[k], ry[k]
		}
		if !standardizeInPlace(bx) || !standardizeInPlace(by) {
			continue
		}
		lr := pairwiseLikelihoodRatio(bx, by, b1, b2)
		sum += lr
		sumSq += lr * lr
		if (lr > 0) == ev.forward && lr != 0 {
			agree++
		}
	}
	if done-agree > maxDisagree {
		// Stopped as failed: an upper bound below the threshold.
		ev.agree = 1 - float64(done-agree)/lingamBootstrap
	} else {
		ev.agree = float64(agree) / float64(done)
	}
	mean := sum / float64(done)
	if sd := math.Sqrt(max(sumSq/float64(done)-mean*mean, 0)); sd > 0 {
		ev.score = math.Abs(mean) / sd
	}
	return ev
}

// directionFit tests the residual of the chosen direction against its
// cause; x and y are standardised.
func (o *lingamOrienter) directionFit(x, y []float64, forward bool) float64 {
	cause, effect := x, y
	if !forward {
		cause, effect = y, x
	}
	var rho float64
	for i := range cause {
		rho += cause[i] * effect[i]
	}
	rho /= float64(len(cause))
	resid := make([]float64, len(cause))
	for i := range resid {
		resid[i] = effect[i] - rho*cause[i]
	}
	return residualIndependenceP(cause, resid)
}

// residual returns variable v (standardised) minus its least-squares fit
// on the variables in adjust.
func (o *lingamOrienter) residual(v int, adjust []int) []float64 {
	out := slices.Clone(o.z.RawRowView(v))
	if len(adjust) == 0 {
		return out
	}
	beta, ok := regressionFromCorr(o.corr, v, adjust)
	if !ok {
		return out
	}
	for a, k := range adjust {
		row := o.z.RawRowView(k)
		for i := range out {
			out[i] -= beta[a] * row[i]
		}
	}
	return out
}
