package engine

import (
	"cmp"
	"context"
	"math"
	"slices"

	"github.com/discolab/disco/engine/neural"
)

// A narrower network fits as well as the first when its validation fit
// error is at most (1 + screenSlack) times the first's plus screenFloor.
// On exact data the fit error is the network's precision, not the noise's,
// and trainings with other seeds differ by up to screenFloor; with noise
// the slack is a share of the error. Both are less than a relativistic factor's weak variable (v in
// m·c²/√(1 − v²/c²)) leaves when dropped. A split's allowance
// (neural.Model.SplitTolerance) let such a variable go, and comparing with
// each accepted network rather than the first let the error grow round by
// round (test/bench/README.md, changelog "Neural scale 1").
const (
	screenSlack = 0.1
	screenFloor = 0.01
)

// maxScreenRetrains bounds the networks screenSurrogate trains after the
// first.
const maxScreenRetrains = 4

// screenSurrogate trains the neural surrogate on the columns of X, then
// again on the columns it uses, and keeps the narrower network when it
// fits as well: backward elimination of inputs by the network's own
// sensitivities (recursive feature elimination, Guyon et al. 2002, Machine
// Learning 46:389). It returns the model and the columns of X it reads, in
// order, and the columns of X the model uses (partitionColumns).
//
// The rule: the columns whose importance (neural.Model.Importance on a
// thinned probe of the rows) is below importanceShare of the largest are
// dropped, and the network trained on the rest replaces the wider one when
// its validation fit error √(1 − R²) is about the first network's
// (fitsAsWell): a dropped column that mattered leaves its effect in the
// fit error, one that did not costs nothing. When the narrower network
// fits worse, the less important half of the dropped columns is tried
// instead, so that one weak but real column does not keep every idle one.
// A network trained on the 2,000 training rows of a wide table fits the
// idle columns as well as the law's, and its structure names every column;
// the narrower network fits the law and names only its variables. At most
// maxScreenRetrains networks after the first; a network the context cuts
// short is not kept.
func screenSurrogate(ctx context.Context, X [][]float64, y []float64, opts neural.Options) (m *neural.Model, cols, used []int, err error) {
	cols = seq(0, len(X))
	m, err = neural.Train(ctx, X, y, withProgress(opts, 0, screenFirstShare))
	if err != nil {
		return nil, nil, nil, err
	}
	first := m
	used, drop := partitionColumns(m, X)
	step := (1 - screenFirstShare) / maxScreenRetrains
	for k := range maxScreenRetrains {
		if len(drop) == 0 {
			break
		}
		narrow := without(cols, pickRows(cols, drop))
		lo := screenFirstShare + float64(k)*step
		m2 := trainWhole(ctx, pickRows(X, narrow), y, withProgress(opts, lo, lo+step))
		if m2 == nil {
			break
		}
		if fitsAsWell(m2, first) {
			m, cols = m2, narrow
			used, drop = partitionColumns(m, pickRows(X, cols))
		} else {
			drop = drop[:len(drop)/2]
		}
	}
	if opts.Progress != nil {
		opts.Progress(1)
	}
	return m, cols, pickRows(cols, used), nil
}

// screenFirstShare is the share of screenSurrogate's progress given to the
// first network; each retraining gets an equal part of the rest.
const screenFirstShare = 0.6

// withProgress maps a training's progress, 0 to 1, onto lo to hi of the
// caller's.
func withProgress(opts neural.Options, lo, hi float64) neural.Options {
	if report := opts.Progress; report != nil {
		opts.Progress = func(p float64) { report(lo + (hi-lo)*p) }
	}
	return opts
}

// trainWhole trains a network and returns it, or nil when the training
// failed or the context cut it short.
func trainWhole(ctx context.Context, X [][]float64, y []float64, opts neural.Options) *neural.Model {
	m, err := neural.Train(ctx, X, y, opts)
	if err != nil {
		return nil
	}
	return m
}

// partitionColumns splits the inputs of m, indexes into X, by their
// importance on a probe of X's rows: used, at least importanceShare of the
// largest, in order; idle, the rest, least important first. A flat model
// uses none and has none idle.
func partitionColumns(m *neural.Model, X [][]float64) (used, idle []int) {
	imp, top := importance(m, X)
	if top == 0 {
		return nil, nil
	}
	for j, v := range imp {
		if v >= importanceShare*top {
			used = append(used, j)
		} else {
			idle = append(idle, j)
		}
	}
	slices.SortStableFunc(idle, func(a, b int) int { return cmp.Compare(imp[a], imp[b]) })
	return used, idle
}

// importance is m's importance of each input on a probe of X's rows, and
// the largest.
func importance(m *neural.Model, X [][]float64) ([]float64, float64) {
	imp := m.Importance(rowsOf(X, thin(seq(0, len(X[0])), separabilityRows)))
	top := 0.0
	for _, v := range imp {
		top = math.Max(top, v)
	}
	return imp, top
}

// without returns cols less the members of drop, in order.
func without(cols, drop []int) []int {
	var out []int
	for _, j := range cols {
		if !slices.Contains(drop, j) {
			out = append(out, j)
		}
	}
	return out
}

// fitsAsWell reports whether narrow's validation fit error is within
// screenSlack and screenFloor of wide's.
func fitsAsWell(narrow, wide *neural.Model) bool {
	fitErr := func(m *neural.Model) float64 { return math.Sqrt(math.Max(0, 1-m.ValidationR2())) }
	return fitErr(narrow) <= (1+screenSlack)*fitErr(wide)+screenFloor
}
