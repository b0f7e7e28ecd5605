package artifacts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomDAG has n nodes and about degree*n/2 edges from lower to higher
// index, as the causal mode's 50-variable benchmark graphs.
func randomDAG(n int, degree float64, seed uint64) ([]string, []GraphEdge) {
	rng := rand.New(rand.NewPCG(seed, 3))
	nodes := make([]string, n)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("x%d", i)
	}
	p := degree / float64(n-1)
	var edges []GraphEdge
	for i := range n {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < p {
				edges = append(edges, GraphEdge{From: nodes[i], To: nodes[j], Directed: rng.Float64() < 0.8})
			}
		}
	}
	// Shuffle the node order so that the input order says nothing.
	rng.Shuffle(n, func(a, b int) { nodes[a], nodes[b] = nodes[b], nodes[a] })
	return nodes, edges
}

// segmentCrossings counts the pairs of segments of different edges, with
// no end node in common, that properly cross.
func segmentCrossings(polylines [][]point, ends [][2]int) int {
	total := 0
	for a := range polylines {
		for b := a + 1; b < len(polylines); b++ {
			if ends[a][0] == ends[b][0] || ends[a][0] == ends[b][1] || ends[a][1] == ends[b][0] || ends[a][1] == ends[b][1] {
				continue
			}
			pa, pb := polylines[a], polylines[b]
			for i := 1; i < len(pa); i++ {
				for j := 1; j < len(pb); j++ {
					if segmentsCross(pa[i-1], pa[i], pb[j-1], pb[j]) {
						total++
					}
				}
			}
		}
	}
	return total
}

func segmentsCross(p1, p2, q1, q2 point) bool {
	orient := func(a, b, c point) float64 { return (b.x-a.x)*(c.y-a.y) - (b.y-a.y)*(c.x-a.x) }
	d1, d2 := orient(q1, q2, p1), orient(q1, q2, p2)
	d3, d4 := orient(p1, p2, q1), orient(p1, p2, q2)
	return d1*d2 < 0 && d3*d4 < 0
}

// circlePositions is the former layout: nodes evenly on a circle.
func circlePositions(n int) []point {
	ring := math.Max(110, 18*float64(n))
	c := ring + 90
	pos := make([]point, n)
	for i := range pos {
		angle := 2*math.Pi*float64(i)/float64(n) - math.Pi/2
		pos[i] = point{c + ring*math.Cos(angle), c + ring*math.Sin(angle)}
	}
	return pos
}

// A 50-variable DAG laid out in layers crosses far less than on a circle,
// and every directed edge points downwards.
func TestLayeredLayoutFewerCrossingsThanCircle(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		nodes, edges := randomDAG(50, 2, seed)
		index, err := checkGraph(nodes, edges)
		if err != nil {
			t.Fatal(err)
		}
		ends := make([][2]int, len(edges))
		directed := make([]bool, len(edges))
		for k, e := range edges {
			ends[k], directed[k] = [2]int{index[e.From], index[e.To]}, e.Directed
		}
		lay := layeredLayout(nodes, ends, directed)
		circle := circlePositions(len(nodes))
		var layered, round [][]point
		for k, e := range ends {
			layered = append(layered, append(append([]point{lay.pos[e[0]]}, lay.via[k]...), lay.pos[e[1]]))
			round = append(round, []point{circle[e[0]], circle[e[1]]})
			if directed[k] && lay.pos[e[1]].y <= lay.pos[e[0]].y {
				t.Errorf("seed %d: edge %v does not point down", seed, edges[k])
			}
		}
		cl, cc := segmentCrossings(layered, ends), segmentCrossings(round, ends)
		t.Logf("seed %d: %d edges, crossings layered %d, circle %d", seed, len(edges), cl, cc)
		if cl >= cc/2 {
			t.Errorf("seed %d: %d crossings laid out in layers, %d on a circle", seed, cl, cc)
		}
	}
}

// Cycles (lagged graphs), opposite edges and self loops lay out without
// error, each node once, inside the canvas.
func TestLayeredLayoutCycles(t *testing.T) {
	names := []string{"a", "b", "c", "d"}
	ends := [][2]int{{0, 1}, {1, 2}, {2, 0}, {1, 0}, {3, 3}, {2, 3}}
	lay := layeredLayout(names, ends, []bool{true, true, true, true, true, false})
	seen := map[point]bool{}
	for _, p := range lay.pos {
		if seen[p] {
			t.Errorf("two nodes at %v", p)
		}
		seen[p] = true
		if p.x <= 0 || p.y <= 0 || p.x >= lay.width || p.y >= lay.height {
			t.Errorf("node at %v outside %gx%g", p, lay.width, lay.height)
		}
	}
}
