package symbolic

import "math"

// evaluator computes a tree's value on every data row at once. Each stack
// slot owns one row-length buffer, so evaluation allocates nothing after
// warm-up. An evaluator is not safe for concurrent use; each island has one.
type evaluator struct {
	cols  [][]float64 // input columns, read only
	n     int
	bufs  [][]float64
	stack []slot
}

// slot is a stack entry: either a scalar (constant subexpression) or a vector.
type slot struct {
	v     []float64
	c     float64
	konst bool
}

func newEvaluator(cols [][]float64, n int) *evaluator {
	return &evaluator{cols: cols, n: n}
}

func (e *evaluator) buf(i int) []float64 {
	for len(e.bufs) <= i {
		e.bufs = append(e.bufs, make([]float64, e.n))
	}
	return e.bufs[i]
}

// eval returns the values of t on all rows. The returned slice belongs to
// the evaluator (or is an input column) and is valid until the next call.
func (e *evaluator) eval(t tree) []float64 {
	st := e.stack[:0]
	for _, nd := range t {
		switch nd.op {
		case opConst:
			st = append(st, slot{c: nd.c, konst: true})
		case opVar:
			st = append(st, slot{v: e.cols[nd.v]})
		case opAdd, opSub, opMul, opDiv:
			p := len(st) - 2
			l, r := st[p], st[p+1]
			st = st[:p+1]
			if l.konst && r.konst {
				st[p] = slot{c: applyBinary(nd.op, l.c, r.c), konst: true}
				continue
			}
			out := e.buf(p)
			binaryVec(nd.op, l, r, out)
			st[p] = slot{v: out}
		default:
			p := len(st) - 1
			s := st[p]
			if s.konst {
				st[p].c = applyUnary(nd.op, s.c, nd.c)
				continue
			}
			out := e.buf(p)
			unaryVec(nd.op, nd.c, s.v, out)
			st[p] = slot{v: out}
		}
	}
	e.stack = st
	res := st[0]
	if res.konst {
		out := e.buf(0)
		for i := range out {
			out[i] = res.c
		}
		return out
	}
	return res.v
}

func binaryVec(o opcode, l, r slot, out []float64) {
	switch {
	case l.konst:
		b := r.v[:len(out)]
		c := l.c
		switch o {
		case opAdd:
			for i := range out {
				out[i] = c + b[i]
			}
		case opSub:
			for i := range out {
				out[i] = c - b[i]
			}
		case opMul:
			for i := range out {
				out[i] = c * b[i]
			}
		case opDiv:
			for i := range out {
				out[i] = c / b[i]
			}
		}
	case r.konst:
		a := l.v[:len(out)]
		c := r.c
		switch o {
		case opAdd:
			for i := range out {
				out[i] = a[i] + c
			}
		case opSub:
			for i := range out {
				out[i] = a[i] - c
			}
		case opMul:
			for i := range out {
				out[i] = a[i] * c
			}
		case opDiv:
			inv := 1 / c
			for i := range out {
				out[i] = a[i] * inv
			}
		}
	default:
		a := l.v[:len(out)]
		b := r.v[:len(out)]
		switch o {
		case opAdd:
			for i := range out {
				out[i] = a[i] + b[i]
			}
		case opSub:
			for i := range out {
				out[i] = a[i] - b[i]
			}
		case opMul:
			for i := range out {
				out[i] = a[i] * b[i]
			}
		case opDiv:
			for i := range out {
				out[i] = a[i] / b[i]
			}
		}
	}
}

func unaryVec(o opcode, k float64, x, out []float64) {
	x = x[:len(out)]
	switch o {
	case opPow:
		switch k {
		case 2:
			for i, v := range x {
				out[i] = v * v
			}
		case 3:
			for i, v := range x {
				out[i] = v * v * v
			}
		case -1:
			for i, v := range x {
				out[i] = 1 / v
			}
		case -2:
			for i, v := range x {
				out[i] = 1 / (v * v)
			}
		case 0.5:
			for i, v := range x {
				out[i] = math.Sqrt(v)
			}
		default:
			for i, v := range x {
				out[i] = math.Pow(v, k)
			}
		}
	case opSin:
		for i, v := range x {
			out[i] = math.Sin(v)
		}
	case opCos:
		for i, v := range x {
			out[i] = math.Cos(v)
		}
	case opTan:
		for i, v := range x {
			out[i] = math.Tan(v)
		}
	case opExp:
		for i, v := range x {
			out[i] = math.Exp(v)
		}
	case opLog:
		for i, v := range x {
			out[i] = math.Log(v)
		}
	case opSqrt:
		for i, v := range x {
			out[i] = math.Sqrt(v)
		}
	case opAbs:
		for i, v := range x {
			out[i] = math.Abs(v)
		}
	case opTanh:
		for i, v := range x {
			out[i] = math.Tanh(v)
		}
	case opAsin:
		for i, v := range x {
			out[i] = math.Asin(v)
		}
	case opCosh:
		for i, v := range x {
			out[i] = math.Cosh(v)
		}
	}
}
