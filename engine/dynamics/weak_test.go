package dynamics

import (
	"math"
	"math/rand/v2"
	"testing"
)

// noiseMomentsDense is noiseMoments' formula summed over every term, the
// definition the sparse sums must reproduce bit for bit.
func noiseMomentsDense(J []float64, c, cb float64, sd []float64, m, vars, states int, noise, cross []float64) {
	for v := range vars {
		s2 := sd[v] * sd[v]
		if s2 == 0 {
			continue
		}
		for j := range m {
			a := J[j*vars+v] * c * s2
			if a == 0 {
				continue
			}
			row := noise[j*m : (j+1)*m]
			for l := range m {
				row[l] += a * J[l*vars+v]
			}
		}
		if v < states {
			for j := range m {
				cross[v*m+j] += cb * s2 * J[j*vars+v]
			}
		}
	}
}

// The noise moments sum only the terms whose derivative is not zero, and
// give the same bits as the sums over every term: on the degree-3 library
// with sin and cos, with states at exactly 0 (derivatives that vanish at a
// point, not only structurally), a variable without noise, an input, and
// a derivative that overflows to +Inf.
func TestNoiseMomentsSkipZerosExactly(t *testing.T) {
	names := []string{"x", "y", "z", "u"}
	lib := buildLibrary(names, 3, true, nil)
	m, vars, states := len(lib), len(names), 3
	rng := rand.New(rand.NewPCG(3, 4))
	const radius = 6
	w := 2*radius + 1
	for _, c := range []struct {
		name string
		edit func(z []float64, k int)
	}{
		{"random states", func([]float64, int) {}},
		{"zeros", func(z []float64, k int) { z[k%vars] = 0 }},
		{"overflow", func(z []float64, k int) {
			if k == 4 {
				z[1] = 1e200
			}
		}},
	} {
		jac := make([][]float64, w)
		for k := range jac {
			z := make([]float64, vars)
			for v := range z {
				z[v] = rng.NormFloat64()
			}
			c.edit(z, k)
			jac[k] = make([]float64, m*vars)
			for j, term := range lib {
				termGrad(term, z, jac[k][j*vars:(j+1)*vars])
			}
		}
		phi, dphi := make([]float64, w), make([]float64, w)
		norm := 0.0
		for k := range phi {
			phi[k], dphi[k] = rng.Float64(), rng.NormFloat64()
			norm += phi[k]
		}
		sd := []float64{0.1, 0, 0.3, 0.05}
		got, want := make([]float64, m*m), make([]float64, m*m)
		gotX, wantX := make([]float64, states*m), make([]float64, states*m)
		var nz []int
		for k, f := range phi {
			c, cb := (f/norm)*(f/norm), -(f/norm)*(dphi[k]/norm)
			nz = noiseMoments(jac[k], c, cb, sd, m, vars, allTargets(states), nz, got, gotX)
			noiseMomentsDense(jac[k], c, cb, sd, m, vars, states, want, wantX)
		}
		nonFinite := 0
		for _, pair := range [][2][]float64{{got, want}, {gotX, wantX}} {
			for i := range pair[0] {
				g, e := pair[0][i], pair[1][i]
				if math.Float64bits(g) != math.Float64bits(e) && !(math.IsNaN(g) && math.IsNaN(e)) {
					t.Fatalf("%s: entry %d is %v, the sum over every term gives %v", c.name, i, g, e)
				}
				if math.IsNaN(e) || math.IsInf(e, 0) {
					nonFinite++
				}
			}
		}
		if (c.name == "overflow") != (nonFinite > 0) {
			t.Errorf("%s: %d non-finite entries", c.name, nonFinite)
		}
	}
}
