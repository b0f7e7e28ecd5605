package causal

import (
	"slices"

	"gonum.org/v1/gonum/mat"
)

// regressionFromCorr returns the standardised coefficients of target
// regressed on preds, computed from the correlation matrix as
// β = R_PP⁻¹ R_P,target. ok is false when the predictors are collinear.
func regressionFromCorr(corr *mat.SymDense, target int, preds []int) (beta []float64, ok bool) {
	k := len(preds)
	if k == 0 {
		return nil, true
	}
	rpp := mat.NewSymDense(k, nil)
	rpt := mat.NewVecDense(k, nil)
	for a, pa := range preds {
		rpt.SetVec(a, corr.At(pa, target))
		for b := a; b < k; b++ {
			rpp.SetSym(a, b, corr.At(pa, preds[b]))
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(rpp) {
		return nil, false
	}
	var b mat.VecDense
	if err := chol.SolveVecTo(&b, rpt); err != nil {
		return nil, false
	}
	return b.RawVector().Data, true
}

// effectStrength is the standardised effect of from on to: the coefficient
// of from when to is regressed on its directed parents in g plus from
// itself (for an undirected edge from is not yet a parent). Collinear
// parent sets fall back to the marginal correlation.
func effectStrength(g *pdag, corr *mat.SymDense, from, to int) float64 {
	preds := g.parents(to)
	if !slices.Contains(preds, from) {
		preds = append(preds, from)
	}
	beta, ok := regressionFromCorr(corr, to, preds)
	if !ok {
		return corr.At(from, to)
	}
	return beta[slices.Index(preds, from)]
}
