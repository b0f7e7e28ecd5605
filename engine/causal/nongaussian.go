package causal

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Constants of the maximum-entropy approximation of differential entropy
// used by DirectLiNGAM (Hyvärinen 1998, "New approximations of differential
// entropy for independent component analysis and projection pursuit").
const (
	entropyK1    = 79.047
	entropyK2    = 7.4129
	entropyGamma = 0.37457
)

// entropyApprox approximates the differential entropy of u, which must be
// standardised (mean 0, variance 1). The Gaussian has the largest entropy
// for a given variance, so lower values mean more non-Gaussian.
func entropyApprox(u []float64) float64 {
	var logCosh, uExp float64
	for _, v := range u {
		lc, ue := entropyKernels(v)
		logCosh += lc
		uExp += ue
	}
	n := float64(len(u))
	logCosh /= n
	uExp /= n
	return (1+math.Log(2*math.Pi))/2 - entropyK1*(logCosh-entropyGamma)*(logCosh-entropyGamma) - entropyK2*uExp*uExp
}

// logCoshStable computes log(cosh(v)) without overflow for large |v|.
// log(1+e) rather than Log1p: the absolute error is the same here (the
// result is added to |v|) and math.Log has an assembly fast path, which
// matters because the bootstrap calls this millions of times.
func logCoshStable(v float64) float64 {
	a := math.Abs(v)
	return a + math.Log(1+math.Exp(-2*a)) - math.Ln2
}

// jarqueBeraPValue tests u for normality from its skewness and excess
// kurtosis: JB = n/6·(S² + K²/4) is χ²(2) under normality, whose survival
// function is exp(-JB/2).
func jarqueBeraPValue(u []float64) float64 {
	n := float64(len(u))
	var mean float64
	for _, v := range u {
		mean += v
	}
	mean /= n
	var m2, m3, m4 float64
	for _, v := range u {
		d := v - mean
		d2 := d * d
		m2 += d2
		m3 += d2 * d
		m4 += d2 * d2
	}
	m2 /= n
	m3 /= n
	m4 /= n
	if m2 == 0 {
		return 1
	}
	skew := m3 / math.Pow(m2, 1.5)
	exKurt := m4/(m2*m2) - 3
	jb := n / 6 * (skew*skew + exKurt*exKurt/4)
	return math.Exp(-jb / 2)
}

// standardizeInPlace centres u and scales it to unit (population) variance.
// It reports false for a constant vector.
func standardizeInPlace(u []float64) bool {
	mean, sd := stat.PopMeanStdDev(u, nil)
	if sd == 0 {
		return false
	}
	for i, v := range u {
		u[i] = (v - mean) / sd
	}
	return true
}

// pairwiseLikelihoodRatio is DirectLiNGAM's kernel-free pairwise measure
// for standardised x and y: the approximate log-likelihood of x → y minus
// that of y → x,
//
//	[H(y) + H(r_x|y)] − [H(x) + H(r_y|x)],
//
// where r_a|b is the standardised residual of a regressed on b. Positive
// values favour x → y. buf must hold len(x) floats for each residual.
func pairwiseLikelihoodRatio(x, y, bufXY, bufYX []float64) float64 {
	var rho float64
	for i := range x {
		rho += x[i] * y[i]
	}
	rho /= float64(len(x))
	for i := range x {
		bufXY[i] = x[i] - rho*y[i]
		bufYX[i] = y[i] - rho*x[i]
	}
	if !standardizeInPlace(bufXY) || !standardizeInPlace(bufYX) {
		return 0 // deterministic relation: no evidence either way
	}
	return entropyApprox(y) + entropyApprox(bufXY) - entropyApprox(x) - entropyApprox(bufYX)
}
