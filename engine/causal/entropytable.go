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

// entropyKnot holds, for one grid interval [k h, (k+1) h], the cubic
// coefficients (in the local variable t in [0, 1)) of the Hermite
// interpolants of log cosh and of u·exp(−u²/2), side by side so one lookup
// touches one cache line.
type entropyKnot struct {
	lc, ue [4]float64
}

// entropyTable covers [0, logCoshTableMax); u·exp(−u²/2) is tabulated as 0
// beyond uExpTableMax.
var entropyTable = newEntropyTable()

func newEntropyTable() []entropyKnot {
	h := entropyTableStep
	ue := func(u float64) float64 {
		if u >= uExpTableMax {
			return 0
		}
		return u * math.Exp(-u*u/2)
	}
	ued := func(u float64) float64 {
		if u >= uExpTableMax {
			return 0
		}
		return (1 - u*u) * math.Exp(-u*u/2)
	}
	cubic := func(f0, f1, d0, d1 float64) [4]float64 {
		// p(t) = f0 + d0 t + (3(f1−f0) − 2d0 − d1) t² + (2(f0−f1) + d0 + d1) t³
		return [4]float64{f0, d0, 3*(f1-f0) - 2*d0 - d1, 2*(f0-f1) + d0 + d1}
	}
	n := int(logCoshTableMax / h)
	t := make([]entropyKnot, n)
	for k := range t {
		x0, x1 := float64(k)*h, float64(k+1)*h
		t[k].lc = cubic(logCoshStable(x0), logCoshStable(x1), math.Tanh(x0)*h, math.Tanh(x1)*h)
		t[k].ue = cubic(ue(x0), ue(x1), ued(x0)*h, ued(x1)*h)
	}
	return t
}

// entropyKernels returns log cosh(v) and v·exp(−v²/2) from the table.
func entropyKernels(v float64) (logCosh, uExp float64) {
	a := math.Abs(v)
	if a >= logCoshTableMax {
		return a - math.Ln2, 0
	}
	s := a * (1 / entropyTableStep)
	k := int(s)
	t := s - float64(k)
	c := &entropyTable[k]
	logCosh = ((c.lc[3]*t+c.lc[2])*t+c.lc[1])*t + c.lc[0]
	uExp = ((c.ue[3]*t+c.ue[2])*t+c.ue[1])*t + c.ue[0]
	if v < 0 {
		uExp = -uExp
	}
	return logCosh, uExp
}

// logCoshFast is log cosh(v) from the table.
func logCoshFast(v float64) float64 {
	lc, _ := entropyKernels(v)
	return lc
}

// uExpFast is v·exp(−v²/2) from the table.
func uExpFast(v float64) float64 {
	_, ue := entropyKernels(v)
	return ue
}
