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
// typically measure 0.01-0.06 (the fit is not perfect); the interaction in
// x0*exp(x1) on x0 in [1,3], x1 in [0,1.5] measures about 0.2, and in
// sin(x0*x1) on [-2,2]² about 0.9.
const DefaultSeparabilityTolerance = 0.1

// separabilitySamples caps the rows at which mixed partials are estimated.
const separabilitySamples = 200

// rectangleHalfWidth is the finite-difference half-step for mixed partials,
// in standard deviations of each feature (see InteractionStrengths).
const rectangleHalfWidth = 0.5

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

// Separability finds the finest split of the surrogate's features into
// groups it combines additively, y = f(group 1) + g(group 2) + ..., or
// multiplicatively, y = f(group 1) * g(group 2) * ...
//
// Candidate splits come from two places (SplitCandidates): the interaction
// graph of local mixed partials, in the manner of AI Feynman (features i and
// j interact additively when ∂²f/∂x_i∂x_j is not negligible against tol,
// DefaultSeparabilityTolerance when tol <= 0, and multiplicatively when the
// same holds for log|f|), and merging from single features up. Whichever
// proposes it, a split is claimed only when the surrogate, rebuilt from its
// parts, stays within SplitTolerance of itself (SplitError). The local
// strengths alone claimed false splits: they are relative to the whole
// gradient, so a weak but real interaction, such as q·E beside a larger
// q·B·v·sin θ, fell under tol (test/bench/README.md, "Update 5b"). Of the
// splits that hold, the one with the most groups is claimed, additive
// before multiplicative when they tie; none holding, the form is "none".
func (m *Model) Separability(X [][]float64, tol float64) Structure {
	limit := m.SplitTolerance()
	var best *Structure
	for _, s := range m.SplitCandidates(X, tol) {
		if best != nil && len(s.Groups) <= len(best.Groups) {
			continue
		}
		if SplitError(m.Predict, X, s) <= limit {
			best = &s
		}
	}
	if best != nil {
		return *best
	}
	all := make([]int, m.NumInputs())
	for j := range all {
		all[j] = j
	}
	return Structure{Form: NoStructure, Groups: [][]int{all}}
}

