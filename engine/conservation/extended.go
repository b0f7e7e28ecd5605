package conservation

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// Logarithmic and rational terms.
//
// Many first integrals are not polynomial: the Lotka–Volterra system
// x' = αx − βxy, y' = δxy − γy conserves δx − γ ln x + βy − α ln y, and the
// Kepler problem conserves the energy (vx² + vy²)/2 − μ/r and the
// Laplace–Runge–Lenz vector, whose components hold x/r and y/r, with
// r = sqrt(x² + y²) (Goldstein, Classical Mechanics, 3rd ed., §3.9). The
// extended library adds, where they are defined on all rows:
//
//   - log(x) for every variable that is positive on all rows;
//   - x^-1 for every variable that keeps one sign on all rows, and the
//     ratios y*x^-1 of every other variable y to it;
//   - for every pair of variables (a, b) whose radius sqrt(a² + b²) stays
//     away from 0, the inverse radius (a^2 + b^2)^-0.5 and the direction
//     cosines a*(a^2 + b^2)^-0.5 and b*(a^2 + b^2)^-0.5.
//
// Only variables that vary along the trajectories enter these terms; a
// parameter (constant on every trajectory) enters through the monomials.
//
// Domain guard: a variable "keeps one sign" and a radius "stays away from 0"
// when its smallest magnitude is at least minMagnitudeShare of its largest,
// so no term is dominated by a few rows near a pole.
const minMagnitudeShare = 1e-3

// factorKind is the function a factor applies to its variables.
type factorKind int

const (
	kindPower  factorKind = iota // x^p (p may be negative)
	kindSin                      // sin(x)^p
	kindCos                      // cos(x)^p
	kindLog                      // log(x)^p
	kindRadius                   // (a^2 + b^2)^p
)

// factor is one factor of a term: kind applied to vars, raised to power.
type factor struct {
	kind  factorKind
	vars  []int
	power float64
}

// Term is a parsed library term that can be evaluated on a state.
type Term struct {
	factors []factor
	// Variables are the indices of the variables the term uses, ascending.
	Variables []int
}

// Eval returns the term's value at state (state[j] is variable j).
func (t Term) Eval(state []float64) float64 {
	v := 1.0
	for _, f := range t.factors {
		v *= f.eval(state)
	}
	return v
}

func (f factor) eval(state []float64) float64 {
	var x float64
	switch f.kind {
	case kindPower:
		x = state[f.vars[0]]
	case kindSin:
		x = math.Sin(state[f.vars[0]])
	case kindCos:
		x = math.Cos(state[f.vars[0]])
	case kindLog:
		x = math.Log(state[f.vars[0]])
	case kindRadius:
		a, b := state[f.vars[0]], state[f.vars[1]]
		x = a*a + b*b
	}
	switch f.power {
	case 1:
		return x
	case 2:
		return x * x
	case -1:
		return 1 / x
	case -0.5:
		return 1 / math.Sqrt(x)
	}
	return math.Pow(x, f.power)
}

// ParseTerm reads a term name as the library writes it (a key of
// Quantity.Coefficients): factors joined by "*", each "name", "name^p",
// "sin(name)", "cos(name)", "log(name)" (any of them with "^p") or
// "(a^2 + b^2)^p", where p is an integer or a decimal such as -0.5.
// names are the variables in the order Find received them.
func ParseTerm(name string, names []string) (Term, error) {
	index := make(map[string]int, len(names))
	for j, n := range names {
		index[n] = j
	}
	var t Term
	used := make(map[int]bool)
	for _, raw := range strings.Split(name, "*") {
		f, err := parseFactor(strings.TrimSpace(raw), index)
		if err != nil {
			return Term{}, fmt.Errorf("conservation: term %q: %w", name, err)
		}
		for _, j := range f.vars {
			used[j] = true
		}
		t.factors = append(t.factors, f)
	}
	for j := range names {
		if used[j] {
			t.Variables = append(t.Variables, j)
		}
	}
	return t, nil
}

