package dynamics

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Radius bounds of the test functions and local polynomials, in samples.
const (
	minRadius = 3
	maxRadius = 32
	// testFunctionPower is p in φ(t) = ((t−a)(b−t))^p. Messenger & Bortz
	// (2021) pick p so that φ is smooth enough for the quadrature to be
	// accurate to high order (the error is governed by φ's derivatives at
	// the support's ends, which vanish up to order p−1).
	testFunctionPower = 6
)

// autoRadius is the default half-width of a test function (or local
// polynomial) for a trajectory of n samples: a twentieth of the trajectory,
// within [minRadius, maxRadius]. Wider windows average more noise away;
// every window must still fit many times into a trajectory so that the
// regression has rows to select terms with.
func autoRadius(n int) int {
	return min(max(n/20, minRadius), maxRadius)
}

// emitFunc receives one regression row: the library values g and the
// response b of each target state. Both slices are reused after it
// returns.
type emitFunc func(g, b []float64)

// weakRows returns the weak-form rows of one trajectory (Messenger & Bortz
// 2021, "Weak SINDy"): for a test function φ supported on [a, b] ⊂ [t0, tn]
// with φ(a) = φ(b) = 0, integration by parts turns ẋ = Θ(x)ξ into
//
//	−∫ φ'(t) x(t) dt = ∫ φ(t) Θ(x(t)) dt · ξ,
//
// so no derivative of the data is needed and the noise is averaged by the
// integrals. φ(t) = ((t−a)(b−t))^p on the 2·radius+1 samples around each
// centre, centres every radius/2 samples, integrals by the composite Simpson
// rule on the (possibly uneven) sample times, each row scaled so that
// ∫φ = 1.
//
// The library is evaluated once per sample, on a sliding window, so memory
// stays proportional to the window whatever the trajectory's length. With
// the noise standard deviations sd, weakRows also returns the expected
// noise parts of the rows' ΘᵀΘ (noise, M×M row-major) and Θᵀb (cross,
// targets×M), summed over every row (see noiseMoments); nil without.
func weakRows(s segment, lib []Term, targets []int, radius int, sd []float64, emit emitFunc) (noise, cross []float64) {
	n := len(s.t)
	w := 2*radius + 1
	// with sd, each sample's weight in the noise moments: Σ over the rows
	// whose window holds it of (φ/∫φ)² and of −(φ/∫φ)(φ'/∫φ)
	var wGG, wGB []float64
	if sd != nil {
		wGG, wGB = make([]float64, n), make([]float64, n)
	}
	theta := make([][]float64, w) // theta[i mod w] = Θ(x_i) for i in the window
	for k := range theta {
		theta[k] = make([]float64, len(lib))
	}
	next := 0 // first sample whose Θ is not computed yet
	g := make([]float64, len(lib))
	resp := make([]float64, len(targets))
	stride := weakStride(radius)
	phi := make([]float64, 2*radius+1)
	dphi := make([]float64, 2*radius+1)
	quad := make([]float64, 2*radius+1)
	for c := radius; c+radius < n; c += stride {
		lo, hi := c-radius, c+radius
		a, b := s.t[lo], s.t[hi]
		L := b - a
		var norm float64
		for k := range phi {
			i := lo + k
			u := (s.t[i] - a) / L
			q := u * (1 - u)
			phi[k] = math.Pow(q, testFunctionPower)
			dphi[k] = testFunctionPower * math.Pow(q, testFunctionPower-1) * (1 - 2*u) / L
		}
		quadratureWeights(s.t, lo, hi, quad)
		for k, q := range quad {
			phi[k] *= q
			dphi[k] *= q
			norm += phi[k]
		}
		for ; next <= hi; next++ {
			evalRow(lib, s.x[next], theta[next%w])
		}
		clear(g)
		for k, f := range phi {
			for j, v := range theta[(lo+k)%w] {
				g[j] += f * v / norm
			}
		}
		for r, st := range targets {
			var v float64
			for k, f := range dphi {
				v -= f * s.x[lo+k][st] / norm
			}
			resp[r] = v
		}
		if sd != nil {
			for k, f := range phi {
				wGG[lo+k] += (f / norm) * (f / norm)
				wGB[lo+k] -= (f / norm) * (dphi[k] / norm)
			}
		}
		emit(g, resp)
	}
	if sd == nil {
		return nil, nil
	}
	m, vars := len(lib), len(s.x[0])
	noise, cross = make([]float64, m*m), make([]float64, len(targets)*m)
	J := make([]float64, m*vars)
	zc := make([]float64, vars)
	var nz []int
	for i, c := range wGG {
		if c == 0 && wGB[i] == 0 {
			continue
		}
		copy(zc, s.x[i])
		for j, t := range lib {
			termGrad(t, zc, J[j*vars:(j+1)*vars])
		}
		nz = noiseMoments(J, c, wGB[i], sd, m, vars, targets, nz, noise, cross)
	}
	return noise, cross
}

