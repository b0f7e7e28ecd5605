package conservation

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/floats"
)

// Quantity is one conserved quantity found in the data.
type Quantity struct {
	// Expression is the quantity in infix notation with ^ for powers, e.g.
	// "2*x^2 + v^2" or "omega^2 - 8*cos(theta)"; sympy reads it. Its scale
	// and any additive constant are arbitrary: the first term is positive and
	// the coefficients are small integers when the data supports that,
	// otherwise the largest |coefficient| is 1.
	Expression string
	// Variables are the names of the variables the quantity uses, in input
	// order.
	Variables []string
	// Coefficients maps each term of Expression (as printed, e.g. "x^2",
	// "x*vy", "cos(theta)") to its coefficient.
	Coefficients map[string]float64
	// RelativeVariation is the mean over trajectories of
	// std_t(Q) / sum_k |c_k| std_t(term_k): the fraction of the terms'
	// variation along a trajectory that does not cancel in Q. It is 0 for an
	// exactly conserved quantity and at most 1, and is unaffected by the
	// quantity's scale and additive constant.
	RelativeVariation float64
	// Trajectories is the number of trajectories the quantity was checked on.
	Trajectories int
}

// independenceResidual is the smallest part of a new quantity (as a unit
// vector over the scaled terms) that must lie outside the span of the
// quantities already accepted; E1 + E2 adds nothing once E1 and E2 are in.
const independenceResidual = 0.2

// Find returns up to opts.MaxQuantities independent conserved quantities of
// the trajectories in X, sparsest first (then least varying); it is Search
// without the account of how the search went.
func Find(ctx context.Context, X [][]float64, names []string, trajectory []string, opts Options) ([]Quantity, error) {
	r, err := Search(ctx, X, names, trajectory, opts)
	return r.Quantities, err
}

// Result is what Search found and how it searched.
type Result struct {
	// Quantities are the conserved quantities found, sparsest first (then
	// least varying).
	Quantities []Quantity
	// Groups are the groups of variables (by name, in input order) that a
	// grouped search searched alone (see groups.go); nil when the variables
	// were searched whole.
	Groups [][]string
	// Note says how the search departed from one library of the default
	// degree over all the variables: a grouped search's groups, the largest
	// and the degrees they were searched at. It is empty when it did not.
	Note string
}

