package causal

import (
	"context"
	"slices"
)

// Collider decisions for an unshielded triple.
const (
	tripleNonCollider = iota
	tripleCollider
	tripleAmbiguous
)

// orientVStructures decides every unshielded triple i — k — j (i and j not
// adjacent) with the majority rule of Colombo & Maathuis (2014): i and j
// are tested given every subset (up to maxDepth) of the final adjacency
// sets of i and of j, and among the sets that separate them, k is a
// collider when it is in fewer than half, a non-collider when in more than
// half, and ambiguous at exactly half. Unlike reading the single sepset the
// skeleton search happened to find first, this does not depend on the order
// of the variables and is far less prone to false colliders when an edge
// was wrongly removed. When no subset separates i and j, the recorded
// sepset decides.
//
// Colliders are oriented i → k ← j. Conflicts are resolved conservatively:
// when two colliders want opposite arrowheads on the same edge the edge is
// left undirected, since the tests contradict each other.
//
// The orientation confidence of i → k is the adjacency confidence of the
// other arm j — k (the collider needs both edges), taking the best collider
// when several imply the same arrowhead.
func orientVStructures(ctx context.Context, g *pdag, sk *skeletonResult, test *fisherZ, alpha float64, maxDepth int, adjConf [][]float64) error {
	n := g.n
	want := make([][]float64, n) // want[a][b] > 0: some collider implies a → b
	for i := range want {
		want[i] = make([]float64, n)
	}
	propose := func(a, b int, conf float64) {
		// Keep the arrowhead marked even when its confidence is zero.
		want[a][b] = max(want[a][b], conf, 1e-300)
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if g.adjacent(i, j) {
				continue
			}
			var middles []int
			for k := range n {
				if g.adjacent(i, k) && g.adjacent(j, k) {
					middles = append(middles, k)
				}
			}
			if len(middles) == 0 {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			seps := separatingSets(g, test, i, j, alpha, maxDepth)
			for _, k := range middles {
				switch classifyTriple(seps, sk.sepset[i][j], k) {
				case tripleCollider:
					propose(i, k, adjConf[j][k])
					propose(j, k, adjConf[i][k])
				case tripleAmbiguous:
					g.ambiguous[tripleKey(i, k, j)] = true
				}
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
	return nil
}

// separatingSets returns every subset of adj(i) or adj(j) (sizes up to
// maxDepth, each set once) given which i and j test independent.
func separatingSets(g *pdag, test *fisherZ, i, j int, alpha float64, maxDepth int) [][]int {
	var seps [][]int
	seen := map[string]bool{}
	for _, adj := range [][]int{g.neighbours(i), g.neighbours(j)} {
		for size := 0; size <= min(maxDepth, len(adj)); size++ {
			forEachSubset(adj, size, func(s []int) bool {
				key := string(subsetKey(s))
				if seen[key] {
					return true
				}
				seen[key] = true
				if p, _ := test.test(i, j, s); p > alpha {
					seps = append(seps, slices.Clone(s))
				}
				return true
			})
		}
	}
	return seps
}

// subsetKey encodes a sorted subset as a map key.
func subsetKey(s []int) []byte {
	b := make([]byte, 0, 2*len(s))
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8))
	}
	return b
}

// classifyTriple applies the majority rule to the middle node k.
func classifyTriple(seps [][]int, recorded []int, k int) int {
	if len(seps) == 0 {
		if slices.Contains(recorded, k) {
			return tripleNonCollider
		}
		return tripleCollider
	}
	in := 0
	for _, s := range seps {
		if slices.Contains(s, k) {
			in++
		}
	}
	switch {
	case 2*in < len(seps):
		return tripleCollider
	case 2*in > len(seps):
		return tripleNonCollider
	default:
		return tripleAmbiguous
	}
}
