package neural

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Structure forms reported by Separability.
const (
	Additive       = "additive"
	Multiplicative = "multiplicative"
	NoStructure    = "none"
)

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
// Candidates are proposed two ways (SplitCandidates): by the local mixed
// partials, in the manner of AI Feynman (features i and j interact
// additively as strongly as ∂²f/∂x_i∂x_j is large, multiplicatively as the
// same for log|f|), taking the groupings of that interaction graph at every
// threshold; and, for up to maxMergeFeatures features, by merging from
// single features the two groups whose union rebuilds best. SplitError
// decides: a split is claimed only when the surrogate, rebuilt from its
// parts, stays within SplitTolerance of itself. A fixed threshold on the
// strengths alone claimed false splits: strengths are relative to the
// whole gradient, so a weak but real interaction, such as q·E beside a
// larger q·B·v·sin θ, fell under it
// (test/bench/CALIBRATION.md#split-tolerance).
// Of the splits that hold, the one with the most groups is claimed,
// additive before multiplicative when they tie; none holding, the form is
// "none".
func (m *Model) Separability(X [][]float64) Structure {
	limit := m.SplitTolerance()
	candidates, sp := m.splitCandidates(X)
	var best *Structure
	for _, s := range candidates {
		if best != nil && len(s.Groups) <= len(best.Groups) {
			continue
		}
		if sp.err(s) <= limit {
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

// maxMergeFeatures bounds the merge chains of SplitCandidates: they cost
// about p³/6 surrogate evaluations for p features, a fraction of a second
// at 10. Wider data get only the hierarchy, O(p²) evaluations.
const maxMergeFeatures = 12

// SplitCandidates lists the splits Separability considers, additive ones
// first. For each form: the connected components of the interaction graph
// keeping only edges stronger than t, for every threshold t at which they
// change, finest first (the single-linkage hierarchy of the strengths);
// then, with at most maxMergeFeatures features, the chain of merges from
// single features that each leave the smallest split error.
// Multiplicative candidates need log|f|, so f must keep one sign on X.
func (m *Model) SplitCandidates(X [][]float64) []Structure {
	out, _ := m.splitCandidates(X)
	return out
}

func (m *Model) splitCandidates(X [][]float64) ([]Structure, *splitter) {
	strengths := m.InteractionStrengths(X)
	if m.checkShape(X) == 0 {
		return nil, nil
	}
	sp := newSplitter(m.Predict, X)
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
		out = append(out, hierarchy(c.form, c.strength)...)
		if len(singles) <= maxMergeFeatures {
			out = append(out, sp.mergeChain(Structure{Form: c.form, Groups: singles})...)
		}
	}
	return out, sp
}

// hierarchy lists the splits of form whose groups are the components of
// the graph with the edges stronger than t, for each threshold t at which
// they change, finest first; the whole feature set is not listed.
func hierarchy(form string, strength [][]float64) []Structure {
	var thresholds []float64
	for i := range strength {
		thresholds = append(thresholds, strength[i][i+1:]...)
	}
	slices.Sort(thresholds)
	slices.Reverse(thresholds)
	var out []Structure
	previous := -1
	for _, t := range slices.Compact(thresholds) {
		groups := componentsAbove(strength, t)
		if len(groups) < 2 {
			break
		}
		if len(groups) != previous {
			out = append(out, Structure{Form: form, Groups: groups})
			previous = len(groups)
		}
	}
	return out
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
// to the typical slope. Past maxPairFeatures features only the pairs of the
// steepest ones are estimated (the others are 0).
func (m *Model) InteractionStrengths(X [][]float64) Interactions {
	return m.interactionStrengths(X, maxPairFeatures)
}

// interactionStrengths is InteractionStrengths with the pairs of at most
// the pairFeatures steepest features estimated.
func (m *Model) interactionStrengths(X [][]float64, pairFeatures int) Interactions {
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
	active := steepestFeatures(grad, pairFeatures)
	for a, i := range active {
		for _, j := range active[a+1:] {
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

// maxPairFeatures bounds the features whose pairs InteractionStrengths
// estimates: each pair costs 4 surrogate evaluations at up to 200 rows,
// so all pairs of 200 features took minutes, past any run's time limit.
// Beyond it only the pairs of the maxPairFeatures features with the
// largest gradients are estimated and the others' strengths are 0: a
// feature the surrogate barely moves with has mixed partials as small as
// its slope. Separability still checks every split it claims (SplitError).
const maxPairFeatures = 20

// steepestFeatures returns, ascending, the features of the gradients grad
// (rows × features) with the largest RMS gradient, at most limit of them
// (all of them when there are no more).
func steepestFeatures(grad *mat.Dense, limit int) []int {
	_, p := grad.Dims()
	all := make([]int, p)
	for j := range all {
		all[j] = j
	}
	if p <= limit {
		return all
	}
	rms := make([]float64, p)
	for j := range p {
		rms[j] = floats.Norm(mat.Col(nil, j, grad), 2)
	}
	slices.SortStableFunc(all, func(a, b int) int { return cmp.Compare(rms[b], rms[a]) })
	top := all[:limit]
	slices.Sort(top)
	return top
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
