package causal

import (
	"fmt"
	"math/rand/v2"
)

// randomDAG draws an Erdős–Rényi DAG over p nodes (topologically ordered
// v00, v01, …) with edge probability prob and weights of magnitude in
// [0.5, 1.5] with random sign.
func randomDAG(rng *rand.Rand, p int, prob float64) ([]string, []semEdge) {
	nodes := make([]string, p)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("v%02d", i)
	}
	var edges []semEdge
	for i := range p {
		for j := i + 1; j < p; j++ {
			if rng.Float64() < prob {
				w := 0.5 + rng.Float64()
				if rng.IntN(2) == 0 {
					w = -w
				}
				edges = append(edges, semEdge{nodes[i], nodes[j], w})
			}
		}
	}
	return nodes, edges
}

func trueEdgeList(edges []semEdge) [][2]string {
	out := make([][2]string, len(edges))
	for i, e := range edges {
		out[i] = [2]string{e.From, e.To}
	}
	return out
}
