package conservation

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Grouped search: many variables.
//
// The library of monomials up to degree 2 outgrows maxLibraryTerms past
// maxWholeVariables (16) variables, and at degree 1 no quadratic quantity,
// such as an oscillator's energy, can be found. Past that many variables
// (with Options.MaxDegree left at 0) Find therefore splits the variables
// into groups that can share a conserved quantity and searches each group
// alone, at DefaultDegree of its size, then merges the groups' quantities.
//
// Why this loses nothing when the grouping is right: if the variables fall
// into subsystems that evolve independently, a conserved quantity of the
// whole is constant on every product of the subsystems' orbits, so it is a
// function of each subsystem's own conserved quantities; the quantities of
// the subsystems generate all of them, and the search reports independent
// quantities only.
//
// The grouping rule (groupVariables) needs no time column: rows need not
// be in time order. For each variable x it takes the candidate terms of x
// alone, x, x², sin x and cos x, centred within each trajectory as the
// search centres its library. Two variables are linked when some
// combination g of the terms of one and some combination h of the terms of
// the other are correlated by at least linkCorrelation across the pooled
// within-trajectory variation: their first canonical correlation (for an
// oscillator, w²x² + v² is constant along each trajectory, so the centred
// x² and v² have correlation −1). The groups are the connected components
// of the links, built strongest link first (union–find) with no group
// allowed past maxGroupVariables; a link that would pass it is cut, and
// the note says how many were.
//
// linkCorrelation follows from the search's own acceptance rule: a
// two-term quantity a·f + b·g of unit-variance terms f and g with
// correlation ρ has relative variation (see Quantity) at least
// sqrt((1 − |ρ|)/2), so it can pass the noise model's bound
// maxNoisyVariation only if |ρ| ≥ 1 − 2·maxNoisyVariation² (0.92). Linking
// at that level links every pair of variables that such a quantity could
// join, and a false link only makes a group larger.
//
// Limits, by construction: a quantity is kept whole only if its variables
// are linked, which needs a strong correlation between functions of two
// single variables. A quantity that is a sum of three or more comparable
// parts (x1² + x2² + x3², a total momentum) or whose terms each mix
// variables (angular momentum x·vy − y·vx) correlates only weakly pair by
// pair; unless other links join its variables it is split, and it is not
// found. Variables that are constant within every trajectory (parameters)
// have no variation to correlate: they join every group that stays within
// maxWholeVariables with them, since they may enter a quantity such as
// k·x² + m·v² through its products with the varying variables.
//
// Cost: the pairwise statistics are computed on a bounded row sample
// (sampleRows: at most about groupingRows rows, evenly spaced within each
// trajectory), in blocks of variables, so the work is
// rows_sample × (4 × variables)² and the memory rows_sample × 4 ×
// variables plus one block of cross-products; it never holds rows ×
// terms × terms.
const (
	// maxWholeVariables is the most variables the default search takes
	// whole: DefaultDegree is 2 up to 16 variables.
	maxWholeVariables = 16
	// maxGroupVariables is the largest group: the most variables whose
	// degree-1 library fits in maxLibraryTerms (3 terms per variable: x,
	// sin x and cos x).
	maxGroupVariables = maxLibraryTerms / 3
	// maxVariables is the most variables Find takes at the default degree:
	// the grouping's pairwise statistics grow with the square of the
	// variables, and issue 18 (item 4) asks for runs up to 500 columns.
	maxVariables = 1000
	// groupingRows bounds the rows the pairwise statistics are computed on.
	groupingRows = 2000
	// linkCorrelation is the first canonical correlation at which two
	// variables are linked (see above).
	linkCorrelation = 1 - 2*maxNoisyVariation*maxNoisyVariation
	// termRank is the smallest eigenvalue, relative to the largest, of a
	// variable's standardised term correlations that counts as a direction
	// of its own (x and sin x nearly coincide for small x).
	termRank = 1e-8
	// groupingBlock is the number of variables whose cross-products with
	// all the others are held at once.
	groupingBlock = 128
)

// grouping is how the variables of a grouped search were split.
type grouping struct {
	// groups are the variable indices of each group, ascending, in order
	// of their first varying variable; parameters are in every group they
	// joined.
	groups [][]int
	// parameters are the variables constant within every trajectory;
	// joined counts the groups they joined.
	parameters []int
	joined     int
	// cut counts the links left out to keep groups within maxGroupVariables.
	cut int
}

