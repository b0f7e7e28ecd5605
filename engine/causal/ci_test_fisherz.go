package causal

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// fisherZ tests conditional independence of Gaussian variables from a
// precomputed correlation matrix: the partial correlation r of i and j given
// S is transformed to z = atanh(r)·sqrt(n-|S|-3), which is standard normal
// under independence. Each goroutine needs its own fisherZ (see clone)
// because the Cholesky workspace is reused between calls.
type fisherZ struct {
	corr *mat.SymDense
	n    int
	u    []float64 // Cholesky workspace, row-major m×m
	idx  []int
}

func newFisherZ(corr *mat.SymDense, n int) *fisherZ {
	return &fisherZ{corr: corr, n: n}
}

// clone returns a tester sharing the correlation matrix with fresh
// workspaces.
func (t *fisherZ) clone() *fisherZ { return newFisherZ(t.corr, t.n) }

// partialCorr returns the partial correlation of i and j given s. ok is
// false when the conditioning variables are (numerically) collinear.
func (t *fisherZ) partialCorr(i, j int, s []int) (r float64, ok bool) {
	c := t.corr
	switch len(s) {
	case 0:
		return c.At(i, j), true
	case 1:
		k := s[0]
		rij, rik, rjk := c.At(i, j), c.At(i, k), c.At(j, k)
		den := (1 - rik*rik) * (1 - rjk*rjk)
		if den <= 1e-14 {
			return 0, false
		}
		return (rij - rik*rjk) / math.Sqrt(den), true
	}
	// Order the sub-matrix as [s..., i, j] and factor it as UᵀU. The
	// trailing 2×2 block of U is the Cholesky factor of the covariance of
	// (i, j) given s, so the partial correlation is read off without an
	// explicit inverse. The factorisation is written out (m is small): the
	// gonum one also estimates the condition number, which cost more than
	// the factorisation itself and was not used.
	m := len(s) + 2
	if cap(t.u) < m*m {
		t.u = make([]float64, m*m)
		t.idx = make([]int, m)
	}
	u, idx := t.u[:m*m], t.idx[:m]
	copy(idx, s)
	idx[m-2], idx[m-1] = i, j
	for a := range m {
		ia := idx[a]
		for b := a; b < m; b++ {
			u[a*m+b] = c.At(ia, idx[b])
		}
	}
	for a := range m {
		d := u[a*m+a]
		for k := range a {
			d -= u[k*m+a] * u[k*m+a]
		}
		if !(d > 0) {
			return 0, false
		}
		d = math.Sqrt(d)
		u[a*m+a] = d
		for b := a + 1; b < m; b++ {
			v := u[a*m+b]
			for k := range a {
				v -= u[k*m+a] * u[k*m+b]
			}
			u[a*m+b] = v / d
		}
	}
	uij, ujj := u[(m-2)*m+m-1], u[(m-1)*m+m-1]
	den := math.Hypot(uij, ujj)
	if den == 0 {
		return 0, false
	}
	return uij / den, true
}

// test returns the two-sided p-value of the hypothesis that i and j are
// independent given s, and the partial correlation it is based on.
// Collinear conditioning sets yield p = 0 (treated as dependent) so they
// never delete an edge on numerical grounds.
func (t *fisherZ) test(i, j int, s []int) (p, r float64) {
	r, ok := t.partialCorr(i, j, s)
	if !ok {
		return 0, math.NaN()
	}
	return fisherZPValue(r, t.n, len(s)), r
}

// fisherZPValue is the two-sided p-value of partial correlation r from n
// samples with k conditioning variables.
func fisherZPValue(r float64, n, k int) float64 {
	dof := float64(n - k - 3)
	if dof <= 0 {
		return 1
	}
	const lim = 1 - 1e-12
	r = math.Max(-lim, math.Min(lim, r))
	z := math.Abs(math.Atanh(r)) * math.Sqrt(dof)
	return 2 * distuv.UnitNormal.Survival(z)
}
