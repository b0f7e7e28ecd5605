package conservation

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// nullGateFactor sets the near-null singular values, relative to Tolerance,
// that count as possible conserved directions. It is generous: the gate only
// caps how many quantities can be reported, and each one is then checked
// against Tolerance directly.
const nullGateFactor = 5

// nearNullSpace takes the SVD of the centred, scaled library and returns the
// right singular vectors whose singular values (per root row) fall below the
// gate.
func (p *problem) nearNullSpace(tol float64) ([][]float64, error) {
	var svd mat.SVD
	if !svd.Factorize(p.design(), mat.SVDThinV) {
		return nil, fmt.Errorf("conservation: SVD of the term library did not converge")
	}
	values := svd.Values(nil)
	var v mat.Dense
	svd.VTo(&v)
	gate := math.Min(nullGateFactor*tol, 0.5) * math.Sqrt(float64(p.rows))
	var null [][]float64
	for i, s := range values {
		if s <= gate {
			null = append(null, mat.Col(nil, i, &v))
		}
	}
	return null, nil
}

// sparseCandidates collects accepted, pruned candidates from sequential
// thresholding, sorted by number of terms, then relative variation, then
// support, without duplicates.
func (p *problem) sparseCandidates(ctx context.Context, null [][]float64, tol float64) ([]candidate, error) {
	seen := make(map[string]bool)
	var out []candidate
	consider := func(support []int) {
		if len(support) == 0 {
			return
		}
		key := fmt.Sprint(support)
		if seen[key] {
			return
		}
		seen[key] = true
		if len(support) > maxQuantityTerms {
			return
		}
		c, ok := p.candidateOn(support)
		if !ok || !p.accepted(&c, tol) {
			return
		}
		c = p.prune(c, tol)
		key = fmt.Sprint(c.support)
		if slices.ContainsFunc(out, func(d candidate) bool { return fmt.Sprint(d.support) == key }) {
			return
		}
		out = append(out, c)
	}
	// Only terms with a component in the near-null space can belong to a
	// conserved quantity; restricting the regressions to them keeps the
	// search small on large libraries.
	var pool []int
	for k := range p.terms {
		if participates(null, k) {
			pool = append(pool, k)
		}
	}
	for _, k := range pool {
		if p.states != nil && !p.terms[k].extended {
			// In the extended stage every candidate holds an extended
			// term, which can stand on the left-hand side itself.
			continue
		}
		for _, lambda := range thresholds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			consider(p.implicitSupport(k, lambda, pool))
		}
	}
	for _, v := range null {
		for _, lambda := range thresholds {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			consider(p.vectorSupport(v, lambda))
		}
	}
	if p.states != nil {
		// The extended stage (see extended.go) also tries every small
		// support.
		if err := p.smallSupports(ctx, pool, consider); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		if len(a.support) != len(b.support) {
			return len(a.support) - len(b.support)
		}
		if a.relVar != b.relVar {
			if a.relVar < b.relVar {
				return -1
			}
			return 1
		}
		return slices.Compare(a.support, b.support)
	})
	return out, nil
}

// participates reports whether term k has a noticeable component in the
// near-null space; terms outside it cannot be part of a conserved quantity.
func participates(null [][]float64, k int) bool {
	ss := 0.0
	for _, v := range null {
		ss += v[k] * v[k]
	}
	return ss >= 0.05*0.05
}
