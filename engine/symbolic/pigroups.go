package symbolic

import (
	"context"
	"math"
	"slices"
	"time"

	"github.com/discolab/disco/engine/units"
)

// Dimensionless search (Buckingham π).
//
// When every usable input and the target have units, Buckingham's theorem
// (Buckingham 1914) says a law whose constants are pure numbers can be
// written y = M(x)·g(π_1, …, π_k): the π_i are the dimensionless products
// of the inputs (units.Groups), M is a product of powers of the inputs with
// the target's dimension, and g has only the k groups as arguments, k
// being the number of inputs minus the rank of their dimension matrix.
// AI Feynman (Udrescu & Tegmark 2020) solves that smaller problem first.
// piSeeds does so: it fits g by a short symbolic search on the groups and
// the dimensionless target y/M, writes each model of its front back in the
// inputs as M·g(π(x)), and returns them as seeds of the main search, which
// scores them on the original data like every other seed. So a law with a
// dimensional constant the groups cannot hold is still found by the main
// search, and a law the groups make easy enters it ready-made.

// piGenerations bounds the generations of the search on the groups.
const piGenerations = 200

// piSeeds returns the dimensionless search's models as trees over the
// inputs, or nil when the search does not apply: no units, inputs that are
// all dimensionless (no fewer groups than inputs), a target whose
// dimension is no product of the inputs' (then only a dimensional constant
// can make a law consistent), exponents the operators cannot write, or
// groups or a target that are not finite on the data.
func piSeeds(ctx context.Context, p *problem, opts Options, budget time.Duration) []tree {
	if p.dims == nil || p.expired() {
		return nil
	}
	vars := p.g.vars
	dims := make([]units.Dim, 0, len(vars)+1)
	for _, j := range vars {
		dims = append(dims, *p.dims[j])
	}
	dims = append(dims, *p.target)
	var target []int64
	var groups [][]int64
	for _, g := range units.Groups(dims) {
		if g[len(vars)] != 0 {
			target = g
		} else {
			groups = append(groups, g)
		}
	}
	if target == nil {
		return nil
	}
	// y^ey·Π x_j^t_j is dimensionless, so M = Π x_j^(−t_j/ey).
	b := newTermBuilder(p.g)
	ey := float64(target[len(vars)])
	scale := make([]float64, len(vars))
	for i := range vars {
		scale[i] = -float64(target[i]) / ey
	}
	mTree, hasM := b.monomial(vars, scale)
	if !hasM && !allZero(scale) {
		return nil
	}
	n := len(p.y)
	z := make([]float64, n)
	m := monomialValues(p.cols, vars, scale, n)
	for i := range z {
		z[i] = p.y[i] / m[i]
	}
	if len(groups) == len(vars) {
		// Every input is dimensionless (the dimension matrix has rank 0):
		// the groups are the inputs and there is nothing to gain.
		return nil
	}
	if len(groups) == 0 {
		// y = c·M: the scaling of the main search supplies c.
		if hasM {
			return []tree{mTree}
		}
		return nil
	}
	cols := make([][]float64, len(groups))
	subs := make([]tree, len(groups))
	for k, g := range groups {
		powers := make([]float64, len(vars))
		for i := range vars {
			powers[i] = float64(g[i])
		}
		var ok bool
		if subs[k], ok = b.monomial(vars, powers); !ok {
			return nil
		}
		cols[k] = monomialValues(p.cols, vars, powers, n)
	}
	for _, c := range slices.Concat(cols, [][]float64{z}) {
		for _, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil
			}
		}
	}
	sub := Options{
		Operators: opts.Operators, MaxComplexity: p.s.maxSize, MaxDepth: p.s.maxDepth,
		Generations: min(p.s.generations, piGenerations), Populations: p.s.islands,
		PopulationSize: p.s.popSize, Seed: opts.Seed, TimeLimit: budget,
	}
	res, err := fit(ctx, cols, z, nil, sub, true)
	if err != nil || res == nil {
		return nil
	}
	var out []tree
	for _, model := range res.Front {
		var t tree
		for _, nd := range model.t {
			if nd.op == opVar {
				t = append(t, subs[nd.v]...)
			} else {
				t = append(t, nd)
			}
		}
		if hasM {
			t = append(append(t, mTree...), opNode(opMul))
		}
		if t = simplifyTree(t); p.g.fits(t) {
			out = append(out, t)
		}
	}
	return out
}

// monomialValues is Π cols[vars[i]]^powers[i] on each of n rows.
func monomialValues(cols [][]float64, vars []int, powers []float64, n int) []float64 {
	out := make([]float64, n)
	for r := range out {
		out[r] = 1
		for i, j := range vars {
			if powers[i] != 0 {
				out[r] *= pow(cols[j][r], powers[i])
			}
		}
	}
	return out
}

func allZero(v []float64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
