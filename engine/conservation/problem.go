package conservation

import (
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// problem holds everything the search needs about one data set: the library
// terms that vary within trajectories and their second moments.
type problem struct {
	terms  []term
	groups [][]int // row indices per trajectory
	rows   int

	// scale[k] is the root mean square of term k after centring within
	// trajectories; the search works on terms divided by it.
	scale []float64
	// gram is the Gram matrix of the centred, scaled library divided by the
	// row count: gram = AᵀA/n.
	gram *mat.SymDense
	// means[t][k] and cov[t] are the mean of term k and the covariance
	// matrix of the terms within trajectory t (population, divide by n_t).
	means [][]float64
	cov   []*mat.SymDense
	// spread[k] is the standard deviation of term k over all rows.
	spread []float64
	// noiseVar[t][k] is the estimated measurement-noise variance of term k
	// along trajectory t (see noise.go).
	noiseVar [][]float64
	// states is the data (column-major), kept for the gradients of the
	// extended stage (see dependence.go); nil in the first stage.
	states [][]float64
	// noNoiseModel is Options.DisableNoiseModel.
	noNoiseModel bool
}

// constantTermRMS is the relative size below which a term counts as constant
// within trajectories; such terms are parameters or labels, not dynamics.
const constantTermRMS = 1e-9

// newProblem computes per-trajectory moments of every term and drops the terms
// that do not vary within trajectories.
func newProblem(lib []term, groups [][]int, rows int) *problem {
	p := &problem{groups: groups, rows: rows}
	for _, t := range lib {
		mean, sd := stat.PopMeanStdDev(t.values, nil)
		within := withinRMS(t.values, groups)
		if within > 0 && within > constantTermRMS*math.Max(sd, math.Abs(mean)) {
			p.terms = append(p.terms, t)
			p.scale = append(p.scale, within)
			p.spread = append(p.spread, sd)
		}
	}
	kept, k := p.terms, len(p.terms)
	p.means = make([][]float64, len(groups))
	p.cov = make([]*mat.SymDense, len(groups))
	p.gram = mat.NewSymDense(k, nil)
	for g, idx := range groups {
		m := make([]float64, k)
		for j, t := range kept {
			s := 0.0
			for _, i := range idx {
				s += t.values[i]
			}
			m[j] = s / float64(len(idx))
		}
		c := mat.NewSymDense(k, nil)
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				s := 0.0
				va, vb := kept[a].values, kept[b].values
				for _, i := range idx {
					s += (va[i] - m[a]) * (vb[i] - m[b])
				}
				c.SetSym(a, b, s/float64(len(idx)))
				p.gram.SetSym(a, b, p.gram.At(a, b)+s/(float64(rows)*p.scale[a]*p.scale[b]))
			}
		}
		p.means[g] = m
		p.cov[g] = c
	}
	p.computeTermNoise()
	return p
}

// design returns the centred, scaled library matrix A (rows x terms) whose
// near-null right singular vectors span the conserved quantities.
func (p *problem) design() *mat.Dense {
	a := mat.NewDense(p.rows, len(p.terms), nil)
	for g, idx := range p.groups {
		for j, t := range p.terms {
			for _, i := range idx {
				a.Set(i, j, (t.values[i]-p.means[g][j])/p.scale[j])
			}
		}
	}
	return a
}

// withinRMS is the root mean square of v after subtracting each trajectory's
// own mean.
func withinRMS(v []float64, groups [][]int) float64 {
	ss, n := 0.0, 0
	for _, idx := range groups {
		m := 0.0
		for _, i := range idx {
			m += v[i]
		}
		m /= float64(len(idx))
		for _, i := range idx {
			ss += (v[i] - m) * (v[i] - m)
		}
		n += len(idx)
	}
	return math.Sqrt(ss / float64(n))
}
