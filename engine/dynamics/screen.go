package dynamics

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Screening: many states and inputs (issue 18, item 4, columns to 500).
//
// One library over every variable holds C(n+d, d) + 2n terms at degree d:
// past 16 variables even degree 2 makes more than maxLibrary, and past 66
// degree 1 does. A library of degree 1 has no product and no square, so it
// cannot hold the dynamics of most nonlinear systems, and its regression
// costs grow with the cube of its size for every state.
//
// Large systems are sparse: each state moves with a few others (a chain,
// a reaction network, a lattice). So past that point each state gets its
// own library over at most Settings.Candidates variables, of degree 2 by
// default (products and squares: mass action, Lotka–Volterra, Lorenz; set
// Settings.Degree for cubic terms), so that the cost per state stays that
// of a small system: itself and those that forward selection on the linear weak
// form (ẋ_i regressed on 1 and every variable) picks one at a time, the
// variable that most reduces the residual first. This is sure independence
// screening (Fan & Lv 2008, J. R. Stat. Soc. B 70:849) in its forward
// regression form (Wang 2009, J. Am. Stat. Assoc. 104:1512), which keeps
// the true variables with probability tending to one when the model is
// sparse, and the sparse regression that follows is the one of a small
// system. A variable that acts on a state only through terms with no linear
// trace (only x·y, with neither x nor y alone) may be missed; Result's
// LibraryNote says the screen ran, and Equation.Variables names what each
// state's library was built from.
//
// The screen sees only the training pieces, so the held-out simulation
// still judges the whole procedure. Its Gram matrix holds (n+1)² numbers,
// so at most maxVariables states and inputs are taken.

const (
	// defaultCandidates is the default Settings.Candidates: a state and
	// four others, 31 terms at degree 2 and 66 at degree 3 with sin and
	// cos.
	defaultCandidates = 5
	// minCandidates and maxCandidates bound Settings.Candidates.
	minCandidates = 2
	maxCandidates = 16
	// screenedDegree is, with the default degree, the lowest degree of a
	// library shared by every state and the degree of the screened
	// libraries that replace it beyond.
	screenedDegree = 2
	// maxVariables is the most states and inputs Discover takes.
	maxVariables = 1000
)

// libraryPlan is how the regression's library is built: one library of
// degree over every variable (candidates 0), or one per state over the
// candidates variables the screen picks.
type libraryPlan struct {
	degree     int
	candidates int
	note       string // Result.LibraryNote
}

// planLibrary returns the library of a run with vars states and inputs.
// lowerable says the degree was left at its default (settings.Degree holds
// it already). With the default degree the library is shared when it
// fits at degree screenedDegree or above (lowered as far as needed), and
// otherwise each state's library is screened, at degree screenedDegree
// (lower if settings.Candidates variables need it). A degree that is set
// is kept: the library is shared when it fits at that degree, and
// screened otherwise.
func planLibrary(vars int, settings Settings, lowerable bool) (libraryPlan, error) {
	trig, extra := !settings.NoTrig, len(settings.ExtraTerms)
	if vars > maxVariables {
		return libraryPlan{}, fmt.Errorf("%w: %d states and inputs, at most %d are allowed", ErrInvalidData, vars, maxVariables)
	}
	full := librarySize(vars, settings.Degree, trig) + extra
	floor := settings.Degree
	if lowerable {
		floor = min(screenedDegree, settings.Degree)
	}
	for d := settings.Degree; d >= floor; d-- {
		if librarySize(vars, d, trig)+extra > maxLibrary {
			continue
		}
		p := libraryPlan{degree: d}
		if d < settings.Degree {
			p.note = fmt.Sprintf("library of degree %d: at degree %d the %d states and inputs make %d terms, more than the %d allowed",
				d, settings.Degree, vars, full, maxLibrary)
		}
		return p, nil
	}
	if extra > 0 {
		return libraryPlan{}, fmt.Errorf("%w: %d states and inputs at degree %d make %d library terms, at most %d are allowed with extra terms (which need one library over every variable)",
			ErrInvalidData, vars, floor, librarySize(vars, floor, trig)+extra, maxLibrary)
	}
	k := min(settings.Candidates, vars)
	d, err := libraryDegree(k, floor, lowerable, trig, 0)
	if err != nil {
		return libraryPlan{}, fmt.Errorf("%w (the library of each state's %d screened variables)", err, k)
	}
	return libraryPlan{degree: d, candidates: k, note: fmt.Sprintf(
		"each state's library of degree %d is built from %d variables, itself and those a linear screen picks: one library over the %d states and inputs would hold %d terms at degree %d, more than the %d allowed",
		d, k, vars, librarySize(vars, floor, trig), floor, maxLibrary)}, nil
}

