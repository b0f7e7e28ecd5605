package causal

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// laggedNode is variable v observed lag rows before the target time.
type laggedNode struct{ v, lag int }

// laggedData is the time-delay embedding of a multivariate series: column
// (lag·p + v) holds variable v shifted by lag, for lags 0..2·maxLag (the MCI
// test conditions on parents of a source that is itself lagged, which
// reaches twice the maximum lag).
type laggedData struct {
	p, maxLag, rows int
	z               *mat.Dense    // standardised embedding, one row per column
	corr            *mat.SymDense // its correlation matrix
	test            *fisherZ
}

func (d *laggedData) col(n laggedNode) int { return n.lag*d.p + n.v }

func newLaggedData(X [][]float64, maxLag int) (*laggedData, error) {
	p, T := len(X), len(X[0])
	depth := 2 * maxLag
	rows := T - depth
	if rows < 10 {
		return nil, fmt.Errorf("causal: %d time points are too few for max lag %d", T, maxLag)
	}
	cols := make([][]float64, p*(depth+1))
	for lag := 0; lag <= depth; lag++ {
		for v := range p {
			cols[lag*p+v] = X[v][depth-lag : T-lag]
		}
	}
	z, err := standardize(cols)
	if err != nil {
		return nil, err
	}
	corr := correlation(z)
	return &laggedData{p: p, maxLag: maxLag, rows: rows, z: z, corr: corr, test: newFisherZ(corr, rows)}, nil
}

// DiscoverLagged learns time-lagged and contemporaneous causal links from
// time-ordered rows (X[j][t] is variable j at time t) in the style of
// PCMCI (Runge et al., Science Advances 2019):
//
//  1. PC1: for each target, every lagged variable (including the target's
//     own past) at lags 1..MaxLag starts as a candidate parent; at
//     condition size d each candidate is tested against the target given
//     the d strongest other candidates, the independent ones are dropped
//     together, and the rest are re-ranked by their weakest association.
//  2. MCI: every candidate link X_i(t-τ) → X_j(t) is tested given the
//     PC1 parents of X_j and the strongest MaxConditioningSet PC1 parents
//     of X_i shifted by τ, with a nested-model F test (the F statistic of
//     adding X_i(t-τ) to the regression of X_j(t) on the conditioning set).
//     Links with p ≤ Alpha are reported with Lag, GrangerF and PValue.
//  3. Each variable is regressed on its lagged parents and Discover's
//     pipeline runs on the residuals, giving the contemporaneous (Lag 0)
//     edges.
//
// A variable's own past is reported as a self-edge (From == To, Lag > 0).
func DiscoverLagged(ctx context.Context, X [][]float64, names []string, opts Options) (*Graph, error) {
	opts = opts.withDefaults()
	if err := checkNames(X, names); err != nil {
		return nil, err
	}
	if len(X[0]) == 0 {
		return nil, fmt.Errorf("causal: no rows")
	}
	for j, col := range X {
		if len(col) != len(X[0]) {
			return nil, fmt.Errorf("causal: variable %d has %d rows, want %d", j, len(col), len(X[0]))
		}
	}
	d, err := newLaggedData(X, opts.MaxLag)
	if err != nil {
		return nil, err
	}
	parents := make([][]laggedNode, d.p)
	for j := range d.p {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		parents[j] = d.pc1(j, opts)
	}
	out := &Graph{Nodes: append([]string(nil), names...)}
	links := make([][]laggedLink, d.p)
	for j := range d.p {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		links[j] = d.mci(j, parents, opts)
	}
	for j := range d.p {
		var preds []int
		for _, l := range links[j] {
			preds = append(preds, d.col(l.src))
		}
		beta, ok := regressionFromCorr(d.corr, d.col(laggedNode{j, 0}), preds)
		for k, l := range links[j] {
			e := Edge{
				From: names[l.src.v], To: names[j], Directed: true, OrientedBy: OrientedByLag,
				Lag: l.src.lag, GrangerF: l.f, PValue: l.p, Confidence: clamp01(1 - l.p),
			}
			if ok {
				e.EffectStrength = beta[k]
			}
			out.Edges = append(out.Edges, e)
		}
	}
	contemporaneous, err := d.contemporaneous(ctx, links, names, opts)
	if err != nil {
		return nil, err
	}
	out.Edges = append(out.Edges, contemporaneous...)
	sortEdges(out.Edges)
	return out, nil
}

// candidates lists every lagged node at lags 1..maxLag, in (lag, variable)
// order.
func (d *laggedData) candidates() []laggedNode {
	var out []laggedNode
	for lag := 1; lag <= d.maxLag; lag++ {
		for v := range d.p {
			out = append(out, laggedNode{v, lag})
		}
	}
	return out
}

