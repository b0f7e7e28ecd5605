package causal

// applyMeek orients undirected edges with Meek's rules R1–R4 until none
// applies. For an undirected edge i — j, i → j is implied when
//
//	R1: some k → i with k and j not adjacent (else a new collider at i);
//	R2: i → k → j for some k (else a cycle);
//	R3: i — k → j and i — l → j with k and l not adjacent (else a cycle or
//	    a new collider);
//	R4: i — k → l → j with k and j not adjacent and l adjacent to i.
//
// The orientation confidence of the implied edge is the smallest full
// confidence (adjacency × orientation) of the directed edges that imply it,
// maximised over all witnesses. It returns the number of edges oriented.
func applyMeek(g *pdag, adjConf [][]float64) int {
	full := func(a, b int) float64 { return adjConf[a][b] * g.conf[a][b] }
	oriented := 0
	for changed := true; changed; {
		changed = false
		for i := range g.n {
			for j := range g.n {
				if i == j || !g.undirected(i, j) {
					continue
				}
				if conf, ok := meekImplies(g, i, j, full); ok {
					g.orient(i, j, OrientedByMeek, conf)
					oriented++
					changed = true
				}
			}
		}
	}
	return oriented
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
		// R1
		if g.directed(k, i) && !g.adjacent(k, j) {
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
			if l > k && g.directed(k, j) && g.undirected(i, l) && g.directed(l, j) && !g.adjacent(k, l) {
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