// screenVariables returns, for each state, the ascending indices (into
// states then inputs) of the variables its library is built from: the
// state itself and up to k−1 others, picked by forward selection on the
// linear regression of the state's response (weak form or point
// derivative, as settings say) on 1 and every variable, over the training
// pieces. The regression's Gram matrix is accumulated in blocks of rows,
// so memory is (vars+1)² numbers whatever the rows.
func screenVariables(ctx context.Context, train []segment, names []string, states, k int, settings Settings) ([][]int, error) {
	vars := len(names)
	p := vars + 1
	lin := make([]Term, p) // 1, then each variable
	lin[0] = Term{Name: "1", Eval: func([]float64) float64 { return 1 }}
	for j := range vars {
		lin[j+1] = Term{Name: names[j], Eval: func(z []float64) float64 { return z[j] }}
	}
	gram := blas64.Symmetric{Uplo: blas.Upper, N: p, Stride: p, Data: make([]float64, p*p)}
	cross := blas64.General{Rows: states, Cols: p, Stride: p, Data: make([]float64, states*p)}
	const block = 256
	rows := make([]float64, 0, block*p)
	resp := make([]float64, 0, block*states)
	flush := func() {
		n := len(rows) / p
		if n == 0 {
			return
		}
		g := blas64.General{Rows: n, Cols: p, Stride: p, Data: rows}
		blas64.Syrk(blas.Trans, 1, g, 1, gram)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, blas64.General{Rows: n, Cols: states, Stride: states, Data: resp}, g, 1, cross)
		rows, resp = rows[:0], resp[:0]
	}
	targets := allTargets(states)
	for _, s := range train {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		regressionRows(s, lin, states, targets, settings.radius(len(s.t)), settings, false, func(g, b []float64) {
			rows = append(rows, g...)
			resp = append(resp, b...)
			if len(rows) == block*p {
				flush()
			}
		})
	}
	flush()
	out := make([][]int, states)
	for s := range states {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		picked := forwardSelect(gram.Data, cross.Data[s*p:(s+1)*p], p, []int{0, s + 1}, k+1)
		for _, j := range picked[1:] { // the constant is always in the library
			out[s] = append(out[s], j-1)
		}
		slices.Sort(out[s])
	}
	return out, nil
}

// forwardSelect returns the columns of the least-squares problem with Gram
// matrix G (p×p, upper triangle read) and cross products c that forward
// selection picks: start, then one column at a time the one whose addition
// most reduces the residual sum of squares, until size columns are picked
// or no column adds an independent direction. Columns are compared on
// unit scale. The reduction of adding j to S is (c_j − G_jS G_SS⁻¹ c_S)² /
// (G_jj − G_jS G_SS⁻¹ G_Sj), computed through the Cholesky factor of G_SS,
// extended by one row per pick.
func forwardSelect(G, c []float64, p int, start []int, size int) []int {
	scale := make([]float64, p)
	for j := range p {
		scale[j] = math.Sqrt(G[j*p+j])
	}
	at := func(i, j int) float64 { // normalised G, either triangle
		if i > j {
			i, j = j, i
		}
		if scale[i] == 0 || scale[j] == 0 {
			return 0
		}
		return G[i*p+j] / (scale[i] * scale[j])
	}
	var S []int
	var L [][]float64 // Cholesky rows of G_SS
	var u []float64   // L⁻¹ c_S
	v := make([]float64, 0, size)
	solve := func(j int) (partial, r float64) {
		v = v[:0]
		for a, sa := range S {
			x := at(sa, j)
			for b := range a {
				x -= L[a][b] * v[b]
			}
			v = append(v, x/L[a][a])
		}
		partial, r = at(j, j), 0
		if scale[j] > 0 {
			r = c[j] / scale[j]
		}
		for a := range S {
			partial -= v[a] * v[a]
			r -= v[a] * u[a]
		}
		return partial, r
	}
	add := func(j int) bool {
		partial, r := solve(j)
		if !(partial > independent) {
			return false
		}
		d := math.Sqrt(partial)
		L = append(L, append(slices.Clone(v), d))
		u = append(u, r/d)
		S = append(S, j)
		return true
	}
	for _, j := range start {
		add(j)
	}
	for len(S) < size {
		best, gain := -1, 0.0
		for j := range p {
			if slices.Contains(S, j) {
				continue
			}
			partial, r := solve(j)
			if !(partial > independent) {
				continue
			}
			if g := r * r / partial; g > gain || best < 0 {
				best, gain = j, g
			}
		}
		if best < 0 || !add(best) {
			break
		}
	}
	return S
}

// independent is the smallest share of a unit-scale column that must lie
// outside the span of the columns picked before it.
const independent = 1e-10

// stateLibrary is the library of one state after screening: terms over
// the variables vars (ascending indices into states then inputs, the first
// states of them states), evaluated on those variables alone; target is
// the state's position in vars.
type stateLibrary struct {
	vars           []int
	states, target int
	lib            []Term
}

func newStateLibrary(names []string, vars []int, state, states int, settings Settings) stateLibrary {
	p := stateLibrary{vars: vars}
	sub := make([]string, len(vars))
	for k, v := range vars {
		sub[k] = names[v]
		if v < states {
			p.states++
		}
		if v == state {
			p.target = k
		}
	}
	p.lib = buildLibrary(sub, settings.Degree, !settings.NoTrig, nil)
	return p
}

