package artifacts

import (
	"cmp"
	"math"
	"slices"
)

// Layered graph layout after Sugiyama, Tagawa and Toda, "Methods for visual
// understanding of hierarchical system structures", IEEE Transactions on
// Systems, Man, and Cybernetics 11(2), 1981, the method behind Graphviz's
// dot:
//
//  1. Cycles are broken by reversing the back edges of a depth-first search
//     (nodes and edges in input order); undirected edges point from the
//     earlier node to the later one. Self loops take no part.
//  2. Longest-path layering: a node sits one layer below the lowest of its
//     parents, so that causes read above their effects; a source then moves
//     down to just above its highest child, and nodes without edges form a
//     row of their own at the bottom.
//  3. Edges that span several layers pass through one dummy node per layer
//     crossed.
//  4. Crossing reduction: alternate downward and upward sweeps order each
//     layer by the barycentre of its neighbours' positions in the layer
//     before (ties keep the current order); the ordering with the fewest
//     crossings seen is kept.
//  5. Coordinates: layers layerGap apart, nodes in a layer nodeGap apart and
//     centred on the widest layer.
//
// The layout is computed here rather than by Graphviz: its pure-Go binding
// (github.com/goccy/go-graphviz, Graphviz compiled to WebAssembly) compiles
// its module when the package is loaded, in every binary that imports it,
// and shares one module instance across the process.
const (
	layerGap     = 110.0
	minNodeGap   = 80.0
	layoutMargin = 60.0
	// maxSweeps bounds the crossing-reduction sweeps (each down and up).
	maxSweeps = 24
	// labelCharWidth estimates the width of a character of a node name at
	// the drawing's font size, to keep names apart.
	labelCharWidth = 7.0
)

// layout is the result of layeredLayout.
type layout struct {
	pos []point // per node
	// via holds, per edge, the points the edge passes between its end nodes
	// (dummy nodes), in From-to-To order; empty for edges between adjacent
	// layers and for self loops.
	via           [][]point
	width, height float64
}

