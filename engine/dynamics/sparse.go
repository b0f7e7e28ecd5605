package dynamics

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/discolab/disco/engine/internal/stlsq"
)

// chunk holds the sufficient statistics of a block of consecutive rows of
// one trajectory: ΘᵀΘ, Θᵀb and bᵀb per state. Every fit, cross-validation
// fold and ensemble member is a sum of chunks, so no step touches the rows
// again.
type chunk struct {
	gg []float64   // M×M, row-major
	gb [][]float64 // [state][M]
	bb []float64   // [state]
	n  int
}

// design is the regression of every state on the library, chunked.
type design struct {
	m      int // library size
	states int
	chunks []chunk
	scale  []float64 // column norms of Θ over all chunks
	bnorm  []float64 // norm of each state's response over all chunks
	// overlap is the number of rows that share data with each row (rows
	// per test-function support); the information criterion counts
	// rows/overlap independent observations.
	overlap float64
	cost    []float64 // complexity of each term (see Term.Complexity)

	// noiseGG and noiseGB are the expected noise parts of ΘᵀΘ and Θᵀb
	// over all rows (see noiseMoments); nil without a noise estimate
	noiseGG, noiseGB []float64

	perChunk   int  // rows per chunk
	blockStart int  // index of the current block's first chunk
	open       bool // the last chunk belongs to the current block
}

// maxChunks bounds the number of chunks, and so the memory of the design
// (one M×M Gram matrix per chunk) whatever the number of rows.
const maxChunks = 250

// newDesign returns an empty design for a library with the given term
// complexities. Rows arrive by addRow in blocks (startBlock), rowsPerChunk
// consecutive rows of a block per chunk, long enough that rows in different
// chunks share little data (weak rows overlap their neighbours; a point
// row's local polynomial spans 2·radius+1 samples); finish must be called
// after the last row.
func newDesign(cost []float64, states, rowsPerChunk int, overlap float64) *design {
	m := len(cost)
	return &design{m: m, states: states, scale: make([]float64, m), bnorm: make([]float64, states),
		overlap: math.Max(overlap, 1), cost: cost, perChunk: max(rowsPerChunk, 1), blockStart: 0}
}

// startBlock ends the current block (a trajectory): later rows start a
// new chunk.
func (d *design) startBlock() {
	d.mergeShortTail()
	d.blockStart = len(d.chunks)
	d.open = false
}

// mergeShortTail folds a last chunk of less than half the usual rows into
// the chunk before it in the same block.
func (d *design) mergeShortTail() {
	k := len(d.chunks)
	if !d.open || k-1 <= d.blockStart || d.chunks[k-1].n >= max(d.perChunk/2, 1) {
		return
	}
	last, prev := d.chunks[k-1], &d.chunks[k-2]
	for i, v := range last.gg {
		prev.gg[i] += v
	}
	for s := range last.gb {
		for j, v := range last.gb[s] {
			prev.gb[s][j] += v
		}
		prev.bb[s] += last.bb[s]
	}
	prev.n += last.n
	d.chunks = d.chunks[:k-1]
}

// addRow adds one regression row: library values g and the response of
// each state b.
func (d *design) addRow(g, b []float64) {
	m := d.m
	if !d.open || d.chunks[len(d.chunks)-1].n >= d.perChunk {
		c := chunk{gg: make([]float64, m*m), gb: make([][]float64, d.states), bb: make([]float64, d.states)}
		for s := range c.gb {
			c.gb[s] = make([]float64, m)
		}
		d.chunks = append(d.chunks, c)
		d.open = true
	}
	c := &d.chunks[len(d.chunks)-1]
	for j, gj := range g {
		row := c.gg[j*m : (j+1)*m]
		for k, gk := range g {
			row[k] += gj * gk
		}
	}
	for s, bs := range b {
		for j, gj := range g {
			c.gb[s][j] += gj * bs
		}
		c.bb[s] += bs * bs
	}
	c.n++
}

// finish closes the last block and computes the column and response norms.
// It fails when a library column or a response is not finite.
func (d *design) finish() error {
	d.startBlock()
	m := d.m
	for _, c := range d.chunks {
		for j := range m {
			d.scale[j] += c.gg[j*m+j]
		}
		for s := range d.states {
			d.bnorm[s] += c.bb[s]
		}
	}
	for j, v := range d.scale {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: library term %d is not finite on the data", ErrInvalidData, j)
		}
	}
	for s, v := range d.bnorm {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: the weak-form response of state %d is not finite (values too large?)", ErrInvalidData, s)
		}
	}
	for j := range d.scale {
		d.scale[j] = math.Sqrt(d.scale[j])
		if !(d.scale[j] > 0) {
			d.scale[j] = 1
		}
	}
	for s := range d.bnorm {
		d.bnorm[s] = math.Sqrt(d.bnorm[s])
		if !(d.bnorm[s] > 0) {
			d.bnorm[s] = 1
		}
	}
	return nil
}

