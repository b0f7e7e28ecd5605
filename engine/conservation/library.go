package conservation

import (
	"math"
	"strconv"
	"strings"
)

// term is one candidate function of the variables.
type term struct {
	name      string // infix, e.g. "x^2*v" or "cos(theta)"
	variables []int  // indices of the variables it uses, ascending, unique
	values    []float64
	parsed    Term // evaluates the term on a state (for gradients)
	// extended marks the logarithmic and rational terms (see extended.go).
	extended bool
}

// buildLibrary evaluates every candidate term on the data: all monomials of
// total degree 1..maxDegree (in order of degree, then variable order) and then
// sin and cos of each variable. X is column-major: X[j][i] is variable j at
// row i.
func buildLibrary(X [][]float64, names []string, maxDegree int) []term {
	var lib []term
	for degree := 1; degree <= maxDegree; degree++ {
		forEachMultiset(len(X), degree, func(idx []int) {
			lib = append(lib, monomial(X, names, idx))
		})
	}
	for j, col := range X {
		s := make([]float64, len(col))
		c := make([]float64, len(col))
		for i, v := range col {
			s[i], c[i] = math.Sincos(v)
		}
		lib = append(lib,
			term{name: "sin(" + names[j] + ")", variables: []int{j}, values: s,
				parsed: Term{factors: []factor{{kind: kindSin, vars: []int{j}, power: 1}}, Variables: []int{j}}},
			term{name: "cos(" + names[j] + ")", variables: []int{j}, values: c,
				parsed: Term{factors: []factor{{kind: kindCos, vars: []int{j}, power: 1}}, Variables: []int{j}}},
		)
	}
	return lib
}

// librarySize is the number of terms buildLibrary returns, computed without
// evaluating anything: C(v+d, d) - 1 monomials plus 2v trigonometric terms.
func librarySize(nvars, maxDegree int) int {
	n := 1
	for k := 1; k <= maxDegree; k++ {
		n = n * (nvars + k) / k
		if n > 1<<20 {
			return n
		}
	}
	return n - 1 + 2*nvars
}

// forEachMultiset calls fn with every non-decreasing index sequence of the
// given length over [0, n), in lexicographic order. fn must not keep idx.
func forEachMultiset(n, length int, fn func(idx []int)) {
	idx := make([]int, length)
	var rec func(pos, start int)
	rec = func(pos, start int) {
		if pos == length {
			fn(idx)
			return
		}
		for j := start; j < n; j++ {
			idx[pos] = j
			rec(pos+1, j)
		}
	}
	rec(0, 0)
}

// monomial builds the product of the variables listed (with repetition) in idx.
func monomial(X [][]float64, names []string, idx []int) term {
	rows := len(X[idx[0]])
	values := make([]float64, rows)
	for i := range values {
		p := 1.0
		for _, j := range idx {
			p *= X[j][i]
		}
		values[i] = p
	}
	var factors []string
	var vars []int
	var parsed []factor
	for k := 0; k < len(idx); {
		j, power := idx[k], 0
		for k < len(idx) && idx[k] == j {
			power++
			k++
		}
		vars = append(vars, j)
		parsed = append(parsed, factor{kind: kindPower, vars: []int{j}, power: float64(power)})
		if power == 1 {
			factors = append(factors, names[j])
		} else {
			factors = append(factors, names[j]+"^"+strconv.Itoa(power))
		}
	}
	return term{name: strings.Join(factors, "*"), variables: vars, values: values,
		parsed: Term{factors: parsed, Variables: vars}}
}
