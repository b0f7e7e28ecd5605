package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// powerLawSeeds fits y = C·Π x_j^p_j by least squares in log space,
// log|y| = log C + Σ p_j log|x_j|, then rounds the exponents to integers
// and to halves. Products of powers are the most common shape of physical
// laws (F = m·a, q1·q2/(4π·ε·r²)), and in log space finding them is a
// linear problem. Only variables of constant sign take part, and y must
// not change sign or vanish.
func powerLawSeeds(p *problem) []tree {
	vars, w, ok := powerLawFit(p, false)
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
// when no variable keeps its sign or y changes sign or vanishes. With
// robust, a y that changes sign is fitted on the rows of the majority sign
// whose |y| is at least the median |y|: noise flips the sign of a
// positive law only where it is small, and there log|y| is mostly noise.
func powerLawFit(p *problem, robust bool) ([]int, []float64, bool) {
	var rows []int
	switch {
	case sameSign(p.y):
		rows = make([]int, len(p.y))
		for i := range rows {
			rows[i] = i
		}
	case robust:
		// The majority-sign half is a subset chosen from noisy data: too few rows and its
		// fit says nothing.
		if rows = majorityRows(p.y); len(rows) < minRobustRows {
			return nil, nil, false
		}
	}
	if len(rows) == 0 {
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
	ly := make([]float64, len(rows))
	for k, i := range rows {
		ly[k] = math.Log(math.Abs(p.y[i]))
	}
	w, ok := newLogDesign(p.cols, vars, rows).fit(ly)
	if !ok {
		return nil, nil, false
	}
	return vars, w[1:], true
}

// logDesign is the log-space design [1, log|x_j|] of a power law over vars
// on some rows, factorized once (thin QR): a fit of log|t| against it is a
// projection (rss) or a triangular solve (fit).
type logDesign struct {
	x  *mat.Dense // rows × (1 + vars)
	qr mat.QR
	q  *mat.Dense // the thin Q factor
}

// newLogDesign builds the design on rows (their positions k are the rows
// of x) over vars, columns of cols.
func newLogDesign(cols [][]float64, vars, rows []int) *logDesign {
	d := &logDesign{x: mat.NewDense(len(rows), len(vars)+1, nil)}
	for k, i := range rows {
		d.x.Set(k, 0, 1)
		for q, v := range vars {
			d.x.Set(k, q+1, math.Log(math.Abs(cols[v][i])))
		}
	}
	d.qr.Factorize(d.x)
	var q mat.Dense
	d.qr.QTo(&q)
	d.q = mat.DenseCopyOf(q.Slice(0, len(rows), 0, len(vars)+1))
	return d
}

// fit returns the least-squares coefficients (intercept first) of lt, the
// log-target on the design's rows, or false when the design is singular.
func (d *logDesign) fit(lt []float64) ([]float64, bool) {
	var w mat.VecDense
	if err := d.qr.SolveVecTo(&w, false, mat.NewVecDense(len(lt), lt)); err != nil {
		return nil, false
	}
	return w.RawVector().Data, true
}

// rss returns the share of lt's variance the design leaves unexplained, or
// +Inf when lt is constant. It forms the residual lt − QQᵀlt itself, not
// ‖lt‖² − ‖Qᵀlt‖², which cancels to rounding error near an exact fit and
// would blur a scan's minimum.
func (d *logDesign) rss(lt []float64) float64 {
	_, variance := stat.MeanVariance(lt, nil)
	if !(variance > 0) {
		return math.Inf(1)
	}
	v := mat.NewVecDense(len(lt), lt)
	var proj, res mat.VecDense
	proj.MulVec(d.q.T(), v)
	res.MulVec(d.q, &proj)
	res.SubVec(v, &res)
	return mat.Dot(&res, &res) / (variance * float64(len(lt)-1))
}

// weightedFit fits lt on the design's rows keep (nil for all) with
// weights w (one per kept row) by weighted least squares. It returns the
// coefficients (intercept first) and the weighted share of lt's variance
// left unexplained, Σ w·r² / Σ w·(lt − mean_w)², or false when the
// weighted design is singular or lt constant.
func (d *logDesign) weightedFit(lt []float64, keep []int, w []float64) ([]float64, float64, bool) {
	rows, cols := d.x.Dims()
	if keep == nil {
		keep = evenRows(rows, rows)
	}
	x := mat.NewDense(len(keep), cols, nil)
	b := make([]float64, len(keep))
	var sw, mean float64
	for r, k := range keep {
		sw += w[r]
		mean += w[r] * lt[k]
	}
	mean /= sw
	var tss float64
	for r, k := range keep {
		sq := math.Sqrt(w[r])
		for c := range cols {
			x.Set(r, c, sq*d.x.At(k, c))
		}
		b[r] = sq * lt[k]
		tss += w[r] * (lt[k] - mean) * (lt[k] - mean)
	}
	if !(tss > 0) {
		return nil, math.Inf(1), false
	}
	var qr mat.QR
	qr.Factorize(x)
	var coef, fitted mat.VecDense
	bv := mat.NewVecDense(len(b), b)
	if err := qr.SolveVecTo(&coef, false, bv); err != nil {
		return nil, math.Inf(1), false
	}
	fitted.MulVec(x, &coef)
	fitted.SubVec(bv, &fitted)
	return coef.RawVector().Data, mat.Dot(&fitted, &fitted) / tss, true
}

// minRobustRows is the fewest majority-sign rows a robust power-law fit uses.
const minRobustRows = 10

// majorityRows returns the rows whose y has the sign most rows have and
// whose |y| is at least the median |y|.
func majorityRows(y []float64) []int {
	pos := 0
	for _, v := range y {
		if v > 0 {
			pos++
		}
	}
	sign := 1.0
	if 2*pos < len(y) {
		sign = -1
	}
	abs := make([]float64, len(y))
	for i, v := range y {
		abs[i] = math.Abs(v)
	}
	slices.Sort(abs)
	med := abs[len(abs)/2]
	var rows []int
	for i, v := range y {
		if v*sign > 0 && math.Abs(v) >= med {
			rows = append(rows, i)
		}
	}
	return rows
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
