package symbolic

import (
	"math"

	"github.com/discolab/disco/engine/units"
)

// Dimensional consistency.
//
// The rule: an expression is dimensionally consistent when there is an
// assignment of units to its fitted constants under which every sum and
// difference adds terms of one dimension, the arguments of sin, cos, tan,
// exp, log, tanh, asin and cosh are dimensionless (and so are their
// values), and (for a printed model, whose constants include the linear
// scaling a + b·f) the whole has the target's dimension. This is the
// principle of dimensional homogeneity behind
// Buckingham's π theorem (Buckingham 1914, Phys. Rev. 4, 345) and the
// dimensional-analysis step of AI Feynman (Udrescu & Tegmark 2020, Sci.
// Adv. 6, eaay2631); letting each constant carry whatever unit it needs is
// PySR's default for constants under units. A constant may stand for a
// dimensional constant of nature (g, k in F = k·x, a time constant τ in
// exp(−t/τ)), so a law is never refused for needing one, only for adding
// or transcending quantities that no choice of constants can reconcile,
// such as x + t with x in metres and t in seconds.
//
// The check is linear: a node's dimension is d + Σ_k c_k·u_k with d and c
// known and u_k the unknown dimension of constant k, so each rule is a
// linear equation in the u_k, the same for each of the seven base units,
// and the expression is consistent when that system is solvable.

// dimForm is the dimension d + Σ_k c[k]·u_k of a node.
type dimForm struct {
	d [units.NumBase]float64
	c []float64
}

// dimEquation is Σ_k c[k]·u_k = rhs.
type dimEquation struct {
	c   []float64
	rhs [units.NumBase]float64
}

// dimTolerance absorbs rounding in exponents built from halves and small
// integers.
const dimTolerance = 1e-9

// dimensionallyConsistent reports whether t is consistent under the rule
// above, given each variable's dimension (vars[j] nil: unknown, and then t
// must not use j). With target non-nil the root must have that dimension.
// ok is false when t uses a variable of unknown dimension.
func dimensionallyConsistent(t tree, vars []*units.Dim, target *units.Dim) (consistent, ok bool) {
	k := t.numConsts()
	st := make([]dimForm, 0, len(t))
	var eqs []dimEquation
	// equate adds the equation l = r.
	equate := func(l, r dimForm) {
		e := dimEquation{c: make([]float64, k)}
		for i := range e.c {
			e.c[i] = l.c[i] - r.c[i]
		}
		for i := range e.rhs {
			e.rhs[i] = r.d[i] - l.d[i]
		}
		eqs = append(eqs, e)
	}
	dimensionless := dimForm{c: make([]float64, k)}
	next := 0
	for _, nd := range t {
		switch nd.op {
		case opConst:
			f := dimForm{c: make([]float64, k)}
			f.c[next] = 1
			next++
			st = append(st, f)
		case opVar:
			if int(nd.v) >= len(vars) || vars[nd.v] == nil {
				return false, false
			}
			st = append(st, dimForm{d: vars[nd.v].Floats(), c: make([]float64, k)})
		case opAdd, opSub, opMul, opDiv:
			l, r := st[len(st)-2], st[len(st)-1]
			st = st[:len(st)-1]
			switch nd.op {
			case opAdd, opSub:
				equate(l, r)
			case opMul:
				st[len(st)-1] = scaledSum(l, r, 1)
			case opDiv:
				st[len(st)-1] = scaledSum(l, r, -1)
			}
		case opPow, opSqrt:
			p := nd.c
			if nd.op == opSqrt {
				p = 0.5
			}
			st[len(st)-1] = scaledSum(dimForm{c: make([]float64, k)}, st[len(st)-1], p)
		case opAbs:
		default: // sin cos tan exp log tanh asin cosh
			equate(st[len(st)-1], dimensionless)
			st[len(st)-1] = dimensionless
		}
	}
	if target != nil {
		equate(st[0], dimForm{d: target.Floats(), c: make([]float64, k)})
	}
	return solvable(eqs, k), true
}

// scaledSum is l + s·r.
func scaledSum(l, r dimForm, s float64) dimForm {
	out := dimForm{d: l.d, c: make([]float64, len(l.c))}
	for i := range out.d {
		out.d[i] += s * r.d[i]
	}
	for i := range out.c {
		out.c[i] = l.c[i] + s*r.c[i]
	}
	return out
}

// solvable reports whether the linear system has a solution, by Gaussian
// elimination with partial pivoting on the constants' columns: it is
// solvable unless a row whose coefficients all vanish keeps a non-zero
// right-hand side.
func solvable(eqs []dimEquation, k int) bool {
	row := 0
	for col := 0; col < k && row < len(eqs); col++ {
		p, best := -1, dimTolerance
		for r := row; r < len(eqs); r++ {
			if a := math.Abs(eqs[r].c[col]); a > best {
				p, best = r, a
			}
		}
		if p < 0 {
			continue
		}
		eqs[row], eqs[p] = eqs[p], eqs[row]
		pv := eqs[row]
		for r := row + 1; r < len(eqs); r++ {
			f := eqs[r].c[col] / pv.c[col]
			if f == 0 {
				continue
			}
			for j := col; j < k; j++ {
				eqs[r].c[j] -= f * pv.c[j]
			}
			for j := range eqs[r].rhs {
				eqs[r].rhs[j] -= f * pv.rhs[j]
			}
		}
		row++
	}
	for _, e := range eqs[row:] {
		for _, v := range e.rhs {
			if math.Abs(v) > dimTolerance {
				return false
			}
		}
	}
	return true
}

// DimensionallyConsistent reports whether the model's expression is
// dimensionally consistent (the rule of this file) for inputs of the given
// dimensions, in Fit's input order (nil: unknown), and a target of
// dimension target. ok is false when the model uses an input of unknown
// dimension, so that nothing can be said.
func (m *Model) DimensionallyConsistent(inputs []*units.Dim, target units.Dim) (consistent, ok bool) {
	return dimensionallyConsistent(m.t, inputs, &target)
}

// searchDims returns the dimensions the search checks candidates against:
// those of Options when the target and every usable input have one, else
// nil.
func searchDims(o Options, usable []int) ([]*units.Dim, *units.Dim) {
	if o.TargetUnit == nil {
		return nil, nil
	}
	for _, j := range usable {
		if j >= len(o.InputUnits) || o.InputUnits[j] == nil {
			return nil, nil
		}
	}
	return o.InputUnits, o.TargetUnit
}
