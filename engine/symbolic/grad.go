package symbolic

import "math"

// gradEvaluator evaluates a tree keeping every node's values, then runs
// reverse-mode differentiation to get ∂f/∂c for every constant on every
// row in one backward sweep (the Jacobian that Levenberg–Marquardt needs).
type gradEvaluator struct {
	cols     [][]float64
	n        int
	vals     [][]float64 // per node: its values (may alias an input column)
	own      [][]float64 // per node: owned value buffers
	adj      [][]float64 // per node: ∂f/∂node
	left     []int       // per node: left (or only) child index, −1 for leaves
	right    []int       // per node: right child index, −1 if none
	hasConst []bool      // per node: subtree contains an opConst
	stack    []int
}

func newGradEvaluator(cols [][]float64, n int) *gradEvaluator {
	return &gradEvaluator{cols: cols, n: n}
}

func (g *gradEvaluator) grow(m int) {
	for len(g.own) < m {
		g.own = append(g.own, make([]float64, g.n))
		g.adj = append(g.adj, make([]float64, g.n))
	}
	if cap(g.vals) < m {
		g.vals = make([][]float64, m)
		g.left = make([]int, m)
		g.right = make([]int, m)
		g.hasConst = make([]bool, m)
	}
	g.vals = g.vals[:m]
	g.left = g.left[:m]
	g.right = g.right[:m]
	g.hasConst = g.hasConst[:m]
}

// forward evaluates t, remembering every intermediate vector, and returns
// the root's values.
func (g *gradEvaluator) forward(t tree) []float64 {
	g.grow(len(t))
	if cap(g.stack) < len(t) {
		g.stack = make([]int, len(t))
	}
	st := g.stack[:len(t)]
	sp := 0
	for i, nd := range t {
		g.left[i], g.right[i] = -1, -1
		switch nd.op {
		case opConst:
			out := g.own[i]
			for r := range out {
				out[r] = nd.c
			}
			g.vals[i] = out
			g.hasConst[i] = true
		case opVar:
			g.vals[i] = g.cols[nd.v]
			g.hasConst[i] = false
		case opAdd, opSub, opMul, opDiv:
			l, r := st[sp-2], st[sp-1]
			sp -= 2
			g.left[i], g.right[i] = l, r
			out := g.own[i]
			binaryVec(nd.op, slot{v: g.vals[l]}, slot{v: g.vals[r]}, out)
			g.vals[i] = out
			g.hasConst[i] = g.hasConst[l] || g.hasConst[r]
		default:
			c := st[sp-1]
			sp--
			g.left[i] = c
			out := g.own[i]
			unaryVec(nd.op, nd.c, g.vals[c], out)
			g.vals[i] = out
			g.hasConst[i] = g.hasConst[c]
		}
		st[sp] = i
		sp++
	}
	return g.vals[len(t)-1]
}

// backward fills g.adj[i] with ∂root/∂node_i for every node whose subtree
// holds a constant; forward must have been called on the same tree.
func (g *gradEvaluator) backward(t tree) {
	root := len(t) - 1
	for r := range g.adj[root] {
		g.adj[root][r] = 1
	}
	for i := root; i >= 0; i-- {
		nd := t[i]
		if nd.op.arity() == 0 || !g.hasConst[i] {
			continue
		}
		up := g.adj[i]
		out := g.vals[i]
		l, r := g.left[i], g.right[i]
		if nd.op.arity() == 2 {
			a, b := g.vals[l], g.vals[r]
			da, db := g.adj[l], g.adj[r]
			needL, needR := g.hasConst[l], g.hasConst[r]
			switch nd.op {
			case opAdd:
				if needL {
					copy(da, up)
				}
				if needR {
					copy(db, up)
				}
			case opSub:
				if needL {
					copy(da, up)
				}
				if needR {
					for k, u := range up {
						db[k] = -u
					}
				}
			case opMul:
				if needL {
					for k, u := range up {
						da[k] = u * b[k]
					}
				}
				if needR {
					for k, u := range up {
						db[k] = u * a[k]
					}
				}
			case opDiv:
				if needL {
					for k, u := range up {
						da[k] = u / b[k]
					}
				}
				if needR {
					for k, u := range up {
						db[k] = -u * out[k] / b[k]
					}
				}
			}
			continue
		}
		x := g.vals[l]
		dx := g.adj[l]
		switch nd.op {
		case opPow:
			k := nd.c
			for j, u := range up {
				dx[j] = u * k * pow(x[j], k-1)
			}
		case opSin:
			for j, u := range up {
				dx[j] = u * math.Cos(x[j])
			}
		case opCos:
			for j, u := range up {
				dx[j] = -u * math.Sin(x[j])
			}
		case opTan:
			for j, u := range up {
				dx[j] = u * (1 + out[j]*out[j])
			}
		case opExp:
			for j, u := range up {
				dx[j] = u * out[j]
			}
		case opLog:
			for j, u := range up {
				dx[j] = u / x[j]
			}
		case opSqrt:
			for j, u := range up {
				dx[j] = 0.5 * u / out[j]
			}
		case opAbs:
			for j, u := range up {
				if x[j] < 0 {
					dx[j] = -u
				} else {
					dx[j] = u
				}
			}
		case opTanh:
			for j, u := range up {
				dx[j] = u * (1 - out[j]*out[j])
			}
		case opAsin:
			// d asin(x)/dx = 1/sqrt(1 − x²): +Inf at |x| = 1 and NaN
			// outside, where the value itself is already NaN.
			for j, u := range up {
				dx[j] = u / math.Sqrt(1-x[j]*x[j])
			}
		case opCosh:
			for j, u := range up {
				dx[j] = u * math.Sinh(x[j])
			}
		}
	}
}