// noiseMoments adds one sample's part of the expected noise in a weak-form
// design's ΘᵀΘ and Θᵀb, to first order in the noise: with independent
// noise ε_v of standard deviation sd[v] on each variable, a row's library
// integral carries Σ_i φ_i ∇Θ(x_i)·ε_i and its response −Σ_i φ'_i ε_i, so
// over every row
//
//	E[noise of G_j · noise of G_k] = Σ_i c_i Σ_v sd_v² ∂_vΘ_j ∂_vΘ_k,
//	E[noise of G_j · noise of b_s] = Σ_i cb_i sd_s² ∂_sΘ_j,
//
// where c_i sums φ_i² and cb_i sums −φ_i φ'_i over the rows whose window
// holds sample i (each row scaled by its ∫φ): the sums over rows and over
// their samples are exchanged, so each sample's gradients J (J[j*vars+v]
// = ∂_vΘ_j at the sample) are used once. Subtracting the moments from the
// normal equations is the corrected least squares of measurement-error
// models (Fuller 1987, Measurement Error Models, section 2.2): plain least
// squares on noisy library columns is biased towards zero, the more so
// where columns are nearly collinear (x and x·z when z varies little).
//
// Most terms do not depend on a given variable (a monomial without it, the
// sin and cos of another), so ∂_vΘ is sparse: the sums run over the terms
// whose derivative is not zero, which adds the same numbers in the same
// order (the skipped products are zeros, and adding a zero to a sum that
// started at +0 leaves it unchanged). A non-finite derivative makes the
// products with zeros NaN, so then every term is kept. nz is scratch
// space, returned for reuse.
func noiseMoments(J []float64, c, cb float64, sd []float64, m, vars int, targets []int, nz []int, noise, cross []float64) []int {
	for v := range vars {
		s2 := sd[v] * sd[v]
		if s2 == 0 {
			continue
		}
		nz = nonZeroTerms(J, v, vars, m, nz[:0])
		for _, j := range nz {
			a := J[j*vars+v] * c * s2
			if a == 0 {
				continue
			}
			row := noise[j*m : (j+1)*m]
			for _, l := range nz {
				row[l] += a * J[l*vars+v]
			}
		}
		for r, tv := range targets {
			if tv != v {
				continue
			}
			for _, j := range nz {
				cross[r*m+j] += cb * s2 * J[j*vars+v]
			}
		}
	}
	return nz
}

// nonZeroTerms appends to nz the terms j whose derivative J[j*vars+v] is
// not zero, or every term when one of the derivatives is not finite.
func nonZeroTerms(J []float64, v, vars, m int, nz []int) []int {
	for j := range m {
		g := J[j*vars+v]
		if math.IsNaN(g) || math.IsInf(g, 0) {
			nz = nz[:0]
			for l := range m {
				nz = append(nz, l)
			}
			return nz
		}
		if g != 0 {
			nz = append(nz, j)
		}
	}
	return nz
}

// weakRowCount is the number of rows weakRows emits for n samples.
func weakRowCount(n, radius int) int {
	if n < 2*radius+1 {
		return 0
	}
	return (n-1-2*radius)/weakStride(radius) + 1
}

