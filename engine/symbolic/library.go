package symbolic

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// maxLibrary caps the candidate-term library so the sparse pass stays a
// small fraction of the search budget even with many variables.
const maxLibrary = 400

// maxPairFunctionVars bounds the inputs for which the library holds the
// products of a pair with sin or cos of another input or difference: they
// grow as the fourth power of the inputs.
const maxPairFunctionVars = 5

// libraryTerm is a candidate term and its values on the data.
type libraryTerm struct {
	t   tree
	col []float64
}

// buildLibrary lists candidate terms, simplest first: the variables,
// monomials up to degree 3, ratios, the allowed functions applied to
// variables, differences and pairwise products, and, for at most
// maxPairFunctionVars inputs, pair products times sin or cos of a third
// input or of a difference and pairs' geometric means times cos of a
// third input. Terms that are undefined somewhere,
// constant, or duplicates of an earlier term are dropped.
func buildLibrary(p *problem) []libraryTerm {
	b := newTermBuilder(p.g)
	vars := p.g.vars
	var trees []tree
	add := func(t tree, ok bool) {
		if ok && len(trees) < 4*maxLibrary {
			trees = append(trees, t)
		}
	}
	// Once the list is full, nothing more is built: the triple products
	// alone are v³/6 candidates.
	mono := func(vs []int, ks []float64) {
		if len(trees) < 4*maxLibrary {
			add(b.monomial(vs, ks))
		}
	}
	for _, i := range vars {
		add(tree{varNode(i)}, true)
	}
	for a, i := range vars {
		mono([]int{i}, []float64{2})
		for _, j := range vars[a+1:] {
			mono([]int{i, j}, []float64{1, 1})
		}
	}
	if b.has[opDiv] || b.has[opPow] {
		for _, i := range vars {
			mono([]int{i}, []float64{-1})
		}
		for _, i := range vars {
			for _, j := range vars {
				if i != j {
					mono([]int{i, j}, []float64{1, -1})
				}
			}
		}
		for _, i := range vars {
			mono([]int{i}, []float64{-2})
		}
	}
	for _, f := range []opcode{opSin, opCos, opExp, opLog, opSqrt, opTan, opTanh, opAbs} {
		if !b.has[f] {
			continue
		}
		for _, i := range vars {
			add(tree{varNode(i), opNode(f)}, true)
			if f == opExp && b.has[opMul] {
				add(tree{constNode(-1), varNode(i), opNode(opMul), opNode(f)}, true)
			}
		}
	}
	// Differences of variables (x2 − x1, ω − ω0, θ1 − θ2) are common in
	// laws; offer them squared and under sin and cos.
	if b.has[opSub] {
		for a, i := range vars {
			for _, j := range vars[a+1:] {
				d := tree{varNode(i), varNode(j), opNode(opSub)}
				if b.has[opPow] {
					add(append(d.clone(), powNode(2)), true)
				} else if b.has[opMul] {
					add(append(append(d.clone(), d...), opNode(opMul)), true)
				}
				for _, f := range []opcode{opSin, opCos} {
					if b.has[f] {
						add(append(d.clone(), opNode(f)), true)
					}
				}
			}
		}
	}
	for a, i := range vars {
		mono([]int{i}, []float64{3})
		for b2, j := range vars {
			if j != i {
				mono([]int{i, j}, []float64{2, 1})
			}
			if b2 > a {
				for _, k := range vars[b2+1:] {
					mono([]int{i, j, k}, []float64{1, 1, 1})
				}
			}
		}
	}
	if b.has[opMul] {
		for _, f := range []opcode{opSin, opCos, opExp} {
			if !b.has[f] {
				continue
			}
			for a, i := range vars {
				for _, j := range vars[a+1:] {
					add(tree{varNode(i), varNode(j), opNode(opMul), opNode(f)}, true)
				}
			}
		}
	}
	// A pair's product times sin or cos of a third input, or times sin or
	// 1 − cos of the difference of two others: the cross term of the law
	// of cosines (Feynman I.29.16), whose square x1² + x2² − 2·x1·x2·cos(θ1
	// − θ2) = (x1 − x2)² + 2·x1·x2·(1 − cos(θ1 − θ2)) the square transform
	// then fits as two library terms; written so, the law is shorter than
	// with three.
	if len(vars) <= maxPairFunctionVars && b.has[opMul] {
		for _, f := range []opcode{opCos, opSin} {
			if !b.has[f] {
				continue
			}
			fs := functionsOfInputs(b, vars, f)
			for a, i := range vars {
				for _, j := range vars[a+1:] {
					for _, g := range fs {
						if !slices.Contains(g.uses, i) && !slices.Contains(g.uses, j) {
							add(append(append(tree{varNode(i), varNode(j), opNode(opMul)}, g.t...), opNode(opMul)), true)
						}
					}
				}
			}
		}
	}
	// A pair's geometric mean times cos of a third input: the cross term
	// of two interfering waves of intensities I1 and I2 and phase
	// difference δ, I1 + I2 + 2·sqrt(I1·I2)·cos(δ) (Feynman I.37.4), which
	// is then three library terms.
	if len(vars) <= maxPairFunctionVars && b.has[opMul] && b.has[opSqrt] && b.has[opCos] {
		for a, i := range vars {
			for _, j := range vars[a+1:] {
				for _, k := range vars {
					if k != i && k != j {
						add(tree{varNode(i), varNode(j), opNode(opMul), opNode(opSqrt), varNode(k), opNode(opCos), opNode(opMul)}, true)
					}
				}
			}
		}
	}
	if b.has[opDiv] || b.has[opPow] {
		for _, i := range vars {
			for _, j := range vars {
				if i != j {
					mono([]int{i, j}, []float64{1, -2})
					mono([]int{i, j}, []float64{2, -1})
				}
			}
		}
	}

	ev := newEvaluator(p.cols, len(p.y))
	var lib []libraryTerm
	for _, t := range trees {
		if len(lib) >= maxLibrary {
			break
		}
		f := ev.eval(t)
		if !usableColumn(f) {
			continue
		}
		lib = append(lib, libraryTerm{t: t, col: append([]float64(nil), f...)})
	}
	return lib
}