// pc1 runs the PCMCI parent preselection for target j and returns its
// parents, strongest first.
func (d *laggedData) pc1(j int, opts Options) []laggedNode {
	target := d.col(laggedNode{j, 0})
	parents := d.candidates()
	// strength is the smallest |partial correlation| seen, the ranking PCMCI
	// uses to pick the conditioning sets of the next round.
	strength := make(map[laggedNode]float64, len(parents))
	for _, c := range parents {
		strength[c] = math.Inf(1)
	}
	for dim := 0; dim < len(parents); dim++ {
		if opts.MaxConditioningSet >= 0 && dim > opts.MaxConditioningSet {
			break
		}
		var keep []laggedNode
		cond := make([]int, 0, dim)
		for _, c := range parents {
			cond = cond[:0]
			for _, o := range parents {
				if len(cond) == dim {
					break
				}
				if o != c {
					cond = append(cond, d.col(o))
				}
			}
			pv, r := d.test.test(d.col(c), target, cond)
			if pv > opts.Alpha {
				continue
			}
			if !math.IsNaN(r) {
				strength[c] = min(strength[c], math.Abs(r))
			}
			keep = append(keep, c)
		}
		parents = keep
		slices.SortStableFunc(parents, func(a, b laggedNode) int { return cmp.Compare(strength[b], strength[a]) })
	}
	return parents
}

// laggedLink is a significant MCI result.
type laggedLink struct {
	src  laggedNode
	f, p float64
}

// mci tests every candidate link into target j given the PC1 parents of j
// and the strongest parents of the source, shifted by the source's lag.
func (d *laggedData) mci(j int, parents [][]laggedNode, opts Options) []laggedLink {
	target := d.col(laggedNode{j, 0})
	var out []laggedLink
	for _, c := range d.candidates() {
		var cond []int
		add := func(n laggedNode) {
			k := d.col(n)
			if n != c && !slices.Contains(cond, k) {
				cond = append(cond, k)
			}
		}
		for _, n := range parents[j] {
			add(n)
		}
		for k, n := range parents[c.v] {
			if opts.MaxConditioningSet >= 0 && k >= opts.MaxConditioningSet {
				break
			}
			add(laggedNode{n.v, n.lag + c.lag})
		}
		r, ok := d.test.partialCorr(d.col(c), target, cond)
		if !ok {
			continue
		}
		f, p := nestedF(r, d.rows, len(cond))
		if p <= opts.Alpha {
			out = append(out, laggedLink{src: c, f: f, p: p})
		}
	}
	return out
}

// nestedF converts the partial correlation r of a candidate with the
// target, given k other regressors, into the F statistic for adding the
// candidate to the regression (with intercept) on n rows:
// F = r²/(1-r²)·(n-k-2), distributed F(1, n-k-2) under no effect.
func nestedF(r float64, n, k int) (f, p float64) {
	dof := float64(n - k - 2)
	if dof <= 0 {
		return 0, 1
	}
	r2 := min(r*r, 1-1e-15)
	f = r2 / (1 - r2) * dof
	// The F(1, dof) survival function is the regularised incomplete beta
	// I_{dof/(dof+f)}(dof/2, 1/2); computed directly it keeps its precision
	// for tiny p-values, where 1 - CDF would round to zero.
	return f, mathext.RegIncBeta(dof/2, 0.5, dof/(dof+f))
}

// contemporaneous regresses each variable (at lag 0) on its lagged parents
// and runs PC, Meek and LiNGAM on the residuals.
func (d *laggedData) contemporaneous(ctx context.Context, links [][]laggedLink, names []string, opts Options) ([]Edge, error) {
	resid := make([][]float64, d.p)
	for j := range d.p {
		target := d.col(laggedNode{j, 0})
		r := slices.Clone(d.z.RawRowView(target))
		var preds []int
		for _, l := range links[j] {
			preds = append(preds, d.col(l.src))
		}
		if beta, ok := regressionFromCorr(d.corr, target, preds); ok {
			for k, c := range preds {
				row := d.z.RawRowView(c)
				for i := range r {
					r[i] -= beta[k] * row[i]
				}
			}
		}
		resid[j] = r
	}
	z, err := standardize(resid)
	if err != nil {
		return nil, fmt.Errorf("causal: contemporaneous residuals: %w", err)
	}
	corr := correlation(z)
	g, err := discoverPDAG(ctx, z, corr, d.rows, opts)
	if err != nil {
		return nil, err
	}
	return g.toGraph(names, corr).Edges, nil
}