// normal is a normalised least-squares problem: A = D⁻¹ΘᵀΘD⁻¹ and
// c = D⁻¹Θᵀb/‖b‖ with D the column norms over all training rows, so that
// coefficients are comparable across terms (the STLSQ threshold applies to
// them) and residuals are shares of ‖b‖².
type normal struct {
	a  []float64
	c  []float64
	bb float64
	n  int
}

func (d *design) sum(state int, idx []int) normal {
	m := d.m
	p := normal{a: make([]float64, m*m), c: make([]float64, m)}
	for _, i := range idx {
		ch := d.chunks[i]
		for k, v := range ch.gg {
			p.a[k] += v
		}
		for j, v := range ch.gb[state] {
			p.c[j] += v
		}
		p.bb += ch.bb[state]
		p.n += ch.n
	}
	bn := d.bnorm[state]
	for j := range m {
		for k := range m {
			p.a[j*m+k] /= d.scale[j] * d.scale[k]
		}
		p.c[j] /= d.scale[j] * bn
	}
	p.bb /= bn * bn
	return p
}

func (p normal) minus(q normal) normal {
	r := normal{a: slices.Clone(p.a), c: slices.Clone(p.c), bb: p.bb - q.bb, n: p.n - q.n}
	for k, v := range q.a {
		r.a[k] -= v
	}
	for j, v := range q.c {
		r.c[j] -= v
	}
	return r
}

// ridge keeps the normal equations of collinear terms (S + I + R = 1 in an
// epidemic model makes 1, S, I and R dependent) positive definite.
const ridge = 1e-8

// solve returns the least-squares weights on support S.
func (p normal) solve(S []int) ([]float64, bool) {
	k := len(S)
	if k == 0 {
		return nil, true
	}
	m := len(p.c)
	a := make([]float64, k*k)
	b := make([]float64, k)
	for x, i := range S {
		for y := x; y < k; y++ {
			a[x*k+y] = p.a[i*m+S[y]]
		}
		a[x*k+x] = a[x*k+x]*(1+ridge) + ridge
		b[x] = p.c[i]
	}
	// Cholesky without the condition estimate mat.Cholesky adds: the ridge
	// already guards the conditioning, and solve runs thousands of times.
	t, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: a})
	if !ok {
		return nil, false
	}
	lapack64.Potrs(t, blas64.General{Rows: k, Cols: 1, Stride: 1, Data: b})
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return b, true
}

// rss is the residual sum of squares of weights w on support S.
func (p normal) rss(S []int, w []float64) float64 {
	m := len(p.c)
	r := p.bb
	for x, i := range S {
		r -= 2 * w[x] * p.c[i]
		for y, j := range S {
			r += w[x] * w[y] * p.a[i*m+j]
		}
	}
	return math.Max(r, 0)
}

// maxForward is the largest support forward selection builds.
const maxForward = 12

// thresholds is the STLSQ ladder: 40 values log-spaced over [1e-4, 1] in
// normalised coefficient units.
var thresholds = func() []float64 {
	out := make([]float64, 40)
	for i := range out {
		out[i] = math.Pow(10, -4+4*float64(i)/float64(len(out)-1))
	}
	return out
}()

