package dynamics

import "math"

// Radius bounds of the test functions and local polynomials, in samples.
const (
	minRadius = 3
	maxRadius = 32
	// testFunctionPower is p in φ(t) = ((t−a)(b−t))^p. Messenger & Bortz
	// (2021) pick p so that φ is smooth enough for the trapezoid rule to be
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

// rows is a block of regression rows: b[s][r] is the response of state s in
// row r and g[r] the library row.
type rows struct {
	b [][]float64
	g [][]float64
}

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
func weakRows(s segment, lib []Term, states, radius int) rows {
	n := len(s.t)
	theta := make([][]float64, n)
	for i, z := range s.x {
		theta[i] = make([]float64, len(lib))
		evalRow(lib, z, theta[i])
	}
	var out rows
	out.b = make([][]float64, states)
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
		g := make([]float64, len(lib))
		for k, w := range phi {
			for j, v := range theta[lo+k] {
				g[j] += w * v / norm
			}
		}
		out.g = append(out.g, g)
		for st := range states {
			var v float64
			for k, w := range dphi {
				v -= w * s.x[lo+k][st] / norm
			}
			out.b[st] = append(out.b[st], v)
		}
	}
	return out
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
// each state against the library evaluated on the smoothed states (inputs
// as measured). The first and last radius samples are left out: their
// windows are one-sided, and the derivative of a one-sided fit is the
// least accurate (Savitzky & Golay's filter has no value there either).
func pointRows(s segment, lib []Term, states, radius int) rows {
	n := len(s.t)
	z := make([][]float64, n)
	for i := range z {
		z[i] = append([]float64(nil), s.x[i]...)
	}
	var out rows
	out.b = make([][]float64, states)
	for st := range states {
		smooth, deriv := LocalPolynomial(s.t, s.column(st), radius, localDegree)
		for i := range z {
			z[i][st] = smooth[i]
		}
		out.b[st] = deriv[radius : n-radius]
	}
	for i := radius; i < n-radius; i++ {
		g := make([]float64, len(lib))
		evalRow(lib, z[i], g)
		out.g = append(out.g, g)
	}
	return out
}

// weakStride is the distance in samples between consecutive test-function
// centres.
func weakStride(radius int) int { return max(radius/2, 1) }
