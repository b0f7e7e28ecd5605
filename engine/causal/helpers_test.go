package causal

import (
	"math"
	"math/rand/v2"
	"testing"
)

// semEdge is one linear structural equation term: To += Weight·From.
type semEdge struct {
	From, To string
	Weight   float64
}

// simulateSEM draws n rows from the linear SEM over nodes (which must be in
// topological order) with independent noise from noise. It returns the
// column-major data.
func simulateSEM(rng *rand.Rand, n int, nodes []string, edges []semEdge, noise func(*rand.Rand) float64) [][]float64 {
	idx := map[string]int{}
	for i, s := range nodes {
		idx[s] = i
	}
	X := make([][]float64, len(nodes))
	for j := range X {
		X[j] = make([]float64, n)
	}
	for i := range n {
		for j, name := range nodes {
			v := noise(rng)
			for _, e := range edges {
				if e.To == name {
					v += e.Weight * X[idx[e.From]][i]
				}
			}
			X[j][i] = v
		}
	}
	return X
}

func gaussianNoise(r *rand.Rand) float64 { return r.NormFloat64() }

// uniformNoise has unit variance.
func uniformNoise(r *rand.Rand) float64 { return (r.Float64() - 0.5) * math.Sqrt(12) }

// findEdge returns the edge between a and b in either direction.
func findEdge(g *Graph, a, b string) (Edge, bool) {
	for _, e := range g.Edges {
		if (e.From == a && e.To == b) || (e.From == b && e.To == a) {
			return e, true
		}
	}
	return Edge{}, false
}

// wantDirected fails unless g has from → to oriented by by.
func wantDirected(t *testing.T, g *Graph, from, to, by string) {
	t.Helper()
	e, ok := findEdge(g, from, to)
	switch {
	case !ok:
		t.Errorf("no edge between %s and %s; edges %+v", from, to, g.Edges)
	case !e.Directed || e.From != from:
		t.Errorf("edge %s–%s = %+v, want %s → %s", from, to, e, from, to)
	case e.OrientedBy != by:
		t.Errorf("%s → %s oriented by %q, want %q", from, to, e.OrientedBy, by)
	}
}

func wantUndirected(t *testing.T, g *Graph, a, b string) {
	t.Helper()
	e, ok := findEdge(g, a, b)
	switch {
	case !ok:
		t.Errorf("no edge between %s and %s; edges %+v", a, b, g.Edges)
	case e.Directed || e.OrientedBy != "":
		t.Errorf("edge %s–%s = %+v, want undirected", a, b, e)
	}
}

func wantAbsent(t *testing.T, g *Graph, a, b string) {
	t.Helper()
	if e, ok := findEdge(g, a, b); ok {
		t.Errorf("unexpected edge %+v", e)
	}
}