// candidates returns the distinct supports of the sequentially thresholded
// least-squares path (STLSQ; Brunton, Proctor & Kutz 2016, PNAS 113:3932)
// over the threshold ladder, plus those of backward elimination from the
// full library (each step drops the term whose removal raises the residual
// least) and of forward selection from the empty support (each step adds
// the term that lowers it most, up to maxForward terms), both steered by
// the complexity-weighted information criterion of selectSupport on the
// training residual, so that of two near-twin terms the simpler enters
// first; these stay
// reliable where strongly correlated terms (x, x³ and sin x on a small
// range) make thresholding jump. The empty support is always a candidate.
func (p normal) candidates(cost []float64, n float64) [][]int {
	m := len(p.c)
	full := make([]int, m)
	for j := range full {
		full[j] = j
	}
	seen := map[string]bool{}
	var out [][]int
	add := func(S []int) {
		k := supportKey(S)
		if !seen[k] {
			seen[k] = true
			out = append(out, slices.Clone(S))
		}
	}
	// crit is the change of the information criterion (see selectSupport)
	// when the residual becomes r and the terms' complexity changes by dc
	crit := func(r, dc float64) float64 { return n*math.Log(math.Max(r, exactShare)) + dc*math.Log(n) }
	add(nil)
	// thresholds ascend, so each STLSQ run starts from the support the
	// previous threshold left (a warm-started path)
	S := slices.Clone(full)
	for _, tau := range thresholds {
		S = p.stlsq(S, tau)
		add(S)
	}
	// forward: adding term j to S lowers the residual by
	// (c_j − a_jSᵀw)² / (a_jj − a_jSᵀA_S⁻¹a_Sj); each step adds the term
	// that lowers the criterion most
	S = nil
	for len(S) < min(m, maxForward) {
		inv, w, ok := p.inverse(S)
		if !ok {
			break
		}
		rss := p.rss(S, w)
		best, bestCrit := -1, math.Inf(1)
		v := make([]float64, len(S))
		for j := range m {
			if slices.Contains(S, j) {
				continue
			}
			num, den := p.c[j], p.a[j*m+j]*(1+ridge)+ridge
			for x, i := range S {
				num -= p.a[j*m+i] * w[x]
				var s float64
				for y, l := range S {
					s += inv[x*len(S)+y] * p.a[l*m+j]
				}
				v[x] = s
			}
			for x, i := range S {
				den -= p.a[j*m+i] * v[x]
			}
			if den > 0 {
				if g := crit(rss-num*num/den, cost[j]); g < bestCrit {
					best, bestCrit = j, g
				}
			}
		}
		if best < 0 {
			break
		}
		S = append(S, best)
		slices.Sort(S)
		add(S)
	}
	// backward: dropping term x of S raises the residual by w_x²/(A_S⁻¹)_xx;
	// each step drops the term whose loss raises the criterion least. It
	// runs from the full library and from every smaller support found so
	// far: with exactly dependent terms (S·I = I − I² − I·R when
	// S + I + R = 1) a forward path can reach an exact fit through a
	// detour, and pruning that fit finds the simplest exact one.
	backward := func(S []int) {
		S = slices.Clone(S)
		for len(S) > 1 {
			inv, w, ok := p.inverse(S)
			if !ok {
				break
			}
			rss := p.rss(S, w)
			best, bestCrit := -1, math.Inf(1)
			for x, j := range S {
				if c := crit(rss+w[x]*w[x]/inv[x*len(S)+x], -cost[j]); c < bestCrit {
					best, bestCrit = x, c
				}
			}
			S = slices.Delete(S, best, best+1)
			add(S)
		}
	}
	backward(full)
	for _, S := range slices.Clone(out) {
		if len(S) > 2 && len(S) <= maxForward {
			backward(S)
		}
	}
	return out
}

// stlsq runs sequentially thresholded least squares from support S (see
// engine/internal/stlsq) for at most 20 solves; where a solve fails, the
// support it failed on stands.
func (p normal) stlsq(S []int, tau float64) []int {
	S, _ = stlsq.Threshold(S, tau, 20, p.solve)
	return S
}

// inverse returns (A_SS + ridge)⁻¹, full k×k row-major, and the weights
// on S.
func (p normal) inverse(S []int) (inv, w []float64, ok bool) {
	k := len(S)
	m := len(p.c)
	a := make([]float64, k*k)
	for x, i := range S {
		for y := x; y < k; y++ {
			a[x*k+y] = p.a[i*m+S[y]]
		}
		a[x*k+x] = a[x*k+x]*(1+ridge) + ridge
	}
	t, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: a})
	if !ok {
		return nil, nil, false
	}
	if _, ok := lapack64.Potri(t); !ok {
		return nil, nil, false
	}
	w = make([]float64, k)
	for x := range k {
		for y := range k {
			if y < x {
				a[x*k+y] = a[y*k+x]
			}
		}
	}
	for x := range k {
		for y, i := range S {
			w[x] += a[x*k+y] * p.c[i]
		}
	}
	return a, w, true
}

func supportKey(S []int) string {
	b := make([]byte, 0, 2*len(S))
	for _, j := range S {
		b = append(b, byte(j>>8), byte(j))
	}
	return string(b)
}

// selection is the outcome of choosing a support for one state.
type selection struct {
	support []int
	cvRSS   float64 // cross-validated residual, share of ‖b‖² of the folds
	cvTotal float64 // Σ over folds of their ‖b‖²
	rows    int
}

// r2 is the selection's cross-validated R², 1 − cvRSS/cvTotal (0 without
// a response).
func (s selection) r2() float64 {
	if s.cvTotal > 0 {
		return 1 - s.cvRSS/s.cvTotal
	}
	return 0
}

// folds is the number of cross-validation folds.
const folds = 5

