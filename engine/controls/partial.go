package controls

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

// Projector removes from a vector its least-squares fit on [1, Z]: the
// residual v - Q·Qᵀv, with Q an orthonormal basis of the columns of [1, Z]
// computed once by modified Gram–Schmidt, applied twice per column
// ("twice is enough": Giraud, Langou & Rozložník 2005, Numer. Math. 101).
// Each residual then costs O(n·k) instead of a fresh QR factorisation of
// the n×(k+1) design, which is what lets a permutation test redo it for
// every null draw.
//
// When Z is rank deficient (a column is, to rounding, a combination of the
// others) the fit is not unique and the projector falls back to removing
// the mean only, as a least-squares solve that refuses a singular design
// would.
type Projector struct {
	n     int
	basis [][]float64
}

// rankTolerance is the relative norm below which a column counts as lying
// in the span of the previous ones.
const rankTolerance = 1e-10

// NewProjector prepares the projection for vectors of length n; every
// column of Z must have length n.
func NewProjector(n int, Z [][]float64) *Projector {
	p := &Projector{n: n}
	if n == 0 {
		return p
	}
	one := make([]float64, n)
	for i := range one {
		one[i] = 1 / math.Sqrt(float64(n))
	}
	p.basis = [][]float64{one}
	for _, z := range Z {
		q := append([]float64(nil), z...)
		norm0 := floats.Norm(q, 2)
		for pass := 0; pass < 2; pass++ {
			for _, b := range p.basis {
				floats.AddScaled(q, -floats.Dot(b, q), b)
			}
		}
		norm := floats.Norm(q, 2)
		if !(norm > rankTolerance*norm0) || math.IsNaN(norm) || math.IsInf(norm, 0) {
			p.basis = p.basis[:1]
			return p
		}
		floats.Scale(1/norm, q)
		p.basis = append(p.basis, q)
	}
	return p
}

// Residual writes v minus its projection on the basis into dst (allocated
// when too short) and returns it.
func (p *Projector) Residual(dst, v []float64) []float64 {
	if cap(dst) < len(v) {
		dst = make([]float64, len(v))
	}
	dst = dst[:len(v)]
	copy(dst, v)
	for _, b := range p.basis {
		floats.AddScaled(dst, -floats.Dot(b, dst), b)
	}
	return dst
}

// Partial is the absolute partial correlation of a cause x and an effect y
// given Z, prepared once so that a control can rescore it with the cause or
// the effect replaced (ByCause, ByEffect) at O(n·k) per draw. It holds
// scratch space: one Partial must not be used by two goroutines at once.
type Partial struct {
	proj   *Projector
	rx, ry []float64
	buf    []float64
}

// NewPartial prepares the statistic for x and y given Z (each of length n).
func NewPartial(x, y []float64, Z [][]float64) *Partial {
	proj := NewProjector(len(x), Z)
	return &Partial{proj: proj, rx: proj.Residual(nil, x), ry: proj.Residual(nil, y)}
}

// Observed is |partial correlation of x and y given Z|.
func (p *Partial) Observed() float64 { return math.Abs(correlation(p.rx, p.ry)) }

// ByEffect is the statistic with the effect replaced by v.
func (p *Partial) ByEffect(v []float64) float64 {
	p.buf = p.proj.Residual(p.buf, v)
	return math.Abs(correlation(p.rx, p.buf))
}

// ByCause is the statistic with the cause replaced by v.
func (p *Partial) ByCause(v []float64) float64 {
	p.buf = p.proj.Residual(p.buf, v)
	return math.Abs(correlation(p.buf, p.ry))
}

// correlation is Pearson's r, 0 when either side is constant.
func correlation(a, b []float64) float64 {
	r := stat.Correlation(a, b, nil)
	if math.IsNaN(r) {
		return 0
	}
	return r
}
