package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/discolab/disco/engine/neural"
	"github.com/discolab/disco/engine/symbolic"
)

// neuroSymbolicLaw is the neuro_symbolic mode. The surrogate denoises the
// target and tests separability. When it splits the features into groups,
// each group's partial function is fitted on its own: the surrogate is
// evaluated with the other groups held at their medians, which isolates
// f_G(x_G) up to an additive (additive form) or multiplicative
// (multiplicative form) constant. The parts are combined (summed or
// multiplied) and the combination's scale and offset refit on the real
// target by least squares. Fitting the partial function directly rather
// than log|y| keeps the printed expression free of exp/log wrappers; the
// final linear refit absorbs the constants either way. When nothing
// separates, symbolic regression runs on the denoised target.
func (r *runner) neuroSymbolicLaw(ctx context.Context, target string, y []float64) (*lawModel, []*lawModel, lawFitter, error) {
	s, err := r.pretrain(ctx, target, y)
	if err != nil {
		return nil, nil, nil, err
	}
	r.track.begin(StageSymbolic)
	searchCtx, cancel := r.searchContext(ctx)
	defer cancel()
	fit := r.neuroSymbolicFitter(s)
	law, err := fit(searchCtx, rowsOf(r.data.X, r.data.train), pickRows(y, r.data.train), effortFull, r.plan.spec.Seed)
	r.noteExpiry(searchCtx)
	if err != nil {
		return nil, nil, nil, r.searchFailed(ctx, "symbolic regression", err)
	}
	// Refits (cross-validation, bootstrap) retrain the surrogate as well.
	refit := func(ctx context.Context, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error) {
		s, err := r.trainSurrogate(ctx, X, y, r.neuralOptions(effort, seed))
		if err != nil {
			return nil, err
		}
		return r.neuroSymbolicFitter(s)(ctx, X, y, effort, seed)
	}
	return law, nil, refit, nil
}

// neuroSymbolicFitter fits the symbolic parts given a trained surrogate.
func (r *runner) neuroSymbolicFitter(s *surrogate) lawFitter {
	return func(ctx context.Context, X [][]float64, y []float64, effort float64, seed int64) (*lawModel, error) {
		denoised := s.model.Predict(X)
		groups := s.structure.Groups
		form := s.structure.Form
		if len(groups) < 2 || (form != neural.Additive && form != neural.Multiplicative) {
			res, err := symbolic.Fit(ctx, X, denoised, r.data.features, r.symbolicOptions(effort, seed))
			if err != nil {
				return nil, err
			}
			if res == nil || res.Best == nil {
				return nil, fmt.Errorf("symbolic regression returned no model")
			}
			return r.rescale(fromSymbolic(res.Best, X), X, y), nil
		}
		parts := make([]part, 0, len(groups))
		for g, cols := range groups {
			p, err := r.fitPart(ctx, s.model, X, cols, effort/float64(len(groups)), seed+int64(g))
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		}
		return r.rescale(combine(parts, form), X, y), nil
	}
}

// part is the symbolic fit of one group's partial function.
type part struct {
	cols  []int
	model *symbolic.Model
}

func (p part) eval(X [][]float64) []float64 {
	sub := make([][]float64, len(p.cols))
	for k, j := range p.cols {
		sub[k] = X[j]
	}
	return p.model.Predict(sub)
}

// fitPart fits the partial function of group cols: the surrogate with every
// other feature held at its median.
func (r *runner) fitPart(ctx context.Context, m *neural.Model, X [][]float64, cols []int, effort float64, seed int64) (part, error) {
	inGroup := map[int]bool{}
	for _, j := range cols {
		inGroup[j] = true
	}
	held := make([][]float64, len(X))
	for j := range X {
		if inGroup[j] {
			held[j] = X[j]
			continue
		}
		med := median(X[j])
		held[j] = make([]float64, len(X[j]))
		for i := range held[j] {
			held[j][i] = med
		}
	}
	partial := m.Predict(held)
	sub := make([][]float64, len(cols))
	names := make([]string, len(cols))
	for k, j := range cols {
		sub[k], names[k] = X[j], r.data.features[j]
	}
	if effort < effortRefit/2 {
		effort = effortRefit / 2
	}
	res, err := symbolic.Fit(ctx, sub, partial, names, r.symbolicOptions(effort, seed))
	if err != nil {
		return part{}, err
	}
	if res == nil || res.Best == nil {
		return part{}, fmt.Errorf("symbolic regression returned no model for %s", strings.Join(names, ", "))
	}
	return part{cols: cols, model: res.Best}, nil
}

// combine joins the parts into one law: sum or product of the parts.
func combine(parts []part, form string) *lawModel {
	op := " + "
	if form == neural.Multiplicative {
		op = " * "
	}
	exprs := make([]string, len(parts))
	complexity := 0
	var used []int
	for k, p := range parts {
		exprs[k] = "(" + p.model.Expression + ")"
		complexity += p.model.Complexity + 1
		used = append(used, p.cols...)
	}
	sort.Ints(used)
	predict := func(X [][]float64) []float64 {
		out := parts[0].eval(X)
		for _, p := range parts[1:] {
			v := p.eval(X)
			for i := range out {
				if form == neural.Multiplicative {
					out[i] *= v[i]
				} else {
					out[i] += v[i]
				}
			}
		}
		return out
	}
	return &lawModel{expression: strings.Join(exprs, op), complexity: complexity, predict: predict,
		used: used, form: form + ":" + fmt.Sprint(used)}
}

// rescale refits y ≈ a + b*law on the real target so the law's constants
// come from the data, not from the surrogate.
func (r *runner) rescale(law *lawModel, X [][]float64, y []float64) *lawModel {
	pred := law.predict(X)
	a, b, ok := linearScaling(pred, y)
	if !ok || (a == 0 && b == 1) {
		return law
	}
	inner := law.predict
	out := *law
	out.predict = func(X [][]float64) []float64 {
		v := inner(X)
		for i := range v {
			v[i] = a + b*v[i]
		}
		return v
	}
	out.expression = fmt.Sprintf("%.6g + %.6g*(%s)", a, b, law.expression)
	out.complexity = law.complexity + 4
	if law.form == "" {
		out.form = law.formKey()
	}
	return &out
}

// linearScaling solves min ||y - a - b*x||² with gonum.
func linearScaling(x, y []float64) (a, b float64, ok bool) {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, false
		}
	}
	if stat.Variance(x, nil) == 0 {
		return 0, 0, false
	}
	design := mat.NewDense(len(x), 2, nil)
	for i, v := range x {
		design.Set(i, 0, 1)
		design.Set(i, 1, v)
	}
	var coef mat.VecDense
	if err := coef.SolveVec(design, mat.NewVecDense(len(y), append([]float64(nil), y...))); err != nil {
		return 0, 0, false
	}
	return coef.AtVec(0), coef.AtVec(1), true
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return stat.Quantile(0.5, stat.Empirical, s, nil)
}