// layeredLayout lays out n nodes with the given edges (indices into the
// nodes, from and to); names size the gap between nodes.
func layeredLayout(names []string, ends [][2]int, directed []bool) layout {
	n := len(names)
	// 1. Orient every non-loop edge and reverse the back edges of a DFS.
	type arc struct{ from, to int }
	arcs := make([]arc, len(ends))
	out := make([][]int, n) // arc indices leaving a node
	for k, e := range ends {
		a := arc{e[0], e[1]}
		if !directed[k] && a.from > a.to {
			a.from, a.to = a.to, a.from
		}
		arcs[k] = a
		if a.from != a.to {
			out[a.from] = append(out[a.from], k)
		}
	}
	state := make([]int, n) // 0 new, 1 on the stack, 2 done
	var visit func(v int)
	visit = func(v int) {
		state[v] = 1
		for _, k := range out[v] {
			w := arcs[k].to
			switch state[w] {
			case 0:
				visit(w)
			case 1:
				arcs[k].from, arcs[k].to = w, v // a back edge: reverse it
			}
		}
		state[v] = 2
	}
	for v := range n {
		if state[v] == 0 {
			visit(v)
		}
	}
	// 2. Longest-path layering in topological order (Kahn, lowest index
	// first).
	indeg := make([]int, n)
	succ := make([][]int, n)
	for _, a := range arcs {
		if a.from != a.to {
			succ[a.from] = append(succ[a.from], a.to)
			indeg[a.to]++
		}
	}
	layer := make([]int, n)
	var ready []int
	for v := range n {
		if indeg[v] == 0 {
			ready = append(ready, v)
		}
	}
	for len(ready) > 0 {
		v := ready[0]
		ready = ready[1:]
		for _, w := range succ[v] {
			layer[w] = max(layer[w], layer[v]+1)
			if indeg[w]--; indeg[w] == 0 {
				ready = append(ready, w)
			}
		}
	}
	// Sources sit right above their highest child rather than on top, which
	// shortens their edges; nodes without edges go to a row of their own
	// below the rest.
	hasPred := make([]bool, n)
	for _, a := range arcs {
		if a.from != a.to {
			hasPred[a.to] = true
		}
	}
	layers := 0
	for v := range n {
		if !hasPred[v] && len(succ[v]) > 0 {
			top := math.MaxInt
			for _, w := range succ[v] {
				top = min(top, layer[w])
			}
			layer[v] = top - 1
		}
		if len(succ[v]) > 0 || hasPred[v] {
			layers = max(layers, layer[v]+1)
		}
	}
	for v := range n {
		if len(succ[v]) == 0 && !hasPred[v] {
			layer[v] = layers
		}
	}
	layers = 0
	for _, l := range layer {
		layers = max(layers, l+1)
	}
	// 3. Dummy nodes: vertex ids n, n+1, ... with their layer; chain[k]
	// lists the vertices of arc k from its upper end to its lower end.
	vlayer := slices.Clone(layer)
	chain := make([][]int, len(arcs))
	for k, a := range arcs {
		if a.from == a.to {
			continue
		}
		c := []int{a.from}
		for l := layer[a.from] + 1; l < layer[a.to]; l++ {
			c = append(c, len(vlayer))
			vlayer = append(vlayer, l)
		}
		chain[k] = append(c, a.to)
	}
	nv := len(vlayer)
	up := make([][]int, nv)   // neighbours in the layer above
	down := make([][]int, nv) // neighbours in the layer below
	for _, c := range chain {
		for i := 1; i < len(c); i++ {
			down[c[i-1]] = append(down[c[i-1]], c[i])
			up[c[i]] = append(up[c[i]], c[i-1])
		}
	}
	order := make([][]int, layers)
	for v, l := range vlayer {
		order[l] = append(order[l], v)
	}
	// 4. Barycentric crossing reduction.
	position := make([]float64, nv)
	place := func() {
		for _, row := range order {
			for i, v := range row {
				position[v] = float64(i)
			}
		}
	}
	place()
	best := cloneOrder(order)
	bestCrossings := crossings(order, down, position)
	sweep := func(from, to, step int, nbrs [][]int) {
		for l := from; l != to; l += step {
			row := order[l]
			bary := make(map[int]float64, len(row))
			for _, v := range row {
				bary[v] = position[v]
				if len(nbrs[v]) > 0 {
					s := 0.0
					for _, w := range nbrs[v] {
						s += position[w]
					}
					bary[v] = s / float64(len(nbrs[v]))
				}
			}
			slices.SortStableFunc(row, func(a, b int) int { return cmp.Compare(bary[a], bary[b]) })
			for i, v := range row {
				position[v] = float64(i)
			}
		}
	}
	for range maxSweeps {
		sweep(1, layers, 1, up)
		sweep(layers-2, -1, -1, down)
		if c := crossings(order, down, position); c < bestCrossings {
			best, bestCrossings = cloneOrder(order), c
		} else if c == bestCrossings {
			break
		}
	}
	order = best
	// 5. Coordinates.
	gap := minNodeGap
	for _, name := range names {
		gap = max(gap, labelCharWidth*float64(len([]rune(name)))+20)
	}
	widest := 0
	for _, row := range order {
		widest = max(widest, len(row))
	}
	// The side margins hold half a name, the top a self loop (drawn above
	// its node, in the gap between layers).
	margin := max(layoutMargin, gap/2)
	top := layoutMargin
	for _, e := range ends {
		if e[0] == e[1] {
			top = max(top, nodeRadius+2*selfLoopSize+layoutMargin/4)
		}
	}
	lay := layout{
		pos:    make([]point, n),
		via:    make([][]point, len(arcs)),
		width:  2*margin + float64(max(widest-1, 0))*gap,
		height: top + layoutMargin + float64(layers-1)*layerGap,
	}
	xy := make([]point, nv)
	for l, row := range order {
		offset := margin + float64(widest-len(row))*gap/2
		for i, v := range row {
			xy[v] = point{offset + float64(i)*gap, top + float64(l)*layerGap}
		}
	}
	copy(lay.pos, xy[:n])
	for k, c := range chain {
		if len(c) <= 2 {
			continue
		}
		pts := make([]point, 0, len(c)-2)
		for _, v := range c[1 : len(c)-1] {
			pts = append(pts, xy[v])
		}
		if arcs[k].from != ends[k][0] {
			slices.Reverse(pts) // the arc was reversed; draw it From to To
		}
		lay.via[k] = pts
	}
	return lay
}

func cloneOrder(order [][]int) [][]int {
	out := make([][]int, len(order))
	for i, row := range order {
		out[i] = slices.Clone(row)
	}
	return out
}

// crossings counts the pairs of edges between adjacent layers that cross,
// given each vertex's position in its layer.
func crossings(order [][]int, down [][]int, position []float64) int {
	total := 0
	for _, row := range order {
		var segs [][2]float64
		for _, v := range row {
			for _, w := range down[v] {
				segs = append(segs, [2]float64{position[v], position[w]})
			}
		}
		for i := range segs {
			for j := i + 1; j < len(segs); j++ {
				a, b := segs[i], segs[j]
				if (a[0]-b[0])*(a[1]-b[1]) < 0 {
					total++
				}
			}
		}
	}
	return total
}

// polylineMid returns the point halfway along the polyline through pts.
func polylineMid(pts []point) point {
	total := 0.0
	for i := 1; i < len(pts); i++ {
		total += math.Hypot(pts[i].x-pts[i-1].x, pts[i].y-pts[i-1].y)
	}
	half := total / 2
	for i := 1; i < len(pts); i++ {
		d := math.Hypot(pts[i].x-pts[i-1].x, pts[i].y-pts[i-1].y)
		if d >= half && d > 0 {
			f := half / d
			return point{pts[i-1].x + f*(pts[i].x-pts[i-1].x), pts[i-1].y + f*(pts[i].y-pts[i-1].y)}
		}
		half -= d
	}
	return pts[len(pts)/2]
}
