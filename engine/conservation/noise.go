package conservation

import (
	"math"
)

// Noise-aware acceptance.
//
// With measurement noise on the variables, even an exactly conserved
// quantity Q = sum_k c_k f_k wobbles along a trajectory: the noise of the
// variables propagates through the terms into Q. A fixed bound on the
// relative variation then either rejects real quantities on noisy data or,
// if loosened, accepts approximate ones on clean data. Find therefore also
// accepts a quantity whose variation along the trajectories is explained by
// the measurement noise.
//
// The noise floor is estimated from the data, along each trajectory in row
// order, with fourth-order differences
//
//	d_i = y_i - 4 y_{i+1} + 6 y_{i+2} - 4 y_{i+3} + y_{i+4},
//
// which cancel any cubic trend and leave, for white noise of variance s²,
// E[d²] = 70 s². A smooth signal sampled at phase step h contributes only a
// factor (2 sin(h/2))^4 of its amplitude, so on finely sampled trajectories
// mean(d²)/70 is the variance of the noise. The estimate is applied to Q
// itself, which propagates the noise of the variables through the terms with
// their actual coefficients and correlations, without a noise model.
//
// A quantity is accepted this way ("noise-explained") when
//
//  1. every term of it is well resolved: its variation along the
//     trajectories is at least minSignalToNoise times its own noise floor.
//     This fails when the rows of a trajectory are not in time order (the
//     differences then see the whole signal) and when the trajectories are
//     noise only; in both cases the noise model says nothing and only the
//     fixed Tolerance applies;
//  2. the pooled noise ratio sqrt(sum_t n_t var_t(Q) / sum_t n_t s²_t(Q)) is
//     at most noiseRatioLimit (tighter for more terms, see termTolerance):
//     Q varies no more than its noise floor. A random walk or any drifting
//     combination varies far more than its differences suggest;
//  3. its relative variation stays below maxNoisyVariation (scaled like the
//     Tolerance by the number of terms): most of the terms' variation must
//     still cancel, so a quantity is never "conserved" merely because the data
//     are very noisy;
//  4. the separation check (trajectories differ in Q far more than Q varies
//     along them, which rejects identities and near-identities) and
//  5. the leave-one-trajectory-out check hold, the latter with the same noise
//     ratio and variation limits on the trajectory left out.
const (
	// noiseDiffOrder is the order of the differences, noiseDiffNorm the
	// sum of the squared binomial coefficients C(4, i).
	noiseDiffOrder = 4
	noiseDiffNorm  = 70.0
	// minSignalToNoise is the smallest ratio of a term's variation along the
	// trajectories to its estimated noise floor for the noise model to apply.
	minSignalToNoise = 8.0
	// noiseRatioLimit bounds the pooled ratio of Q's variation to its noise
	// floor for a quantity of up to two terms: the systematic part of the
	// variation may be at most sqrt(1.35² - 1) ≈ 0.9 times the noise.
	noiseRatioLimit = 1.35
	// maxNoisyVariation bounds the relative variation of a noise-explained
	// quantity of up to two terms.
	maxNoisyVariation = 0.2
)

// diffNoiseVar returns sum_i d_i² / noiseDiffNorm and the number of
// differences for the series y (rows idx of values, in order).
func diffNoiseSS(values []float64, idx []int) (float64, int) {
	n := len(idx) - noiseDiffOrder
	if n <= 0 {
		return 0, 0
	}
	ss := 0.0
	for i := 0; i < n; i++ {
		d := values[idx[i]] - 4*values[idx[i+1]] + 6*values[idx[i+2]] - 4*values[idx[i+3]] + values[idx[i+4]]
		ss += d * d
	}
	return ss / noiseDiffNorm, n
}

// computeTermNoise fills p.noiseVar[g][k], the estimated noise variance of
// term k along trajectory g.
func (p *problem) computeTermNoise() {
	p.noiseVar = make([][]float64, len(p.groups))
	for g, idx := range p.groups {
		p.noiseVar[g] = make([]float64, len(p.terms))
		for k, t := range p.terms {
			ss, n := diffNoiseSS(t.values, idx)
			if n > 0 {
				p.noiseVar[g][k] = ss / float64(n)
			}
		}
	}
}

// resolved reports whether every term in support varies along the
// trajectories by at least minSignalToNoise times its noise floor (pooled
// over trajectories).
func (p *problem) resolved(support []int) bool {
	for _, k := range support {
		sig, noise := 0.0, 0.0
		for g, idx := range p.groups {
			w := float64(len(idx))
			sig += w * p.cov[g].At(k, k)
			noise += w * p.noiseVar[g][k]
		}
		if !(sig >= minSignalToNoise*minSignalToNoise*noise) {
			return false
		}
	}
	return true
}

// noiseParts returns, for trajectory g, n_g var_g(Q) and n_g s²_g(Q) (the
// estimated noise variance of Q times the row count); ok is false when the
// trajectory is too short for the differences.
func (p *problem) noiseParts(g int, support []int, coef []float64) (sig, noise float64, ok bool) {
	idx := p.groups[g]
	q := make([]float64, len(idx))
	for a, k := range support {
		values := p.terms[k].values
		for r, i := range idx {
			q[r] += coef[a] * values[i]
		}
	}
	mean := 0.0
	for _, v := range q {
		mean += v
	}
	mean /= float64(len(q))
	for _, v := range q {
		sig += (v - mean) * (v - mean)
	}
	nss, n := diffNoiseSS(q, seq(len(q)))
	if n == 0 {
		return 0, 0, false
	}
	return sig, float64(len(idx)) * nss / float64(n), true
}

// noiseRatio is the pooled ratio of Q's variation along the trajectories to
// its noise floor, sqrt(sum_t n_t var_t(Q) / sum_t n_t s²_t(Q)).
func (p *problem) noiseRatio(support []int, coef []float64) float64 {
	sig, noise := 0.0, 0.0
	for g := range p.groups {
		if s, n, ok := p.noiseParts(g, support, coef); ok {
			sig, noise = sig+s, noise+n
		}
	}
	if noise == 0 {
		return math.Inf(1)
	}
	return math.Sqrt(sig / noise)
}

// seq returns 0, 1, ..., n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// noiseRatioBound is noiseRatioLimit for up to two terms; beyond, the
// systematic part allowed shrinks like the tolerance, 1/(terms-1).
func noiseRatioBound(terms int) float64 {
	excess := noiseRatioLimit*noiseRatioLimit - 1
	if terms > 2 {
		excess /= float64(terms - 1)
	}
	return math.Sqrt(1 + excess)
}
