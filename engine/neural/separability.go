package neural

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Structure forms reported by Separability.
const (
	Additive       = "additive"
	Multiplicative = "multiplicative"
	NoStructure    = "none"
)

// DefaultSeparabilityTolerance is used when Separability is given tol <= 0.
// Interaction strengths of exactly separable functions fitted by a surrogate
// sit well below it; genuine interactions sit well above.
const DefaultSeparabilityTolerance = 0.05

// separabilitySamples caps the rows at which mixed partials are estimated.
const separabilitySamples = 200

// hessianStep is the finite-difference step in standardised input units.
// Differencing analytic gradients keeps truncation error O(step²) with
// negligible rounding error at this size.
const hessianStep = 1e-3

// Structure is a decomposition of the surrogate into independent groups of
// features: y = f(group 1) + g(group 2) + ... (additive) or
// y = f(group 1) * g(group 2) * ... (multiplicative). Form "none" has one group.
type Structure struct {
	Form   string  `json:"form"`
	Groups [][]int `json:"groups"` // each sorted; ordered by first index
}

// Interactions holds the normalised mixed-partial strengths between feature
// pairs: Additive[i][j] for the surrogate f itself and Multiplicative[i][j]
// for log|f|. Multiplicative is nil when f changes sign (or reaches zero) on
// the data, where log|f| is undefined or unbounded.
type Interactions struct {
	Additive       [][]float64 `json:"additive"`
	Multiplicative [][]float64 `json:"multiplicative,omitempty"`
}

// Separability tests which features the surrogate combines, in the manner of
// AI Feynman: features i and j interact additively when the mixed partial
// ∂²f/∂x_i∂x_j is not negligible, and multiplicatively when the same holds
// for log|f|. Groups are the connected components of the interaction graph
// with edges where the strength exceeds tol (DefaultSeparabilityTolerance
// when tol <= 0). An additive split is preferred over a multiplicative one.
func (m *Model) Separability(X [][]float64, tol float64) Structure {
	if tol <= 0 {
		tol = DefaultSeparabilityTolerance
	}
	strengths := m.InteractionStrengths(X)
	if groups := componentsAbove(strengths.Additive, tol); len(groups) > 1 {
		return Structure{Form: Additive, Groups: groups}
	}
	if strengths.Multiplicative != nil {
		if groups := componentsAbove(strengths.Multiplicative, tol); len(groups) > 1 {
			return Structure{Form: Multiplicative, Groups: groups}
		}
	}
	all := make([]int, m.NumInputs())
	for j := range all {
		all[j] = j
	}
	return Structure{Form: NoStructure, Groups: [][]int{all}}
}

// InteractionStrengths estimates, at up to 200 evenly spaced rows of X, the
// mixed partials of the surrogate by central differences of its analytic
// input gradients, in standardised input units. Each strength is the RMS of
// a mixed partial divided by the RMS norm of the gradient, so it is
// dimensionless: the typical change in one feature's slope per standard
// deviation of another, relative to the typical slope.
func (m *Model) InteractionStrengths(X [][]float64) Interactions {
	p := m.NumInputs()
	rows := m.checkShape(X)
	if rows == 0 {
		return Interactions{Additive: squareMatrix(p)}
	}
	z := sampleRows(m.standardise(X), separabilitySamples)
	n, _ := z.Dims()

	f := m.forward(z).post[len(m.Layers)]
	values := make([]float64, n)
	for k := range values {
		values[k] = f.At(k, 0)*m.OutputStd + m.OutputMean
	}
	grad := m.standardisedGradients(z)
	grad.Scale(m.OutputStd, grad)
	hess := m.standardisedHessians(z)

	result := Interactions{Additive: strengths(grad, hess, n, p, nil)}
	if keepsOneSign(values) {
		result.Multiplicative = strengths(grad, hess, n, p, values)
	}
	return result
}

// standardisedHessians returns hess[i] (rows × features), the derivative of
// the gradient with respect to z_i, in original output units.
func (m *Model) standardisedHessians(z *mat.Dense) []*mat.Dense {
	n, p := z.Dims()
	hess := make([]*mat.Dense, p)
	shifted := mat.NewDense(n, p, nil)
	for i := range p {
		shifted.Copy(z)
		for k := range n {
			shifted.Set(k, i, z.At(k, i)+hessianStep)
		}
		up := m.standardisedGradients(shifted)
		for k := range n {
			shifted.Set(k, i, z.At(k, i)-hessianStep)
		}
		down := m.standardisedGradients(shifted)
		up.Sub(up, down)
		up.Scale(m.OutputStd/(2*hessianStep), up)
		hess[i] = up
	}
	return hess
}

// strengths turns gradients and Hessians into the normalised interaction
// matrix. With values nil it measures f; otherwise log|f|, whose derivatives
// follow from f's: ∂ log|f| / ∂z_i = g_i / f and
// ∂² log|f| / ∂z_i∂z_j = H_ij / f - g_i g_j / f².
func strengths(grad *mat.Dense, hess []*mat.Dense, n, p int, values []float64) [][]float64 {
	var gradNorm2 float64
	mixed2 := squareMatrix(p)
	for k := range n {
		inv := 1.0
		if values != nil {
			inv = 1 / values[k]
		}
		for i := range p {
			gi := grad.At(k, i) * inv
			gradNorm2 += gi * gi
			for j := i + 1; j < p; j++ {
				// Average both orders: the finite differences are not exactly symmetric.
				h := (hess[i].At(k, j) + hess[j].At(k, i)) / 2 * inv
				if values != nil {
					h -= gi * grad.At(k, j) * inv
				}
				mixed2[i][j] += h * h
			}
		}
	}
	out := squareMatrix(p)
	scale := math.Sqrt(gradNorm2 / float64(n))
	for i := range p {
		for j := i + 1; j < p; j++ {
			var s float64
			if scale > 0 {
				s = math.Sqrt(mixed2[i][j]/float64(n)) / scale
			}
			out[i][j], out[j][i] = s, s
		}
	}
	return out
}

// keepsOneSign reports whether every value is non-zero with the same sign.
func keepsOneSign(values []float64) bool {
	for _, v := range values {
		if v == 0 || math.Signbit(v) != math.Signbit(values[0]) {
			return false
		}
	}
	return len(values) > 0
}

// sampleRows takes up to limit evenly spaced rows of z, deterministically.
func sampleRows(z *mat.Dense, limit int) *mat.Dense {
	n, p := z.Dims()
	if n <= limit {
		return z
	}
	out := mat.NewDense(limit, p, nil)
	for k := range limit {
		out.SetRow(k, z.RawRowView(k*n/limit))
	}
	return out
}

// componentsAbove returns the connected components of the graph with an
// edge between i and j when strength[i][j] > tol; each component is sorted
// and components are ordered by their first index.
func componentsAbove(strength [][]float64, tol float64) [][]int {
	p := len(strength)
	component := make([]int, p)
	for i := range component {
		component[i] = -1
	}
	var groups [][]int
	for start := range p {
		if component[start] >= 0 {
			continue
		}
		id := len(groups)
		group := []int{start}
		component[start] = id
		for queue := []int{start}; len(queue) > 0; queue = queue[1:] {
			i := queue[0]
			for j := range p {
				if component[j] < 0 && strength[i][j] > tol {
					component[j] = id
					group = append(group, j)
					queue = append(queue, j)
				}
			}
		}
		slices.Sort(group)
		groups = append(groups, group)
	}
	return groups
}

func squareMatrix(p int) [][]float64 {
	m := make([][]float64, p)
	for i := range m {
		m[i] = make([]float64, p)
	}
	return m
}