// usableColumn reports whether a term's values are finite and not constant.
func usableColumn(f []float64) bool {
	for _, v := range f {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	m, v := stat.PopMeanVariance(f, nil)
	return v > 1e-20*(m*m+1e-300) && !math.IsInf(v, 0)
}

// inputFunction is a function of some inputs and the inputs it uses.
type inputFunction struct {
	t    tree
	uses []int
}

// functionsOfInputs returns f(x_k) and, when subtraction is allowed,
// f(x_k − x_l) for the later inputs l (1 − cos for cos), in that order for
// each k: the factors buildLibrary multiplies pairs of other inputs by.
func functionsOfInputs(b *termBuilder, vars []int, f opcode) []inputFunction {
	var out []inputFunction
	for c, k := range vars {
		out = append(out, inputFunction{tree{varNode(k), opNode(f)}, []int{k}})
		if !b.has[opSub] {
			continue
		}
		for _, l := range vars[c+1:] {
			g := tree{varNode(k), varNode(l), opNode(opSub), opNode(f)}
			if f == opCos {
				g = append(tree{constNode(1)}, append(g, opNode(opSub))...)
			}
			out = append(out, inputFunction{g, []int{k, l}})
		}
	}
	return out
}

// evenRows returns min(n, k) row indices evenly spaced over n rows.
func evenRows(n, k int) []int {
	rows := make([]int, min(n, k))
	for i := range rows {
		rows[i] = i * n / len(rows)
	}
	return rows
}

// pickRows returns col on the given rows.
func pickRows(col []float64, rows []int) []float64 {
	out := make([]float64, len(rows))
	for k, i := range rows {
		out[k] = col[i]
	}
	return out
}

// pickColumns returns the columns vars of cols on the given rows, indexed
// as cols (the other columns nil).
func pickColumns(cols [][]float64, vars []int, rows []int) [][]float64 {
	out := make([][]float64, len(cols))
	for _, j := range vars {
		out[j] = pickRows(cols[j], rows)
	}
	return out
}

// termsOn returns the terms on the given rows, without those that are
// constant or undefined there.
func termsOn(terms []libraryTerm, rows []int) []libraryTerm {
	out := make([]libraryTerm, 0, len(terms))
	for _, t := range terms {
		if c := pickRows(t.col, rows); usableColumn(c) {
			out = append(out, libraryTerm{t: t.t, col: c})
		}
	}
	return out
}
