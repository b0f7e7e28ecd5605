package causal

import "testing"

// buildPDAG makes a pdag from "a->b" and "a-b" edges over single-letter
// nodes a, b, c, ... (index = letter - 'a').
func buildPDAG(n int, directed, undirected [][2]int) *pdag {
	g := newPDAG(n)
	for _, e := range undirected {
		g.addUndirected(e[0], e[1])
	}
	for _, e := range directed {
		g.addUndirected(e[0], e[1])
		g.orient(e[0], e[1], OrientedByPC, 1)
	}
	return g
}

func onesMatrix(n int) [][]float64 {
	m := make([][]float64, n)
	for i := range m {
		m[i] = make([]float64, n)
		for j := range m[i] {
			m[i][j] = 1
		}
	}
	return m
}

func TestMeekRules(t *testing.T) {
	const a, b, c, d = 0, 1, 2, 3
	for _, tc := range []struct {
		name       string
		directed   [][2]int
		undirected [][2]int
		want       [][2]int // edges that must end up directed this way
		stay       [][2]int // edges that must stay undirected
	}{
		{"R1 a->b-c", [][2]int{{a, b}}, [][2]int{{b, c}}, [][2]int{{b, c}}, nil},
		{"R1 blocked when a-c adjacent", [][2]int{{a, b}}, [][2]int{{b, c}, {a, c}}, nil, [][2]int{{b, c}, {a, c}}},
		{"R2 a->b->c, a-c", [][2]int{{a, b}, {b, c}}, [][2]int{{a, c}}, [][2]int{{a, c}}, nil},
		// R3: a-b, a-c, a-d with b->d, c->d and b, c non-adjacent: a->d.
		{"R3 kite", [][2]int{{b, d}, {c, d}}, [][2]int{{a, b}, {a, c}, {a, d}}, [][2]int{{a, d}}, [][2]int{{a, b}, {a, c}}},
		// R4: a-b, b->c->d, a-d, a-c, b and d non-adjacent: a->d.
		{"R4", [][2]int{{b, c}, {c, d}}, [][2]int{{a, b}, {a, d}, {a, c}}, [][2]int{{a, d}}, nil},
		{"undirected chain stays", nil, [][2]int{{a, b}, {b, c}}, nil, [][2]int{{a, b}, {b, c}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := buildPDAG(4, tc.directed, tc.undirected)
			applyMeek(g, onesMatrix(4))
			for _, e := range tc.want {
				if !g.directed(e[0], e[1]) {
					t.Errorf("want %d → %d", e[0], e[1])
				} else if g.by[e[0]][e[1]] != OrientedByMeek {
					t.Errorf("%d → %d oriented by %q", e[0], e[1], g.by[e[0]][e[1]])
				}
			}
			for _, e := range tc.stay {
				if !g.undirected(e[0], e[1]) {
					t.Errorf("want %d — %d undirected", e[0], e[1])
				}
			}
		})
	}
}

func TestMeekConfidencePropagates(t *testing.T) {
	// a → b (orientation confidence 0.8, adjacency 0.9) implies b → c; its
	// orientation confidence is the full confidence of a → b.
	g := buildPDAG(3, nil, [][2]int{{0, 1}, {1, 2}})
	g.orient(0, 1, OrientedByPC, 0.8)
	conf := onesMatrix(3)
	conf[0][1], conf[1][0] = 0.9, 0.9
	applyMeek(g, conf)
	if !g.directed(1, 2) || abs(g.conf[1][2]-0.72) > 1e-12 {
		t.Fatalf("b → c: directed=%v conf=%v, want true 0.72", g.directed(1, 2), g.conf[1][2])
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
