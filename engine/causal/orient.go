package causal

import "slices"

// orientVStructures orients every unshielded triple i — k — j (i and j not
// adjacent) whose middle node is absent from sepset(i, j) as the collider
// i → k ← j.
//
// Conflicts are resolved conservatively: all colliders are collected first,
// and when two colliders want opposite arrowheads on the same edge (a → b
// from one, b → a from another) the edge is left undirected, because the
// tests contradict each other and neither direction is supported. The
// result therefore does not depend on the order of the variables.
//
// adjConf[i][j] is the adjacency confidence of i — j; the orientation
// confidence of i → k is the adjacency confidence of the other arm j — k
// (the collider needs both edges), taking the best collider when several
// imply the same arrowhead.
func orientVStructures(g *pdag, sk *skeletonResult, adjConf [][]float64) {
	n := g.n
	want := make([][]float64, n) // want[a][b] > 0: some collider implies a → b
	for i := range want {
		want[i] = make([]float64, n)
	}
	propose := func(a, b int, conf float64) {
		// Keep the arrowhead marked even when its confidence is zero.
		want[a][b] = max(want[a][b], conf, 1e-300)
	}
	for k := range n {
		nb := g.neighbours(k)
		for x, i := range nb {
			for _, j := range nb[x+1:] {
				if g.adjacent(i, j) || !sk.separated[i][j] || slices.Contains(sk.sepset[i][j], k) {
					continue
				}
				propose(i, k, adjConf[j][k])
				propose(j, k, adjConf[i][k])
			}
		}
	}
	for a := range n {
		for b := range n {
			if want[a][b] > 0 && want[b][a] == 0 && g.undirected(a, b) {
				g.orient(a, b, OrientedByPC, min(want[a][b], 1))
			}
		}
	}
}
