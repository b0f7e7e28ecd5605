package causal

// pdag is a partially directed graph over variables 0..n-1 in the marks
// convention of pcalg: mark[i][j] says the edge between i and j may point
// into j. Hence
//
//	i — j  when mark[i][j] && mark[j][i]
//	i → j  when mark[i][j] && !mark[j][i]
//	no edge when neither is set.
//
// conf[i][j] carries the orientation confidence of a directed edge i → j and
// by[i][j] what oriented it.
type pdag struct {
	n    int
	mark [][]bool
	conf [][]float64
	by   [][]string
	// ambiguous holds unshielded triples (i, k, j), keyed by tripleKey,
	// whose separating sets disagree about k; Meek's rules must not treat
	// them as non-colliders.
	ambiguous map[[3]int]bool
}

// tripleKey identifies the unshielded triple i — k — j regardless of the
// order of its ends.
func tripleKey(i, k, j int) [3]int {
	if j < i {
		i, j = j, i
	}
	return [3]int{i, k, j}
}

func (g *pdag) isAmbiguous(i, k, j int) bool { return g.ambiguous[tripleKey(i, k, j)] }

func newPDAG(n int) *pdag {
	g := &pdag{n: n, mark: make([][]bool, n), conf: make([][]float64, n), by: make([][]string, n), ambiguous: map[[3]int]bool{}}
	for i := range n {
		g.mark[i] = make([]bool, n)
		g.conf[i] = make([]float64, n)
		g.by[i] = make([]string, n)
	}
	return g
}

// complete returns the complete undirected graph PC starts from.
func completePDAG(n int) *pdag {
	g := newPDAG(n)
	for i := range n {
		for j := range n {
			g.mark[i][j] = i != j
		}
	}
	return g
}

func (g *pdag) adjacent(i, j int) bool   { return g.mark[i][j] || g.mark[j][i] }
func (g *pdag) undirected(i, j int) bool { return g.mark[i][j] && g.mark[j][i] }

// directed reports i → j.
func (g *pdag) directed(i, j int) bool { return g.mark[i][j] && !g.mark[j][i] }

func (g *pdag) addUndirected(i, j int) { g.mark[i][j], g.mark[j][i] = true, true }

func (g *pdag) removeEdge(i, j int) { g.mark[i][j], g.mark[j][i] = false, false }

// orient turns i — j into i → j, recording why and how sure we are.
func (g *pdag) orient(i, j int, by string, conf float64) {
	g.mark[i][j], g.mark[j][i] = true, false
	g.by[i][j] = by
	g.conf[i][j] = conf
}

// neighbours lists every node adjacent to i, in index order.
func (g *pdag) neighbours(i int) []int {
	var out []int
	for j := range g.n {
		if g.adjacent(i, j) {
			out = append(out, j)
		}
	}
	return out
}

// parents lists the nodes k with k → i.
func (g *pdag) parents(i int) []int {
	var out []int
	for k := range g.n {
		if g.directed(k, i) {
			out = append(out, k)
		}
	}
	return out
}

// hasDirectedPath reports whether a path from → … → to exists using
// directed edges only.
func (g *pdag) hasDirectedPath(from, to int) bool {
	seen := make([]bool, g.n)
	stack := []int{from}
	seen[from] = true
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for w := range g.n {
			if !g.directed(v, w) || seen[w] {
				continue
			}
			if w == to {
				return true
			}
			seen[w] = true
			stack = append(stack, w)
		}
	}
	return false
}

// clone returns a deep copy.
func (g *pdag) clone() *pdag {
	c := newPDAG(g.n)
	for i := range g.n {
		copy(c.mark[i], g.mark[i])
		copy(c.conf[i], g.conf[i])
		copy(c.by[i], g.by[i])
	}
	for k, v := range g.ambiguous {
		c.ambiguous[k] = v
	}
	return c
}