// Search finds independent conserved quantities of the trajectories in X.
//
// X is column-major: X[j][i] is variable j (named names[j]) at row i, and
// trajectory[i] labels the trajectory row i belongs to; rows of a trajectory
// need not be contiguous and their order does not matter. Search fails with
// fewer than 2 trajectories, fewer than 5 rows in any trajectory, non-finite
// values, or too few rows for the candidate library. Finding nothing is not an
// error: the result is empty.
//
// Up to maxWholeVariables (16) variables, or with Options.MaxDegree set, the
// variables are searched whole and at most opts.MaxQuantities quantities are
// returned. Past 16 variables at the default degree, or with Options.Groups
// set, the search is grouped (see groups.go): each group of variables that
// may share a quantity is searched alone, and opts.MaxQuantities caps each
// group's quantities, since a user of many independent subsystems wants the
// quantities of all of them. More than maxVariables (1000) variables at the
// default degree are refused (see CheckVariables).
func Search(ctx context.Context, X [][]float64, names []string, trajectory []string, opts Options) (Result, error) {
	grouped := opts.Groups != nil || (opts.MaxDegree == 0 && len(X) > maxWholeVariables)
	fixedDegree := opts.MaxDegree
	if opts.MaxDegree == 0 {
		opts.MaxDegree = DefaultDegree(len(X))
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	groups, err := groupTrajectories(X, names, trajectory)
	if err != nil {
		return Result{}, err
	}
	if !grouped {
		qs, err := find(ctx, X, names, groups, len(trajectory), opts)
		return Result{Quantities: qs}, err
	}
	var g grouping
	if opts.Groups != nil {
		if g, err = namedGroups(opts.Groups, names); err != nil {
			return Result{}, err
		}
	} else {
		if err := CheckVariables(len(X)); err != nil {
			return Result{}, err
		}
		g = groupVariables(X, groups)
	}
	degree := func(size int) int {
		if fixedDegree > 0 {
			return fixedDegree
		}
		return DefaultDegree(size)
	}
	res := Result{Note: g.note(len(X), degree, names)}
	for _, grp := range g.groups {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		Xg := make([][]float64, len(grp))
		ng := make([]string, len(grp))
		for k, j := range grp {
			Xg[k], ng[k] = X[j], names[j]
		}
		o := opts
		o.MaxDegree = degree(len(grp))
		qs, err := find(ctx, Xg, ng, groups, len(trajectory), o)
		if err != nil {
			return Result{}, err
		}
		res.Quantities = append(res.Quantities, qs...)
		res.Groups = append(res.Groups, ng)
	}
	slices.SortStableFunc(res.Quantities, func(a, b Quantity) int {
		return cmp.Or(cmp.Compare(len(a.Coefficients), len(b.Coefficients)),
			cmp.Compare(a.RelativeVariation, b.RelativeVariation))
	})
	return res, nil
}

// find searches the variables of X whole, at opts.MaxDegree; groups are the
// row indices of each trajectory, rows their total.
func find(ctx context.Context, X [][]float64, names []string, groups [][]int, rows int, opts Options) ([]Quantity, error) {
	if err := checkLibrary(len(X), opts.MaxDegree); err != nil {
		return nil, err
	}
	base := buildLibrary(X, names, opts.MaxDegree)
	p := newProblem(base, groups, rows)
	p.noNoiseModel = opts.DisableNoiseModel
	var kept []candidate
	if len(p.terms) > 0 {
		// After centring, each trajectory loses one degree of freedom.
		if dof := rows - len(groups); dof <= 2*len(p.terms) {
			return nil, fmt.Errorf("conservation: %d rows in %d trajectories are too few for %d candidate terms",
				rows, len(groups), len(p.terms))
		}
		var err error
		if kept, err = p.search(ctx, opts, nil, false); err != nil {
			return nil, err
		}
	}
	var out []Quantity
	for _, c := range kept {
		out = append(out, p.quantity(p.normalise(c, opts.Tolerance), names))
	}
	if len(kept) >= opts.MaxQuantities {
		return out, nil
	}
	// Second stage: the library with logarithmic and rational terms (see
	// extended.go), for quantities that need one of them. The polynomial
	// and trigonometric quantities found first stay; the base terms keep
	// their indices, since the extended terms are appended after them and
	// newProblem drops the same constant terms.
	extra := extendedTerms(X, names, groups)
	if len(extra) == 0 || len(base)+len(extra) > maxExtendedLibraryTerms {
		return out, nil
	}
	q := newProblem(append(base, extra...), groups, rows)
	q.noNoiseModel = opts.DisableNoiseModel
	q.states = X
	if dof := rows - len(groups); dof <= 2*len(q.terms) {
		return out, nil // too few rows for the larger library: the first stage stands
	}
	more, err := q.search(ctx, opts, kept, true)
	if err != nil {
		return nil, err
	}
	if len(more) == 0 {
		return out, nil
	}
	// Fewest terms first over both stages, within the bound on how many
	// functionally independent quantities a flow can have (see
	// overComplete), and without a longer quantity that is a function of a
	// shorter one (see supersededGradientShare).
	all := slices.Concat(kept, more)
	slices.SortStableFunc(all, func(a, b candidate) int { return len(a.support) - len(b.support) })
	var chosen []candidate
	for _, c := range all {
		if !q.overComplete(append(slices.Clip(chosen), c)) && q.dependsOn(c, chosen, supersededGradientShare) < 0 {
			chosen = append(chosen, c)
		}
	}
	out = out[:0]
	for _, c := range chosen {
		tol := opts.Tolerance
		if q.usesExtended(c) {
			tol /= extendedTolerance
		}
		out = append(out, q.quantity(q.normalise(c, tol), names))
	}
	return out, nil
}

// search finds the near-null space, the sparse accepted candidates in it and
// the independent ones among them, after the quantities in prior. With
// extendedOnly, only candidates that use an extended term are considered
// (the others were the first stage's to find).
func (p *problem) search(ctx context.Context, opts Options, prior []candidate, extendedOnly bool) ([]candidate, error) {
	null, err := p.nearNullSpace(opts.Tolerance)
	if err != nil {
		return nil, err
	}
	if len(null) <= len(prior) {
		return nil, nil
	}
	tol := opts.Tolerance
	if extendedOnly {
		tol /= extendedTolerance
	}
	cands, err := p.sparseCandidates(ctx, null, tol)
	if err != nil {
		return nil, err
	}
	if extendedOnly {
		cands = slices.DeleteFunc(cands, func(c candidate) bool {
			return !p.usesExtended(c)
		})
	}
	return p.independent(cands, prior, min(opts.MaxQuantities, len(null))), nil
}

// independent walks the candidates in order and keeps those that are not
// (nearly) linear combinations of the ones kept before (prior, then the
// candidates kept), nor functions of a single one of them (see
// functionOfOne), until prior and the kept ones number limit. It returns the
// candidates kept, without prior.
func (p *problem) independent(cands, prior []candidate, limit int) []candidate {
	var kept []candidate
	var basis [][]float64 // orthonormal, over the scaled terms
	add := func(c candidate) bool {
		v := make([]float64, len(p.terms))
		for a, k := range c.support {
			v[k] = c.coef[a] * p.scale[k]
		}
		floats.Scale(1/floats.Norm(v, 2), v)
		for _, b := range basis {
			floats.AddScaled(v, -floats.Dot(v, b), b)
		}
		r := floats.Norm(v, 2)
		if r < independenceResidual {
			return false
		}
		floats.Scale(1/r, v)
		basis = append(basis, v)
		return true
	}
	for _, c := range prior {
		add(c)
	}
	for _, c := range cands {
		if len(prior)+len(kept) >= limit {
			break
		}
		if p.usesExtended(c) {
			// A function of a quantity of the first stage is dropped, unless it
			// has fewer terms: then it is the exact form of what the first
			// stage approximated, and it supersedes it when the stages merge.
			if o := p.dependsOn(c, prior, dependentGradientShare); o >= 0 && len(c.support) >= len(prior[o].support) {
				continue
			}
			if p.functionOfOne(c, kept) {
				continue
			}
		}
		if add(c) {
			kept = append(kept, c)
		}
	}
	return kept
}

// quantity converts a normalised candidate into the exported form.
func (p *problem) quantity(c candidate, names []string) Quantity {
	q := Quantity{
		Expression:        p.expression(c),
		Coefficients:      make(map[string]float64, len(c.support)),
		RelativeVariation: p.relativeVariationFromData(c),
		Trajectories:      len(p.groups),
	}
	used := make([]bool, len(names))
	for a, k := range c.support {
		q.Coefficients[p.terms[k].name] = c.coef[a]
		for _, j := range p.terms[k].variables {
			used[j] = true
		}
	}
	for j, u := range used {
		if u {
			q.Variables = append(q.Variables, names[j])
		}
	}
	return q
}
