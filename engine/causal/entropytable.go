package causal

import "math"

// Tabulated kernels of entropyApprox. The pairwise LiNGAM measure evaluates
// log cosh(u) and u·exp(-u²/2) for every row of every bootstrap resample;
// math.Log and math.Exp made up four fifths of Discover's time on
// non-Gaussian data. Both functions are smooth, so cubic Hermite
// interpolation on a grid of step 1/32 (exact values and derivatives at the
// knots) reproduces them to about 2e-8, far below the sampling error of the
// entropy estimates (TestEntropyTables checks the error).
const (
	entropyTableStep = 1.0 / 32
	// Beyond these arguments the functions are evaluated in closed form:
	// log cosh(a) = a − ln 2 + log1p(e^{−2a}) with the last term below 1e-13,
	// and u·exp(−u²/2) below 1e-12.
	logCoshTableMax = 16.0
	uExpTableMax    = 8.0
)

// hermiteTable holds f and f' at the knots k·entropyTableStep.
type hermiteTable struct {
	f, d []float64
}

func newHermiteTable(max float64, f, d func(float64) float64) hermiteTable {
	n := int(max/entropyTableStep) + 2
	t := hermiteTable{f: make([]float64, n), d: make([]float64, n)}
	for k := range n {
		x := float64(k) * entropyTableStep
		t.f[k], t.d[k] = f(x), d(x)
	}
	return t
}

// at interpolates for 0 <= x < max.
func (t *hermiteTable) at(x float64) float64 {
	s := x * (1 / entropyTableStep)
	k := int(s)
	u := s - float64(k)
	f0, f1 := t.f[k], t.f[k+1]
	d0, d1 := t.d[k]*entropyTableStep, t.d[k+1]*entropyTableStep
	u2 := u * u
	u3 := u2 * u
	return (2*u3-3*u2+1)*f0 + (u3-2*u2+u)*d0 + (-2*u3+3*u2)*f1 + (u3-u2)*d1
}

var (
	logCoshTable = newHermiteTable(logCoshTableMax, logCoshStable, math.Tanh)
	uExpTable    = newHermiteTable(uExpTableMax,
		func(u float64) float64 { return u * math.Exp(-u*u/2) },
		func(u float64) float64 { return (1 - u*u) * math.Exp(-u*u/2) })
)

// logCoshFast is log cosh(v) from the table.
func logCoshFast(v float64) float64 {
	a := math.Abs(v)
	if a >= logCoshTableMax {
		return a - math.Ln2
	}
	return logCoshTable.at(a)
}

// uExpFast is v·exp(−v²/2) from the table (an odd function).
func uExpFast(v float64) float64 {
	a := math.Abs(v)
	if a >= uExpTableMax {
		return 0
	}
	if v < 0 {
		return -uExpTable.at(a)
	}
	return uExpTable.at(a)
}