// groupVariables splits the variables of X (column-major) into groups that
// may share a conserved quantity; trajectories are the row indices of each
// trajectory. See the comment at the top of this file for the rule.
func groupVariables(X [][]float64, trajectories [][]int) grouping {
	var g grouping
	var varying []int
	for j, col := range X {
		if isParameter(col, trajectories) {
			g.parameters = append(g.parameters, j)
		} else {
			varying = append(varying, j)
		}
	}
	sample := sampleRows(trajectories)
	W, offset := whitenedTerms(X, varying, sample)
	links := strongLinks(W, offset)
	// Strongest link first, so that a cut falls on the weakest links.
	slices.SortStableFunc(links, func(a, b link) int { return cmp.Compare(b.corr, a.corr) })
	parent := make([]int, len(varying))
	size := make([]int, len(varying))
	for i := range parent {
		parent[i], size[i] = i, 1
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, l := range links {
		a, b := find(l.a), find(l.b)
		switch {
		case a == b:
		case size[a]+size[b] > maxGroupVariables:
			g.cut++
		default:
			if size[a] < size[b] {
				a, b = b, a
			}
			parent[b] = a
			size[a] += size[b]
		}
	}
	index := map[int]int{}
	for k, j := range varying {
		r := find(k)
		at, ok := index[r]
		if !ok {
			at = len(g.groups)
			index[r] = at
			g.groups = append(g.groups, nil)
		}
		g.groups[at] = append(g.groups[at], j)
	}
	if len(g.parameters) > 0 {
		for k, grp := range g.groups {
			if len(grp)+len(g.parameters) <= maxWholeVariables {
				g.groups[k] = slices.Sorted(slices.Values(slices.Concat(grp, g.parameters)))
				g.joined++
			}
		}
	}
	return g
}

// isParameter reports whether col is constant within every trajectory, by
// the rule newProblem uses to leave such terms out.
func isParameter(col []float64, trajectories [][]int) bool {
	mean, sd := stat.PopMeanStdDev(col, nil)
	within := withinRMS(col, trajectories)
	return !(within > 0 && within > constantTermRMS*math.Max(sd, math.Abs(mean)))
}

// sampleRows picks the rows the grouping's statistics are computed on:
// every m-th trajectory, with m the smallest that keeps
// minRowsPerTrajectory rows of each within groupingRows, and of each
// trajectory kept a share of groupingRows proportional to its length (at
// least minRowsPerTrajectory rows), evenly spaced over its rows.
func sampleRows(trajectories [][]int) [][]int {
	m := max(1, (len(trajectories)*minRowsPerTrajectory+groupingRows-1)/groupingRows)
	total := 0
	var kept [][]int
	for t := 0; t < len(trajectories); t += m {
		kept = append(kept, trajectories[t])
		total += len(trajectories[t])
	}
	out := make([][]int, len(kept))
	for t, idx := range kept {
		k := min(len(idx), max(minRowsPerTrajectory, len(idx)*groupingRows/total))
		sel := make([]int, k)
		for a := range sel {
			sel[a] = idx[a*len(idx)/k]
		}
		out[t] = sel
	}
	return out
}

// whitenedTerms returns, for each variable of vars, an orthonormal basis of
// the span of its terms x, x², sin x and cos x on the sample rows, after
// centring each within its trajectory: variable k owns the columns
// offset[k] to offset[k+1] of W. A variable whose terms do not vary owns
// none.
func whitenedTerms(X [][]float64, vars []int, sample [][]int) (*mat.Dense, []int) {
	n := 0
	for _, idx := range sample {
		n += len(idx)
	}
	cols := make([][]float64, 0, 4*len(vars))
	offset := make([]int, 1, len(vars)+1)
	B := mat.NewDense(n, 4, nil)
	var eig mat.EigenSym
	var vecs mat.Dense
	var cov mat.SymDense
	var row [4]float64
	for _, j := range vars {
		x := X[j]
		r := 0
		for _, idx := range sample {
			start := r
			for _, i := range idx {
				s, c := math.Sincos(x[i])
				row[0], row[1], row[2], row[3] = x[i], x[i]*x[i], s, c
				B.SetRow(r, row[:])
				r++
			}
			for k := range 4 { // centre within the trajectory
				m := 0.0
				for a := start; a < r; a++ {
					m += B.At(a, k)
				}
				m /= float64(r - start)
				for a := start; a < r; a++ {
					B.Set(a, k, B.At(a, k)-m)
				}
			}
		}
		for k := range 4 { // unit root mean square, or zero
			col := mat.Col(nil, k, B)
			rms := floats.Norm(col, 2) / math.Sqrt(float64(n))
			if rms > 0 {
				floats.Scale(1/rms, col)
			}
			B.SetCol(k, col)
		}
		cov.SymOuterK(1/float64(n), B.T())
		if !eig.Factorize(&cov, true) {
			offset = append(offset, len(cols))
			continue
		}
		vals := eig.Values(nil)
		eig.VectorsTo(&vecs)
		top := slices.Max(vals)
		for k, l := range vals {
			if top <= 0 || l <= termRank*top {
				continue
			}
			// B·v/sqrt(n·λ) has unit norm and is orthogonal to the others.
			v := mat.NewVecDense(n, nil)
			v.MulVec(B, vecs.ColView(k))
			v.ScaleVec(1/math.Sqrt(float64(n)*l), v)
			cols = append(cols, v.RawVector().Data)
		}
		offset = append(offset, len(cols))
	}
	W := mat.NewDense(n, max(len(cols), 1), nil)
	for k, c := range cols {
		W.SetCol(k, c)
	}
	return W, offset
}

// link is a pair of variables (positions in the varying variables) and
// their first canonical correlation.
type link struct {
	a, b int
	corr float64
}

// strongLinks returns the pairs of variables whose first canonical
// correlation, the largest singular value of the cross-products of their
// orthonormal bases in W, is at least linkCorrelation. It computes the
// cross-products groupingBlock variables at a time.
func strongLinks(W *mat.Dense, offset []int) []link {
	vars := len(offset) - 1
	total := offset[vars]
	var links []link
	var svd mat.SVD
	var C mat.Dense
	for lo := 0; lo < vars; lo += groupingBlock {
		hi := min(vars, lo+groupingBlock)
		if offset[hi] == offset[lo] || total == offset[lo] {
			continue
		}
		// C holds the block's columns against every column from the block's on.
		C.Reset()
		C.Mul(W.Slice(0, W.RawMatrix().Rows, offset[lo], offset[hi]).T(),
			W.Slice(0, W.RawMatrix().Rows, offset[lo], total))
		for a := lo; a < hi; a++ {
			for b := a + 1; b < vars; b++ {
				ra0, ra1 := offset[a]-offset[lo], offset[a+1]-offset[lo]
				rb0, rb1 := offset[b]-offset[lo], offset[b+1]-offset[lo]
				if ra0 == ra1 || rb0 == rb1 {
					continue
				}
				M := C.Slice(ra0, ra1, rb0, rb1)
				// The largest singular value is at most the Frobenius norm.
				if mat.Norm(M, 2) < linkCorrelation {
					continue
				}
				if !svd.Factorize(M, mat.SVDNone) {
					continue
				}
				if s := svd.Values(nil)[0]; s >= linkCorrelation {
					links = append(links, link{a, b, s})
				}
			}
		}
	}
	return links
}

// note describes a grouped search of vars variables for Result.Note.
func (g grouping) note(vars int, degree func(size int) int, names []string) string {
	largest := 0
	perDegree := map[int]int{}
	for _, grp := range g.groups {
		largest = max(largest, len(grp))
		perDegree[degree(len(grp))]++
	}
	var degrees []string
	for _, d := range slices.Backward(slices.Sorted(maps.Keys(perDegree))) {
		degrees = append(degrees, fmt.Sprintf("%d at degree %d", perDegree[d], d))
	}
	s := fmt.Sprintf("grouped search: the %d variables fall into %d groups that share no conserved quantity (the largest of %d variables), searched alone: %s",
		vars, len(g.groups), largest, strings.Join(degrees, ", "))
	if g.cut > 0 {
		s += fmt.Sprintf("; %d links between variables cut to keep every group within %d variables", g.cut, maxGroupVariables)
	}
	if len(g.parameters) > 0 && g.joined < len(g.groups) {
		var ps []string
		for _, j := range g.parameters {
			ps = append(ps, names[j])
		}
		s += fmt.Sprintf("; the parameters %s (constant within every trajectory) joined %d of the groups: the others would pass %d variables with them",
			strings.Join(ps, ", "), g.joined, maxWholeVariables)
	}
	return s
}
