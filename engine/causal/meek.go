package causal

// applyMeek orients undirected edges with Meek's rules R1–R4 until none
// applies. For an undirected edge i — j, i → j is implied when
//
//	R1: some k → i with k and j not adjacent (else a new collider at i);
//	    skipped when the triple k, i, j is ambiguous;
//	R2: i → k → j for some k (else a cycle);
//	R3: i — k → j and i — l → j with k and l not adjacent (else a cycle or
//	    a new collider), unless the triple k, i, l is ambiguous;
//	R4: i — k → l → j with k and j not adjacent and l adjacent to i.
//
// The orientation confidence of the implied edge is the smallest full
// confidence (adjacency × orientation) of the directed edges that imply it,
// maximised over all witnesses. Rules are applied in rounds: every
// orientation the current graph implies is found first and then applied,
// and an edge implied in both directions (contradictory input) stays
// undirected. It returns the number of edges oriented.
func applyMeek(g *pdag, adjConf [][]float64) int {
	full := func(a, b int) float64 { return adjConf[a][b] * g.conf[a][b] }
	oriented := 0
	implied := make([][]float64, g.n)
	for i := range implied {
		implied[i] = make([]float64, g.n)
	}
	for {
		// Collect everything the current graph implies before changing it,
		// so the result does not depend on the order edges are visited.
		for i := range g.n {
			for j := range g.n {
				implied[i][j] = -1
				if i != j && g.undirected(i, j) {
					if conf, ok := meekImplies(g, i, j, full); ok {
						implied[i][j] = conf
					}
				}
			}
		}
		changed := false
		for i := range g.n {
			for j := range g.n {
				// An edge implied both ways comes from contradictory colliders
				// (possible with sampling errors); leave it undirected.
				if implied[i][j] >= 0 && implied[j][i] < 0 {
					g.orient(i, j, OrientedByMeek, implied[i][j])
					oriented++
					changed = true
				}
			}
		}
		if !changed {
			return oriented
		}
	}
}

// meekImplies reports whether any rule orients the undirected edge i — j
// as i → j, with the best witness's confidence.
func meekImplies(g *pdag, i, j int, full func(a, b int) float64) (float64, bool) {
	best, found := 0.0, false
	take := func(c float64) {
		if !found || c > best {
			best, found = c, true
		}
	}
	for k := range g.n {
		if k == i || k == j {
			continue
		}
		// R1 (an ambiguous triple k → i — j is not known to be a
		// non-collider, so it implies nothing)
		if g.directed(k, i) && !g.adjacent(k, j) && !g.isAmbiguous(k, i, j) {
			take(full(k, i))
		}
		// R2
		if g.directed(i, k) && g.directed(k, j) {
			take(min(full(i, k), full(k, j)))
		}
		// R3 and R4 both start from an undirected i — k.
		if !g.undirected(i, k) {
			continue
		}
		for l := range g.n {
			if l == i || l == j || l == k {
				continue
			}
			// R3
			if l > k && g.directed(k, j) && g.undirected(i, l) && g.directed(l, j) && !g.adjacent(k, l) && !g.isAmbiguous(k, i, l) {
				take(min(full(k, j), full(l, j)))
			}
			// R4
			if g.directed(k, l) && g.directed(l, j) && !g.adjacent(k, j) && g.adjacent(i, l) {
				take(min(full(k, l), full(l, j)))
			}
		}
	}
	return best, found
}
