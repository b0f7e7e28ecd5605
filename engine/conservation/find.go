package conservation

import (
	"context"
	"fmt"

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
// the trajectories in X, sparsest first (then least varying).
//
// X is column-major: X[j][i] is variable j (named names[j]) at row i, and
// trajectory[i] labels the trajectory row i belongs to; rows of a trajectory
// need not be contiguous and their order does not matter. Find fails with
// fewer than 2 trajectories, fewer than 5 rows in any trajectory, non-finite
// values, or too few rows for the candidate library. Finding nothing is not an
// error: the result is empty.
func Find(ctx context.Context, X [][]float64, names []string, trajectory []string, opts Options) ([]Quantity, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	groups, err := groupTrajectories(X, names, trajectory)
	if err != nil {
		return nil, err
	}
	if n := librarySize(len(X), opts.MaxDegree); n > maxLibraryTerms {
		return nil, fmt.Errorf("conservation: %d variables at degree %d give %d candidate terms, more than %d",
			len(X), opts.MaxDegree, n, maxLibraryTerms)
	}
	p := newProblem(buildLibrary(X, names, opts.MaxDegree), groups, len(trajectory))
	p.noNoiseModel = opts.DisableNoiseModel
	if len(p.terms) == 0 {
		return nil, nil
	}
	// After centring, each trajectory loses one degree of freedom.
	if dof := len(trajectory) - len(groups); dof <= 2*len(p.terms) {
		return nil, fmt.Errorf("conservation: %d rows in %d trajectories are too few for %d candidate terms",
			len(trajectory), len(groups), len(p.terms))
	}

	null, err := p.nearNullSpace(opts.Tolerance)
	if err != nil {
		return nil, err
	}
	if len(null) == 0 {
		return nil, nil
	}
	cands, err := p.sparseCandidates(ctx, null, opts.Tolerance)
	if err != nil {
		return nil, err
	}
	var out []Quantity
	for _, c := range p.independent(cands, min(opts.MaxQuantities, len(null))) {
		out = append(out, p.quantity(p.normalise(c, opts.Tolerance), names))
	}
	return out, nil
}

// independent walks the candidates in order and keeps those that are not
// (nearly) linear combinations of the ones kept before, up to limit.
func (p *problem) independent(cands []candidate, limit int) []candidate {
	var kept []candidate
	var basis [][]float64 // orthonormal, over the scaled terms
	for _, c := range cands {
		if len(kept) == limit {
			break
		}
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
			continue
		}
		floats.Scale(1/r, v)
		basis = append(basis, v)
		kept = append(kept, c)
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
