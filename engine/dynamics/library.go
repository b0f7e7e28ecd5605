package dynamics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/combin"
)

// Term is one candidate function of the right-hand sides. Eval receives the
// values of the states then the inputs, in the order of Trajectories'
// StateNames and InputNames.
//
// Settings.ExtraTerms takes Terms: it is the hook through which terms that
// the polynomial and trigonometric library cannot hold (rational functions,
// exponentials, products with sin, found by symbolic regression on the
// residuals) join the sparse regression.
type Term struct {
	// Name is the term as it appears in an expression, in the column
	// names, e.g. "x^2*y" or "sin(theta)"; it must parse as a product
	// factor (wrap sums in parentheses).
	Name string
	Eval func(z []float64) float64
	// Grad, optional, writes ∂term/∂z_i into grad; without it a central
	// difference is used. The weak form's errors-in-variables correction
	// needs it.
	Grad func(z, grad []float64)
	// Complexity weighs the term in the model-selection penalty (0 counts
	// as 1): a monomial counts its total degree (the constant 1), sin and
	// cos of a variable 2.
	Complexity int
}

// monomial returns the product of z[i]^p[i] and its name.
func monomial(names []string, powers []int) Term {
	var parts []string
	for i, p := range powers {
		switch {
		case p == 1:
			parts = append(parts, names[i])
		case p > 1:
			parts = append(parts, fmt.Sprintf("%s^%d", names[i], p))
		}
	}
	name := strings.Join(parts, "*")
	if name == "" {
		name = "1"
	}
	pw := append([]int(nil), powers...)
	degree := 0
	for _, p := range powers {
		degree += p
	}
	eval := func(z []float64) float64 {
		v := 1.0
		for i, p := range pw {
			for range p {
				v *= z[i]
			}
		}
		return v
	}
	grad := func(z, g []float64) {
		for i := range g {
			g[i] = 0
			if pw[i] == 0 {
				continue
			}
			v := float64(pw[i])
			for k, p := range pw {
				e := p
				if k == i {
					e--
				}
				for range e {
					v *= z[k]
				}
			}
			g[i] = v
		}
	}
	return Term{Name: name, Complexity: max(degree, 1), Eval: eval, Grad: grad}
}

// termGrad writes the gradient of t at z into g, by t.Grad or else by
// central differences.
func termGrad(t Term, z, g []float64) {
	if t.Grad != nil {
		t.Grad(z, g)
		return
	}
	for i, zi := range z {
		h := 1e-6 * math.Max(1, math.Abs(zi))
		z[i] = zi + h
		up := t.Eval(z)
		z[i] = zi - h
		down := t.Eval(z)
		z[i] = zi
		g[i] = (up - down) / (2 * h)
	}
}

// buildLibrary returns the candidate terms: every monomial of total degree
// 0..degree in the variables (constant first, then by degree, variables in
// column order), then sin and cos of each variable when trig is set, then
// the extra terms.
func buildLibrary(names []string, degree int, trig bool, extra []Term) []Term {
	var lib []Term
	powers := make([]int, len(names))
	for d := 0; d <= degree; d++ {
		var rec func(i, left int)
		rec = func(i, left int) {
			if i == len(names)-1 {
				powers[i] = left
				lib = append(lib, monomial(names, powers))
				powers[i] = 0
				return
			}
			for p := left; p >= 0; p-- {
				powers[i] = p
				rec(i+1, left-p)
			}
			powers[i] = 0
		}
		rec(0, d)
	}
	if trig {
		for i, n := range names {
			lib = append(lib,
				Term{Name: "sin(" + n + ")", Complexity: 2, Eval: func(z []float64) float64 { return math.Sin(z[i]) },
					Grad: func(z, g []float64) { clear(g); g[i] = math.Cos(z[i]) }},
				Term{Name: "cos(" + n + ")", Complexity: 2, Eval: func(z []float64) float64 { return math.Cos(z[i]) },
					Grad: func(z, g []float64) { clear(g); g[i] = -math.Sin(z[i]) }})
		}
	}
	return append(lib, extra...)
}

// librarySize is len(buildLibrary(names, degree, trig, nil)) for vars
// names: the C(vars+degree, degree) monomials of total degree at most
// degree, and with trig sin and cos of each variable. Past maxCountedVars
// it is math.MaxInt, which every bound refuses: C(maxCountedVars+5, 5)
// is the largest count that fits an int at the largest degree, maxDegree.
func librarySize(vars, degree int, trig bool) int {
	if vars > maxCountedVars {
		return math.MaxInt
	}
	n := combin.Binomial(vars+degree, degree)
	if trig {
		n += 2 * vars
	}
	return n
}

// maxCountedVars is the most variables librarySize counts exactly.
const maxCountedVars = 4096

// CheckVariables returns the error Discover returns, with the default
// settings, for vars states and inputs (more than maxVariables), and nil
// when it takes them: a caller can refuse the run before it starts.
func CheckVariables(vars int) error {
	s, err := Settings{}.withDefaults()
	if err != nil {
		return err
	}
	_, err = planLibrary(vars, s, true)
	return err
}

// libraryDegree returns the degree of the library of vars variables (with
// sin and cos when trig, and extra further terms): degree, or when lower
// is set the highest degree down to 1 whose library holds at most
// maxLibrary terms. The library is counted, not built: many variables at
// a high degree would make more terms than memory holds. A library that
// does not fit is ErrInvalidData.
func libraryDegree(vars, degree int, lower, trig bool, extra int) (int, error) {
	size := func() int { return librarySize(vars, degree, trig) + extra }
	for lower && size() > maxLibrary && degree > 1 {
		degree--
	}
	if n := size(); n > maxLibrary {
		return degree, fmt.Errorf("%w: %d states and inputs at degree %d make %d library terms, at most %d are allowed", ErrInvalidData, vars, degree, n, maxLibrary)
	}
	return degree, nil
}

// evalRow fills out[j] = lib[j](z).
func evalRow(lib []Term, z, out []float64) {
	for j, t := range lib {
		out[j] = t.Eval(z)
	}
}

// expression prints Σ coef_j·term_j over the nonzero coefficients, e.g.
// "-10*x + 10*y"; "0" when there are none. Coefficients keep 6 significant
// digits.
func expression(lib []Term, coef []float64) string {
	var b strings.Builder
	for j, c := range coef {
		if c == 0 {
			continue
		}
		mag := strconvG(math.Abs(c))
		switch {
		case b.Len() == 0 && c < 0:
			b.WriteString("-")
		case b.Len() > 0 && c < 0:
			b.WriteString(" - ")
		case b.Len() > 0:
			b.WriteString(" + ")
		}
		if lib[j].Name == "1" {
			b.WriteString(mag)
			continue
		}
		if mag != "1" {
			b.WriteString(mag + "*")
		}
		b.WriteString(lib[j].Name)
	}
	if b.Len() == 0 {
		return "0"
	}
	return b.String()
}

func strconvG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