// quadratureWeights fills w with the weights of the composite Simpson rule
// on the uneven samples t[lo..hi] (hi − lo even): each pair of intervals
// (h0, h1) integrates the quadratic through its three samples exactly,
//
//	∫ ≈ (h0+h1)/6 · [(2 − h1/h0) f0 + (h0+h1)²/(h0·h1) f1 + (2 − h0/h1) f2],
//
// which is the classic rule when h0 = h1. Its error is of fourth order in
// the spacing where the trapezoid rule's is of second, which matters for
// the steep test functions of short windows on uneven grids.
func quadratureWeights(t []float64, lo, hi int, w []float64) {
	clear(w)
	for i := lo; i+2 <= hi; i += 2 {
		h0, h1 := t[i+1]-t[i], t[i+2]-t[i+1]
		s := (h0 + h1) / 6
		w[i-lo] += s * (2 - h1/h0)
		w[i+1-lo] += s * (h0 + h1) * (h0 + h1) / (h0 * h1)
		w[i+2-lo] += s * (2 - h0/h1)
	}
}

// localDegree is the degree of the local polynomials of pointRows: a
// quartic keeps the smoothing bias of the derivative small over windows
// wide enough to average noise (Savitzky & Golay 1964 tabulate degrees 2
// to 5).
const localDegree = 4

// pointRows returns one row per sample: the local-polynomial derivative of
// each target variable against the library evaluated on the smoothed
// states, the first states variables of s (inputs as measured). The first and last radius samples are left out: their
// windows are one-sided, and the derivative of a one-sided fit is the
// least accurate (Savitzky & Golay's filter has no value there either).
func pointRows(s segment, lib []Term, states int, targets []int, radius int, emit emitFunc) {
	n := len(s.t)
	smooth := make([][]float64, states)
	deriv := make([][]float64, states)
	for st := range states {
		smooth[st], deriv[st] = LocalPolynomial(s.t, s.column(st), radius, localDegree)
	}
	z := make([]float64, len(s.x[0]))
	g := make([]float64, len(lib))
	b := make([]float64, len(targets))
	for i := radius; i < n-radius; i++ {
		copy(z, s.x[i])
		for st := range states {
			z[st] = smooth[st][i]
		}
		for r, st := range targets {
			b[r] = deriv[st][i]
		}
		evalRow(lib, z, g)
		emit(g, b)
	}
}

// noiseSD estimates the standard deviation of the measurement noise of
// each variable of s from the residuals of short quartic local fits
// (radius noiseRadius, whose smoothing bias is negligible on smooth,
// finely sampled trajectories). The fit at sample i is x̃_i = Σ_k L_ik x_k,
// so white noise leaves E[(x_i − x̃_i)²] = σ²·((1 − L_ii)² + Σ_{k≠i} L_ik²),
// and σ̂² is the residual sum of squares over the sum of those factors.
func noiseSD(s segment) []float64 {
	if s.sd != nil {
		return s.sd
	}
	vars := len(s.x[0])
	out := make([]float64, vars)
	n := len(s.t)
	w := 2*noiseRadius + 1
	if n < w {
		return out
	}
	rss := make([]float64, vars)
	var factor float64
	a := mat.NewDense(w, localDegree+1, nil)
	var ata mat.SymDense
	e0 := mat.NewVecDense(localDegree+1, nil)
	e0.SetVec(0, 1)
	var y, l mat.VecDense
	for i := range n {
		lo := min(max(i-noiseRadius, 0), n-w)
		h := (s.t[lo+w-1] - s.t[lo]) / 2
		for k := range w {
			tau := (s.t[lo+k] - s.t[i]) / h
			p := 1.0
			for d := 0; d <= localDegree; d++ {
				a.Set(k, d, p)
				p *= tau
			}
		}
		ata.SymOuterK(1, a.T())
		var ch mat.Cholesky
		if !ch.Factorize(&ata) || ch.SolveVecTo(&y, e0) != nil {
			continue
		}
		l.MulVec(a, &y) // L_i· over the window
		f := 0.0
		for k := range w {
			c := l.AtVec(k)
			if lo+k == i {
				c = 1 - c
			}
			f += c * c
		}
		factor += f
		for v := range vars {
			r := s.x[i][v]
			for k := range w {
				r -= l.AtVec(k) * s.x[lo+k][v]
			}
			rss[v] += r * r
		}
	}
	if factor > 0 {
		for v := range out {
			out[v] = math.Sqrt(rss[v] / factor)
		}
	}
	return out
}

// noiseRadius is the half-width of the local fits noiseSD uses.
const noiseRadius = 3

// weakStride is the distance in samples between consecutive test-function
// centres.
func weakStride(radius int) int { return max(radius/2, 1) }
