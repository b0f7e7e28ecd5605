package symbolic

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// powerLawSeeds fits y = C·Π x_j^p_j by least squares in log space,
// log|y| = log C + Σ p_j log|x_j|, then rounds the exponents to integers
// and to halves. Products of powers are the most common shape of physical
// laws (F = m·a, q1·q2/(4π·ε·r²)), and in log space finding them is a
// linear problem. Only variables of constant sign take part, and y must
// not change sign or vanish.
func powerLawSeeds(p *problem) []tree {
	vars, w, ok := powerLawFit(p)
	if !ok {
		return nil
	}
	b := newTermBuilder(p.g)
	var seeds []tree
	seen := map[uint64]bool{}
	for _, step := range []float64{1, 0.5} {
		pw := make([]float64, len(vars))
		for j := range vars {
			pw[j] = math.Round(w[j]/step) * step
		}
		t, ok := b.monomial(vars, pw)
		if !ok || !p.g.fits(t) {
			continue
		}
		if h := t.hash(); !seen[h] {
			seen[h] = true
			seeds = append(seeds, t)
		}
	}
	return seeds
}

// powerLawFit returns the variables of constant sign and their exponents
// p_j of the least-squares fit log|y| = log C + Σ p_j log|x_j|, or false
// when y changes sign or vanishes or no variable keeps its sign.
func powerLawFit(p *problem) ([]int, []float64, bool) {
	if !sameSign(p.y) {
		return nil, nil, false
	}
	var vars []int
	for _, v := range p.g.vars {
		if sameSign(p.cols[v]) {
			vars = append(vars, v)
		}
	}
	if len(vars) == 0 {
		return nil, nil, false
	}
	n := len(p.y)
	a := mat.NewDense(n, len(vars)+1, nil)
	ly := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, 0, 1)
		for j, v := range vars {
			a.Set(i, j+1, math.Log(math.Abs(p.cols[v][i])))
		}
		ly.SetVec(i, math.Log(math.Abs(p.y[i])))
	}
	var w mat.VecDense
	if err := w.SolveVec(a, ly); err != nil {
		return nil, nil, false
	}
	return vars, w.RawVector().Data[1:], true
}

// sameSign reports whether all values are non-zero and of one sign.
func sameSign(x []float64) bool {
	if len(x) == 0 {
		return false
	}
	pos := x[0] > 0
	for _, v := range x {
		if v == 0 || (v > 0) != pos {
			return false
		}
	}
	return true
}
