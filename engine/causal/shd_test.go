package causal

import (
	"math"
	"testing"
)

func TestCPDAGHandExamples(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []string
		dag   [][2]string
		// want lists the CPDAG edges as "a->b" or "a-b".
		want []string
	}{
		{"chain", []string{"a", "b", "c"}, [][2]string{{"a", "b"}, {"b", "c"}}, []string{"a-b", "b-c"}},
		{"fork", []string{"a", "b", "c"}, [][2]string{{"b", "a"}, {"b", "c"}}, []string{"a-b", "b-c"}},
		{"collider", []string{"a", "b", "c"}, [][2]string{{"a", "c"}, {"b", "c"}}, []string{"a->c", "b->c"}},
		{"shielded collider", []string{"a", "b", "c"}, [][2]string{{"a", "c"}, {"b", "c"}, {"a", "b"}}, []string{"a-b", "a-c", "b-c"}},
		{"collider with child (R1)", []string{"x", "y", "z", "w"},
			[][2]string{{"x", "z"}, {"y", "z"}, {"z", "w"}}, []string{"x->z", "y->z", "z->w"}},
		{"R2 closes x->w", []string{"x", "y", "z", "w"},
			[][2]string{{"x", "z"}, {"y", "z"}, {"z", "w"}, {"x", "w"}}, []string{"x->z", "y->z", "z->w", "x->w"}},
		{"unknown nodes are added", nil, [][2]string{{"p", "q"}}, []string{"p-q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := CPDAG(tc.nodes, tc.dag)
			got := map[string]bool{}
			for _, e := range g.Edges {
				if e.Directed {
					got[e.From+"->"+e.To] = true
				} else {
					got[e.From+"-"+e.To] = true
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			for _, w := range tc.want {
				if !got[w] {
					t.Errorf("missing %s; got %v", w, got)
				}
			}
		})
	}
}

func TestSHDHandExamples(t *testing.T) {
	chain := [][2]string{{"a", "b"}, {"b", "c"}}
	collider := [][2]string{{"a", "c"}, {"b", "c"}}
	nodes := []string{"a", "b", "c"}
	u := func(a, b string) Edge { return Edge{From: a, To: b} }
	d := func(a, b string) Edge { return Edge{From: a, To: b, Directed: true} }
	for _, tc := range []struct {
		name  string
		edges []Edge
		truth [][2]string
		want  int
	}{
		{"empty vs chain", nil, chain, 2},
		{"exact CPDAG of chain", []Edge{u("a", "b"), u("b", "c")}, chain, 0},
		// Orienting an edge the CPDAG leaves undirected costs 1 even when it
		// agrees with the DAG.
		{"chain with one edge oriented", []Edge{d("a", "b"), u("b", "c")}, chain, 1},
		{"collider exact", []Edge{d("a", "c"), d("b", "c")}, collider, 0},
		{"collider reversed arm", []Edge{d("c", "a"), d("b", "c")}, collider, 1},
		{"collider undirected", []Edge{u("a", "c"), u("b", "c")}, collider, 2},
		{"extra and missing", []Edge{u("a", "b"), d("a", "c")}, collider, 2},
		{"lagged edges fold into one adjacency", []Edge{{From: "a", To: "c", Directed: true, Lag: 1}, {From: "a", To: "c", Directed: true, Lag: 2}, d("b", "c")}, collider, 0},
	} {
		g := &Graph{Nodes: nodes, Edges: tc.edges}
		if got := SHD(g, tc.truth); got != tc.want {
			t.Errorf("%s: SHD = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestSkeletonF1(t *testing.T) {
	truth := [][2]string{{"a", "b"}, {"b", "c"}, {"c", "d"}, {"a", "d"}}
	g := &Graph{Edges: []Edge{
		{From: "b", To: "a", Directed: true}, // true, reversed: still counts
		{From: "b", To: "c"},                 // true
		{From: "a", To: "c"},                 // false positive
	}}
	p, r, f := SkeletonF1(g, truth)
	if math.Abs(p-2.0/3) > 1e-12 || math.Abs(r-0.5) > 1e-12 || math.Abs(f-4.0/7) > 1e-12 {
		t.Errorf("SkeletonF1 = %.4f %.4f %.4f, want 0.6667 0.5 0.5714", p, r, f)
	}
	if p, r, f := SkeletonF1(&Graph{}, truth); p != 0 || r != 0 || f != 0 {
		t.Errorf("empty graph: %v %v %v, want zeros", p, r, f)
	}
}
