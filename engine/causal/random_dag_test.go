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

// simulateScaledSEM is simulateSEM with every variable rescaled to unit
// variance as soon as it is generated, so weights act on standardised
// parents. Without it variances grow along long paths and a late node's
// direct parents explain almost none of its variance (population partial
// correlations of 0.005 for edges with weight 1), which measures the
// simulator rather than the search.
func simulateScaledSEM(rng *rand.Rand, n int, nodes []string, edges []semEdge, noise func(*rand.Rand) float64) [][]float64 {
	idx := map[string]int{}
	for i, s := range nodes {
		idx[s] = i
	}
	X := make([][]float64, len(nodes))
	for j, name := range nodes {
		col := make([]float64, n)
		for i := range col {
			col[i] = noise(rng)
		}
		for _, e := range edges {
			if e.To == name {
				for i := range col {
					col[i] += e.Weight * X[idx[e.From]][i]
				}
			}
		}
		standardizeInPlace(col)
		X[j] = col
	}
	return X
}
