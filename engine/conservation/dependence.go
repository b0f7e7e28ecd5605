package conservation

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Functional dependence.
//
// Linear independence over the library is not enough once the library holds
// logarithmic and rational terms: with x² + u² conserved, so is
// (x^2 + u^2)^-0.5, a different vector of terms but the same level sets.
// Quantities Q1 and Q2 are functionally dependent exactly when their
// gradients are parallel everywhere (the Jacobian of (Q1, Q2) has rank 1;
// Arnold, Mathematical Methods of Classical Mechanics, §49). A candidate
// with an extended term is dropped when, on average over the rows, the part
// of its gradient not parallel to that of one quantity already kept is below
// dependentGradientShare of the gradient. Dependence on several quantities
// together is allowed: the Laplace–Runge–Lenz components of the Kepler
// problem are functions of the energy, the angular momentum and each other
// jointly, and each is still reported.
const (
	dependentGradientShare = 0.05
	// overCompleteShare is the mean smallest singular value, relative to
	// the largest, of the unit gradients of a set of quantities above
	// which the gradients span every direction (see overComplete).
	overCompleteShare = 0.05
	// gradientRows is how many rows, evenly spaced, the check looks at.
	gradientRows = 400
)

// usesExtended reports whether the candidate has a logarithmic or rational
// term.
func (p *problem) usesExtended(c candidate) bool {
	return slices.ContainsFunc(c.support, func(k int) bool { return p.terms[k].extended })
}

// supersededGradientShare is the looser bound under which a longer
// quantity is taken for a function of a shorter one when the stages' results
// are merged (see Find): the angle at which overComplete sees two gradients
// as one direction (the smallest singular value of two unit vectors at a
// small angle θ, relative to the largest, is about θ/2). A polynomial that
// approximates a logarithmic integral on the orbits sampled, such as the
// Lotka–Volterra one, stays within this angle of the integral it
// approximates; the integral, with fewer terms, is the one kept.
const supersededGradientShare = 2 * overCompleteShare

// functionOfOne reports whether c is a function of a single one of others
// (see above).
func (p *problem) functionOfOne(c candidate, others []candidate) bool {
	return p.dependsOn(c, others, dependentGradientShare) >= 0
}

// dependsOn returns the index of the first of others whose gradient c's
// stays parallel to, on average over the rows within limit (the mean share
// of c's gradient not parallel to it), or -1.
func (p *problem) dependsOn(c candidate, others []candidate, limit float64) int {
	if p.states == nil || len(others) == 0 {
		return -1
	}
	step := max(1, p.rows/gradientRows)
	share := make([]float64, len(others))
	counted := make([]int, len(others))
	state := make([]float64, len(p.states))
	g := make([]float64, len(p.states))
	h := make([]float64, len(p.states))
	for i := 0; i < p.rows; i += step {
		for j := range p.states {
			state[j] = p.states[j][i]
		}
		p.gradient(c, state, g)
		gg := floats.Dot(g, g)
		if gg == 0 {
			continue
		}
		for o, d := range others {
			p.gradient(d, state, h)
			hh := floats.Dot(h, h)
			if hh == 0 {
				continue
			}
			gh := floats.Dot(g, h)
			share[o] += math.Sqrt(math.Max(0, 1-gh*gh/(gg*hh)))
			counted[o]++
		}
	}
	for o := range others {
		if counted[o] > 0 && share[o]/float64(counted[o]) < limit {
			return o
		}
	}
	return -1
}

// gradient writes the gradient of the candidate at state into out, by
// central differences with a step relative to each variable's size.
func (p *problem) gradient(c candidate, state, out []float64) {
	value := func() float64 {
		v := 0.0
		for a, k := range c.support {
			v += c.coef[a] * p.terms[k].parsed.Eval(state)
		}
		return v
	}
	for j := range state {
		x := state[j]
		h := 1e-6 * math.Max(1, math.Abs(x))
		state[j] = x + h
		up := value()
		state[j] = x - h
		down := value()
		state[j] = x
		out[j] = (up - down) / (2 * h)
	}
}

// overComplete reports whether the quantities' gradients span all n
// directions of the n variables that vary along the trajectories. A flow
// conserves at most n − 1 functionally independent quantities, since every
// gradient is orthogonal to the flow's direction (Arnold, Mathematical
// Methods of Classical Mechanics, §49), so such a set holds a quantity that
// is only approximately conserved: in the plane, a many-term polynomial that
// approximates the Lotka–Volterra integral besides the integral itself.
// Sets with more quantities than that bound but gradients of lower rank,
// such as the Kepler problem's energy, angular momentum and both
// Laplace–Runge–Lenz components (rank 3 of 4), are not over-complete.
func (p *problem) overComplete(cs []candidate) bool {
	var varying []int
	for j, col := range p.states {
		if variesWithin(col, p.groups) {
			varying = append(varying, j)
		}
	}
	n := len(varying)
	if len(cs) < n || n == 0 || p.states == nil {
		return false
	}
	step := max(1, p.rows/gradientRows)
	state := make([]float64, len(p.states))
	g := make([]float64, len(p.states))
	m := mat.NewDense(len(cs), n, nil)
	share, count := 0.0, 0
	for i := 0; i < p.rows; i += step {
		for j := range p.states {
			state[j] = p.states[j][i]
		}
		ok := true
		for r, c := range cs {
			p.gradient(c, state, g)
			norm := 0.0
			for _, j := range varying {
				norm += g[j] * g[j]
			}
			if norm == 0 {
				ok = false
				break
			}
			for a, j := range varying {
				m.Set(r, a, g[j]/math.Sqrt(norm))
			}
		}
		var svd mat.SVD
		if !ok || !svd.Factorize(m, mat.SVDNone) {
			continue
		}
		v := svd.Values(nil)
		share += v[n-1] / v[0]
		count++
	}
	return count > 0 && share/float64(count) > overCompleteShare
}