// design builds the state's regression on the training pieces, each
// reduced to the state's variables (pieces).
func (p stateLibrary) design(ctx context.Context, train []segment, settings Settings) (*design, error) {
	d, err := buildDesign(ctx, p.pieces(train), p.lib, p.states, []int{p.target}, settings)
	if err != nil {
		return nil, err
	}
	if d.total() < 2*len(p.lib) {
		return nil, tooFewRows(d.total(), len(p.lib))
	}
	return d, nil
}

// pieces returns the training pieces reduced to the state's variables.
func (p stateLibrary) pieces(train []segment) []segment {
	pieces := make([]segment, len(train))
	for i, s := range train {
		values := make([]float64, len(s.t)*len(p.vars))
		x := make([][]float64, len(s.t))
		for r, row := range s.x {
			x[r] = values[r*len(p.vars) : (r+1)*len(p.vars) : (r+1)*len(p.vars)]
			for k, v := range p.vars {
				x[r][k] = row[v]
			}
		}
		pieces[i] = segment{label: s.label, t: s.t, x: x}
		if s.sd != nil {
			pieces[i].sd = make([]float64, len(p.vars))
			for k, v := range p.vars {
				pieces[i].sd[k] = s.sd[v]
			}
		}
	}
	return pieces
}

// on returns t, a term of the variables vars, as a term of every
// variable. The returned term reuses its buffers: it belongs to one
// Discover call, which evaluates terms one at a time.
func (t Term) on(vars []int) Term {
	z, g := make([]float64, len(vars)), make([]float64, len(vars))
	gather := func(all []float64) {
		for k, v := range vars {
			z[k] = all[v]
		}
	}
	u := t
	u.Eval = func(all []float64) float64 {
		gather(all)
		return t.Eval(z)
	}
	u.Grad = func(all, grad []float64) {
		gather(all)
		termGrad(t, z, g)
		clear(grad)
		for k, v := range vars {
			grad[v] = g[k]
		}
	}
	return u
}

// fitScreened regresses each state on its own screened library (see the
// screening comment above): one design per state, built again for the
// ensemble's refits rather than kept, so that memory is that of one
// state's design whatever the states.
func fitScreened(ctx context.Context, train []segment, names []string, states, candidates int, settings Settings) (*fit, error) {
	screened, err := screenVariables(ctx, train, names, states, candidates, settings)
	if err != nil {
		return nil, err
	}
	if settings.Derivatives == WeakForm && !settings.NoNoiseCorrection {
		for i := range train { // each variable's noise, once for every state
			train[i].sd = noiseSD(train[i])
		}
	}
	libs := make([]stateLibrary, states)
	index := map[string]int{} // term name → index in f.lib
	terms := make([][]coefTerm, states)
	f := &fit{}
	for s := range states {
		p := newStateLibrary(names, screened[s], s, states, settings)
		libs[s] = p
		d, err := p.design(ctx, train, settings)
		if err != nil {
			return nil, err
		}
		f.rows, f.chunks = d.total(), len(d.chunks)
		all := allTargets(len(d.chunks))
		sel, err := d.selectSupport(ctx, 0, all)
		if err != nil {
			return nil, err
		}
		f.cvR2 = append(f.cvR2, sel.r2())
		vn := make([]string, len(p.vars))
		for k, v := range p.vars {
			vn[k] = names[v]
		}
		f.variables = append(f.variables, vn)
		if err := d.addSupportNoise(ctx, p.pieces(train), p.lib, sel.support, p.states, []int{p.target}, settings); err != nil {
			return nil, err
		}
		c, ok := d.coefficients(0, all, sel.support)
		if !ok {
			continue
		}
		for j, v := range c {
			if v == 0 {
				continue
			}
			gi, seen := index[p.lib[j].Name]
			if !seen {
				gi = len(f.lib)
				index[p.lib[j].Name] = gi
				f.lib = append(f.lib, p.lib[j].on(p.vars))
			}
			terms[s] = append(terms[s], coefTerm{gi, v})
		}
	}
	f.coefs = make([][]float64, states)
	for s, ts := range terms {
		f.coefs[s] = make([]float64, len(f.lib))
		for _, t := range ts {
			f.coefs[s][t.term] = t.coef
		}
	}
	f.inclusion = func(ctx context.Context, subsets [][]int) ([][]int, error) {
		counts := make([][]int, states)
		for s, p := range libs {
			counts[s] = make([]int, len(f.lib))
			if len(terms[s]) == 0 {
				continue
			}
			d, err := p.design(ctx, train, settings)
			if err != nil {
				return nil, err
			}
			c, err := d.inclusion(ctx, subsets)
			if err != nil {
				return nil, err
			}
			for j, n := range c[0] {
				if gi, ok := index[p.lib[j].Name]; ok {
					counts[s][gi] = n
				}
			}
		}
		return counts, nil
	}
	return f, nil
}