// exactShare is the cross-validated residual, as a share of the response,
// below which a fit counts as exact: the weak-form quadrature and the
// normal equations cannot resolve less, so differences below it say nothing
// about the terms.
const exactShare = 1e-6

// selectSupport chooses the support of one state from the chunks idx: the
// candidates come from the fit on all of idx; each is scored by K-fold
// cross-validation over the chunks, each fold a contiguous fifth of idx
// (blocked cross-validation for dependent data, Racine 2000, J.
// Econometrics 99:39: overlapping test functions share noise, so a fold of
// scattered chunks would be fitted through its neighbours), and
// the support with the smallest Bayesian information criterion of the
// held-out residual, N·ln(RSS_cv/N) + k·ln N (Schwarz 1978), wins, where k
// counts each term by its complexity (Term.Complexity: x is 1, x*y 2,
// sin(x) 2), so that of two near-equal fits the one built from simpler
// terms wins (y rather than sin(y) when y stays small). N is
// the number of effectively independent rows, rows/overlap: overlapping
// test functions see the same noise, and counting each of them as a fresh
// observation would let noise buy terms.
func (d *design) selectSupport(ctx context.Context, state int, idx []int) (selection, error) {
	total := d.sum(state, idx)
	var parts, trains [folds]normal
	for f := range folds {
		parts[f] = d.sum(state, idx[f*len(idx)/folds:(f+1)*len(idx)/folds])
		trains[f] = total.minus(parts[f])
	}
	n := math.Max(float64(total.n)/d.overlap, 2)
	type scored struct {
		sel selection
		bic float64
	}
	score := func(S []int) (scored, bool) {
		var cv, tot float64
		for f := range folds {
			if parts[f].n == 0 {
				continue
			}
			w, ok := trains[f].solve(S)
			if !ok {
				return scored{}, false
			}
			cv += parts[f].rss(S, w)
			tot += parts[f].bb
		}
		if tot <= 0 {
			return scored{}, false
		}
		var cost float64
		for _, j := range S {
			cost += d.cost[j]
		}
		share := math.Max(cv/tot, exactShare)
		return scored{
			sel: selection{support: S, cvRSS: cv, cvTotal: tot, rows: total.n},
			bic: n*math.Log(share) + cost*math.Log(n),
		}, true
	}
	best := scored{sel: selection{rows: total.n}, bic: math.Inf(1)}
	for _, S := range total.candidates(d.cost, n) {
		if err := ctx.Err(); err != nil {
			return selection{}, err
		}
		if c, ok := score(S); ok && c.bic < best.bic {
			best = c
		}
	}
	// swap search: replace one term of the winner by another while that
	// lowers the criterion; the paths above can step around a support
	// whose terms each have a near-twin (x and sin x, y and y³)
	for range maxSwaps {
		improved := false
		S := best.sel.support
		for x := range S {
			for j := range d.m {
				if slices.Contains(S, j) {
					continue
				}
				T := slices.Clone(S)
				T[x] = j
				slices.Sort(T)
				if c, ok := score(T); ok && c.bic < best.bic {
					best, improved = c, true
				}
			}
		}
		if !improved {
			break
		}
		if err := ctx.Err(); err != nil {
			return selection{}, err
		}
	}
	return best.sel, nil
}

// maxSwaps bounds the rounds of the swap search.
const maxSwaps = 5

// coefficients fits support S on chunks idx and returns the coefficients
// in the data's units, one per library term (zero off the support).
//
// The fit on all chunks subtracts the expected noise moments from the
// normal equations (corrected least squares, see noiseMoments): the
// support is chosen on the plain normal equations, whose noise floor is
// what keeps the criterion from buying terms, and only its coefficients are
// corrected. Should the corrected system not be positive definite, the
// plain fit stands.
func (d *design) coefficients(state int, idx []int, S []int) ([]float64, bool) {
	p := d.sum(state, idx)
	if d.noiseGG != nil && len(idx) == len(d.chunks) {
		q := normal{a: slices.Clone(p.a), c: slices.Clone(p.c), bb: p.bb, n: p.n}
		m, bn := d.m, d.bnorm[state]
		for j := range m {
			for k := range m {
				q.a[j*m+k] -= d.noiseGG[j*m+k] / (d.scale[j] * d.scale[k])
			}
			q.c[j] -= d.noiseGB[state*m+j] / (d.scale[j] * bn)
		}
		if _, ok := q.solve(S); ok {
			p = q
		}
	}
	w, ok := p.solve(S)
	if !ok {
		return nil, false
	}
	out := make([]float64, d.m)
	for x, j := range S {
		out[j] = w[x] * d.bnorm[state] / d.scale[j]
	}
	return out, true
}
