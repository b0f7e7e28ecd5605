package causal

// CPDAG returns the completed partially directed acyclic graph (essential
// graph) of the DAG with the given directed edges: the edges of every
// unshielded collider a → c ← b are directed (OrientedBy "pc"), Meek's rules
// direct the edges they imply (OrientedBy "meek"), and every other edge is
// undirected. Names in trueEdges that are missing from nodes are appended to
// the node list. All confidences are 1.
func CPDAG(nodes []string, trueEdges [][2]string) *Graph {
	names, index := nodeIndex(nodes, trueEdges)
	n := len(names)
	dag := make([][]bool, n)
	for i := range dag {
		dag[i] = make([]bool, n)
	}
	g := newPDAG(n)
	for _, e := range trueEdges {
		a, b := index[e[0]], index[e[1]]
		if a == b {
			continue
		}
		dag[a][b] = true
		g.addUndirected(a, b)
	}
	for c := range n {
		for a := range n {
			for b := a + 1; b < n; b++ {
				if dag[a][c] && dag[b][c] && !g.adjacent(a, b) {
					g.orient(a, c, OrientedByPC, 1)
					g.orient(b, c, OrientedByPC, 1)
				}
			}
		}
	}
	ones := make([][]float64, n)
	for i := range ones {
		ones[i] = make([]float64, n)
		for j := range ones[i] {
			ones[i][j] = 1
		}
	}
	applyMeek(g, ones)
	out := &Graph{Nodes: names}
	for i := range n {
		for j := range n {
			switch {
			case g.directed(i, j):
				out.Edges = append(out.Edges, Edge{From: names[i], To: names[j], Directed: true, OrientedBy: g.by[i][j], Confidence: 1})
			case i < j && g.undirected(i, j):
				a, b := names[i], names[j]
				if b < a {
					a, b = b, a
				}
				out.Edges = append(out.Edges, Edge{From: a, To: b, Confidence: 1})
			}
		}
	}
	sortEdges(out.Edges)
	return out
}

// nodeIndex returns nodes followed by any new names from edges, and each
// name's position.
func nodeIndex(nodes []string, edges [][2]string) ([]string, map[string]int) {
	names := append([]string(nil), nodes...)
	index := make(map[string]int, len(names))
	for i, s := range names {
		index[s] = i
	}
	for _, e := range edges {
		for _, s := range e {
			if _, ok := index[s]; !ok {
				index[s] = len(names)
				names = append(names, s)
			}
		}
	}
	return names, index
}