func parseFactor(s string, index map[string]int) (factor, error) {
	f := factor{power: 1}
	base := s
	if strings.HasPrefix(s, "(") {
		end := strings.Index(s, ")")
		if end < 0 {
			return f, fmt.Errorf("unbalanced %q", s)
		}
		base = s[:end+1]
		if rest := s[end+1:]; rest != "" {
			p, ok := strings.CutPrefix(rest, "^")
			if !ok {
				return f, fmt.Errorf("bad factor %q", s)
			}
			v, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return f, fmt.Errorf("bad power in %q", s)
			}
			f.power = v
		}
		a, b, ok := strings.Cut(base[1:len(base)-1], " + ")
		an, aok := strings.CutSuffix(a, "^2")
		bn, bok := strings.CutSuffix(b, "^2")
		ja, ina := index[an]
		jb, inb := index[bn]
		if !ok || !aok || !bok || !ina || !inb {
			return f, fmt.Errorf("bad radius %q", base)
		}
		f.kind, f.vars = kindRadius, []int{ja, jb}
		return f, nil
	}
	if i := strings.LastIndex(s, "^"); i >= 0 && !strings.HasSuffix(s, ")") {
		v, err := strconv.ParseFloat(s[i+1:], 64)
		if err != nil {
			return f, fmt.Errorf("bad power in %q", s)
		}
		f.power, base = v, s[:i]
	}
	for _, fn := range []struct {
		prefix string
		kind   factorKind
	}{{"sin(", kindSin}, {"cos(", kindCos}, {"log(", kindLog}} {
		if inner, ok := strings.CutPrefix(base, fn.prefix); ok && strings.HasSuffix(inner, ")") {
			f.kind, base = fn.kind, inner[:len(inner)-1]
			break
		}
	}
	j, ok := index[base]
	if !ok {
		return f, fmt.Errorf("unknown variable %q", base)
	}
	f.vars = []int{j}
	return f, nil
}

// extendedTerms evaluates the logarithmic and rational terms that are
// defined on every row of X (see the rules above), in a fixed order: logs,
// reciprocals, ratios, then radius terms by pair.
func extendedTerms(X [][]float64, names []string, groups [][]int) []term {
	var out []term
	varies := make([]bool, len(X))
	for j, col := range X {
		varies[j] = variesWithin(col, groups)
	}
	add := func(name string, fs []factor) {
		t := Term{factors: fs}
		used := map[int]bool{}
		for _, f := range fs {
			for _, j := range f.vars {
				used[j] = true
			}
		}
		for j := range X {
			if used[j] {
				t.Variables = append(t.Variables, j)
			}
		}
		values := make([]float64, len(X[0]))
		state := make([]float64, len(X))
		for i := range values {
			for j := range X {
				state[j] = X[j][i]
			}
			values[i] = t.Eval(state)
		}
		out = append(out, term{name: name, variables: t.Variables, values: values, parsed: t, extended: true})
	}
	signed := make([]int, len(X)) // +1 positive, -1 negative, 0 neither
	for j, col := range X {
		if varies[j] {
			signed[j] = oneSign(col)
		}
	}
	for j := range X {
		if signed[j] > 0 {
			add("log("+names[j]+")", []factor{{kind: kindLog, vars: []int{j}, power: 1}})
		}
	}
	for j := range X {
		if signed[j] != 0 {
			add(names[j]+"^-1", []factor{{kind: kindPower, vars: []int{j}, power: -1}})
		}
	}
	for j := range X {
		if signed[j] == 0 {
			continue
		}
		for i := range X {
			if i == j || !varies[i] {
				continue
			}
			num := factor{kind: kindPower, vars: []int{i}, power: 1}
			den := factor{kind: kindPower, vars: []int{j}, power: -1}
			if i < j {
				add(names[i]+"*"+names[j]+"^-1", []factor{num, den})
			} else {
				add(names[j]+"^-1*"+names[i], []factor{den, num})
			}
		}
	}
	for a := range X {
		for b := a + 1; b < len(X); b++ {
			if !varies[a] || !varies[b] || !radiusAwayFromZero(X[a], X[b]) {
				continue
			}
			r := "(" + names[a] + "^2 + " + names[b] + "^2)^-0.5"
			rf := factor{kind: kindRadius, vars: []int{a, b}, power: -0.5}
			add(r, []factor{rf})
			add(names[a]+"*"+r, []factor{{kind: kindPower, vars: []int{a}, power: 1}, rf})
			add(names[b]+"*"+r, []factor{{kind: kindPower, vars: []int{b}, power: 1}, rf})
		}
	}
	return out
}

