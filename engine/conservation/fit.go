package conservation

import (
	"gonum.org/v1/gonum/mat"
)

// ridge is added to the diagonal of Gram matrices (whose diagonal is 1, the
// terms being scaled to unit root mean square) before a regression, so that
// near-collinear terms (sin(x) and x on small angles) cannot blow it up.
const ridge = 1e-9

// subGram returns the Gram matrix restricted to the terms in support.
func (p *problem) subGram(support []int) *mat.SymDense {
	g := mat.NewSymDense(len(support), nil)
	for a, ka := range support {
		for b := a; b < len(support); b++ {
			g.SetSym(a, b, p.gram.At(ka, support[b]))
		}
	}
	return g
}

// lowestEigenvector returns the unit eigenvector of the smallest eigenvalue.
func lowestEigenvector(s *mat.SymDense) ([]float64, bool) {
	var eig mat.EigenSym
	if !eig.Factorize(s, true) {
		return nil, false
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	return mat.Col(nil, 0, &vecs), true
}

// nullOnSupport returns the unit combination of the scaled terms in support
// that varies least within trajectories: the right singular vector of the
// centred library restricted to support with the smallest singular value,
// obtained as the lowest eigenvector of the restricted Gram matrix.
func (p *problem) nullOnSupport(support []int) ([]float64, bool) {
	return lowestEigenvector(p.subGram(support))
}

// fitWithout is nullOnSupport on the data without trajectory g, returned as
// coefficients of the raw terms.
func (p *problem) fitWithout(support []int, g int) ([]float64, bool) {
	rest := float64(p.rows - len(p.groups[g]))
	share := float64(len(p.groups[g]))
	gram := mat.NewSymDense(len(support), nil)
	for a, ka := range support {
		for b := a; b < len(support); b++ {
			kb := support[b]
			own := p.cov[g].At(ka, kb) / (p.scale[ka] * p.scale[kb])
			gram.SetSym(a, b, (float64(p.rows)*p.gram.At(ka, kb)-share*own)/rest)
		}
	}
	v, ok := lowestEigenvector(gram)
	if !ok {
		return nil, false
	}
	for a, k := range support {
		v[a] /= p.scale[k]
	}
	return v, true
}

// regress solves the ridge-stabilised least-squares problem
// scaled term k ≈ sum_{j in others} xi_j scaled term j
// through the normal equations with a Cholesky factorisation.
func (p *problem) regress(k int, others []int) ([]float64, bool) {
	g := p.subGram(others)
	for a := range others {
		g.SetSym(a, a, g.At(a, a)+ridge)
	}
	var chol mat.Cholesky
	if !chol.Factorize(g) {
		return nil, false
	}
	rhs := mat.NewVecDense(len(others), nil)
	for a, j := range others {
		rhs.SetVec(a, p.gram.At(j, k))
	}
	var xi mat.VecDense
	if err := chol.SolveVecTo(&xi, rhs); err != nil {
		// A condition-number warning still leaves a usable solution.
		if _, ok := err.(mat.Condition); !ok {
			return nil, false
		}
	}
	return xi.RawVector().Data, true
}