// SplitCandidates lists the splits Separability considers, additive ones
// first: for each form, the components of the interaction graph above tol
// and every coarser split made from them by merging the two groups whose
// union leaves the smallest SplitError, down to two groups; then the same
// merging started from single features. Multiplicative candidates need
// log|f|, so f must keep one sign on X.
func (m *Model) SplitCandidates(X [][]float64, tol float64) []Structure {
	if tol <= 0 {
		tol = DefaultSeparabilityTolerance
	}
	strengths := m.InteractionStrengths(X)
	singles := make([][]int, m.NumInputs())
	for j := range singles {
		singles[j] = []int{j}
	}
	var out []Structure
	for _, c := range []struct {
		form     string
		strength [][]float64
	}{{Additive, strengths.Additive}, {Multiplicative, strengths.Multiplicative}} {
		if c.strength == nil {
			continue
		}
		for _, start := range [][][]int{componentsAbove(c.strength, tol), singles} {
			for s := (Structure{Form: c.form, Groups: start}); len(s.Groups) > 1; s = m.bestMerge(X, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// bestMerge returns s with the two groups merged whose union leaves the
// smallest split error.
func (m *Model) bestMerge(X [][]float64, s Structure) Structure {
	var best Structure
	bestErr := math.Inf(1)
	for a := range s.Groups {
		for b := a + 1; b < len(s.Groups); b++ {
			merged := Structure{Form: s.Form}
			for g, group := range s.Groups {
				switch g {
				case a:
					union := append(append([]int(nil), group...), s.Groups[b]...)
					slices.Sort(union)
					merged.Groups = append(merged.Groups, union)
				case b:
				default:
					merged.Groups = append(merged.Groups, group)
				}
			}
			if e := SplitError(m.Predict, X, merged); best.Groups == nil || e < bestErr {
				best, bestErr = merged, e
			}
		}
	}
	return best
}

// InteractionStrengths estimates the mixed partials of the surrogate at up to
// 200 evenly spaced rows of X by the central mixed difference
//
//	[f(+,+) - f(+,-) - f(-,+) + f(-,-)] / (width_i * width_j)
//
// over a rectangle of half a standard deviation either side of the row in
// features i and j, clamped to the data range so the surrogate is never
// asked to extrapolate. That is the mixed partial averaged over the
// rectangle: local curvature wiggles left by fitting average out, while
// genuine interactions, which persist across the data, do not. Each strength
// is the RMS of that difference, in standardised input units, divided by the
// RMS norm of the analytic gradient, so it is dimensionless: the typical
// change in one feature's slope per standard deviation of another, relative
// to the typical slope.
func (m *Model) InteractionStrengths(X [][]float64) Interactions {
	p := m.NumInputs()
	if m.checkShape(X) == 0 {
		return Interactions{Additive: squareMatrix(p)}
	}
	full := m.standardise(X)
	lo, hi := columnRanges(full)
	z := sampleRows(full, separabilitySamples)
	n, _ := z.Dims()

	values := m.originalOutputs(z)
	grad := m.standardisedGradients(z)
	grad.Scale(m.OutputStd, grad)
	gradScale, logGradScale := gradientScales(grad, values)

	result := Interactions{Additive: squareMatrix(p)}
	logMixed := squareMatrix(p)
	oneSign := keepsOneSign(values)
	corners := mat.NewDense(4*n, p, nil)
	for i := range p {
		for j := i + 1; j < p; j++ {
			for c, sign := range cornerSigns {
				for k := range n {
					row := corners.RawRowView(c*n + k)
					copy(row, z.RawRowView(k))
					row[i] = min(hi[i], max(lo[i], row[i]+sign[0]*rectangleHalfWidth))
					row[j] = min(hi[j], max(lo[j], row[j]+sign[1]*rectangleHalfWidth))
				}
			}
			f := m.originalOutputs(corners)
			oneSign = oneSign && keepsOneSign(f)
			var sum, logSum float64
			used := 0
			for k := range n {
				area := (corners.At(k, i) - corners.At(3*n+k, i)) * (corners.At(k, j) - corners.At(3*n+k, j))
				if area == 0 {
					continue // a constant feature has no extent to vary over
				}
				used++
				d := (f[k] - f[n+k] - f[2*n+k] + f[3*n+k]) / area
				sum += d * d
				if oneSign {
					dl := (logAbs(f[k]) - logAbs(f[n+k]) - logAbs(f[2*n+k]) + logAbs(f[3*n+k])) / area
					logSum += dl * dl
				}
			}
			if used == 0 {
				continue
			}
			s := ratio(math.Sqrt(sum/float64(used)), gradScale)
			result.Additive[i][j], result.Additive[j][i] = s, s
			ls := ratio(math.Sqrt(logSum/float64(used)), logGradScale)
			logMixed[i][j], logMixed[j][i] = ls, ls
		}
	}
	if oneSign {
		result.Multiplicative = logMixed
	}
	return result
}

// cornerSigns orders the rectangle's corners as (+,+), (+,-), (-,+), (-,-).
var cornerSigns = [4][2]float64{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}

// originalOutputs runs the network on standardised rows and returns the
// predictions in original units.
func (m *Model) originalOutputs(z *mat.Dense) []float64 {
	rows, _ := z.Dims()
	return m.outputs(m.forward(z), rows)
}

// gradientScales returns the RMS gradient norm of f and of log|f| (the
// latter meaningful only where f keeps one sign).
func gradientScales(grad *mat.Dense, values []float64) (scale, logScale float64) {
	n, p := grad.Dims()
	var sum, logSum float64
	for k := range n {
		for i := range p {
			g := grad.At(k, i)
			sum += g * g
			logSum += g * g / (values[k] * values[k])
		}
	}
	return math.Sqrt(sum / float64(n)), math.Sqrt(logSum / float64(n))
}

// columnRanges returns each column's minimum and maximum.
func columnRanges(z *mat.Dense) (lo, hi []float64) {
	n, p := z.Dims()
	lo, hi = make([]float64, p), make([]float64, p)
	copy(lo, z.RawRowView(0))
	copy(hi, z.RawRowView(0))
	for k := 1; k < n; k++ {
		for j, v := range z.RawRowView(k) {
			lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
		}
	}
	return lo, hi
}

func logAbs(v float64) float64 { return math.Log(math.Abs(v)) }

// ratio is a/b, or 0 when the model is flat (b == 0) and nothing can interact.
func ratio(a, b float64) float64 {
	if b == 0 || math.IsInf(b, 0) || math.IsNaN(b) {
		return 0
	}
	return a / b
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