// oneSign is +1 when every value is positive, -1 when every value is
// negative, each with the smallest magnitude at least minMagnitudeShare of
// the largest, and 0 otherwise.
func oneSign(col []float64) int {
	lo, hi := math.Inf(1), 0.0
	pos, neg := true, true
	for _, v := range col {
		pos = pos && v > 0
		neg = neg && v < 0
		lo, hi = math.Min(lo, math.Abs(v)), math.Max(hi, math.Abs(v))
	}
	switch {
	case !(lo >= minMagnitudeShare*hi) || hi == 0:
		return 0
	case pos:
		return 1
	case neg:
		return -1
	}
	return 0
}

// radiusAwayFromZero reports whether sqrt(a² + b²) keeps its smallest value
// at least minMagnitudeShare of its largest.
func radiusAwayFromZero(a, b []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for i := range a {
		r := math.Hypot(a[i], b[i])
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	return hi > 0 && lo >= minMagnitudeShare*hi
}

// maxExtendedLibraryTerms bounds the library of the extended stage, base
// and extended terms together, so that its search stays cheap (it allows,
// for example, four variables at degree 3 or five positive variables at
// degree 2); beyond it only the first stage runs.
const maxExtendedLibraryTerms = 100

// extendedTolerance divides Options.Tolerance for quantities with an
// extended term. The second stage tries every support of up to
// maxSmallSupport terms, thousands more than sequential thresholding, so a
// combination that is conserved only approximately on the given orbits is
// that much likelier to pass; as in a Bonferroni correction, the bound
// tightens with the number of hypotheses tried. Only the fixed tolerance
// tightens: a quantity on noisy data whose variation the measurement noise
// explains is still accepted by the noise model (see noise.go).
const extendedTolerance = 10

// maxSubsetFits bounds the supports smallSupports tries.
const maxSubsetFits = 60000

// smallSupports hands every support of two to maxSmallSupport terms of pool
// that holds an extended term to consider, smallest first, as long as all
// supports of a size fit within maxSubsetFits (best-subset selection for
// the few-term quantities that sequential thresholding misses when the
// near-null space of a large library has many dimensions; Miller, Subset
// Selection in Regression, 2nd ed., ch. 3). The polynomial supports were the
// first stage's to search.
func (p *problem) smallSupports(ctx context.Context, pool []int, consider func([]int)) error {
	budget := maxSubsetFits
	for size := 2; size <= maxSmallSupport; size++ {
		n := binomial(len(pool), size)
		if n > budget {
			return nil
		}
		budget -= n
		var err error
		forEachSubset(len(pool), size, func(idx []int) bool {
			if err = ctx.Err(); err != nil {
				return false
			}
			support := make([]int, size)
			ext := false
			for a, i := range idx {
				support[a] = pool[i]
				ext = ext || p.terms[pool[i]].extended
			}
			if ext {
				consider(support)
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// maxSmallSupport is the largest support smallSupports tries: the
// Lotka–Volterra integral has four terms.
const maxSmallSupport = 4

// binomial is C(n, k), saturating at a large value.
func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	c := 1
	for i := 1; i <= k; i++ {
		c = c * (n - k + i) / i
		if c > 1<<40 {
			return c
		}
	}
	return c
}

// forEachSubset calls fn with every ascending index sequence of the given
// size over [0, n), in lexicographic order, until fn returns false. fn must
// not keep idx.
func forEachSubset(n, size int, fn func(idx []int) bool) {
	idx := make([]int, size)
	var rec func(pos, start int) bool
	rec = func(pos, start int) bool {
		if pos == size {
			return fn(idx)
		}
		for j := start; j <= n-(size-pos); j++ {
			idx[pos] = j
			if !rec(pos+1, j+1) {
				return false
			}
		}
		return true
	}
	rec(0, 0)
}

// variesWithin reports whether v varies along the trajectories by more than
// constantTermRMS of its size (the rule newProblem applies to terms).
func variesWithin(v []float64, groups [][]int) bool {
	mean, sd := stat.PopMeanStdDev(v, nil)
	within := withinRMS(v, groups)
	return within > 0 && within > constantTermRMS*math.Max(sd, math.Abs(mean))
}
