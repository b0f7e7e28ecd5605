package causal

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDiscoverColliderAndChain(t *testing.T) {
	// Two disconnected pieces: a collider x → z ← y and a chain a → b → c.
	nodes := []string{"x", "y", "z", "a", "b", "c"}
	edges := []semEdge{{"x", "z", 0.8}, {"y", "z", -0.7}, {"a", "b", 0.8}, {"b", "c", 0.7}}
	X := simulateSEM(rand.New(rand.NewPCG(1, 2)), 2000, nodes, edges, gaussianNoise)
	g, err := Discover(context.Background(), X, nodes, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantDirected(t, g, "x", "z", OrientedByPC)
	wantDirected(t, g, "y", "z", OrientedByPC)
	wantAbsent(t, g, "x", "y")
	// The chain's Markov equivalence class leaves both edges undirected and
	// the data are Gaussian, so LiNGAM must not orient them either.
	wantUndirected(t, g, "a", "b")
	wantUndirected(t, g, "b", "c")
	wantAbsent(t, g, "a", "c")
	if len(g.Edges) != 4 {
		t.Errorf("got %d edges, want 4: %+v", len(g.Edges), g.Edges)
	}
	e, _ := findEdge(g, "x", "z")
	if math.Abs(e.EffectStrength-0.8/math.Sqrt(0.64+0.49+1)) > 0.05 {
		t.Errorf("x → z effect %.3f, want about %.3f", e.EffectStrength, 0.8/math.Sqrt(2.13))
	}
	if e.Confidence < 0.9 || e.Confidence > 1 {
		t.Errorf("x → z confidence %.3f, want in [0.9, 1]", e.Confidence)
	}
}

func TestDiscoverMeekR1(t *testing.T) {
	// x → z ← y makes z a collider; z → w is then compelled by R1 because
	// x and w are not adjacent.
	nodes := []string{"x", "y", "z", "w"}
	edges := []semEdge{{"x", "z", 0.8}, {"y", "z", 0.8}, {"z", "w", 0.6}}
	X := simulateSEM(rand.New(rand.NewPCG(3, 4)), 2000, nodes, edges, gaussianNoise)
	g, err := Discover(context.Background(), X, nodes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantDirected(t, g, "x", "z", OrientedByPC)
	wantDirected(t, g, "y", "z", OrientedByPC)
	wantDirected(t, g, "z", "w", OrientedByMeek)
	if SHD(g, [][2]string{{"x", "z"}, {"y", "z"}, {"z", "w"}}) != 0 {
		t.Errorf("SHD %d, want 0; edges %+v", SHD(g, [][2]string{{"x", "z"}, {"y", "z"}, {"z", "w"}}), g.Edges)
	}
}

func TestDiscoverLiNGAMPair(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to string
	}{
		{"x causes y", "x", "y"},
		{"y causes x", "y", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Constructed with the cause first; columns are always (x, y) so
			// the algorithm cannot read the direction off the column order.
			X := simulateSEM(rand.New(rand.NewPCG(5, 6)), 1000, []string{tc.from, tc.to},
				[]semEdge{{tc.from, tc.to, 0.8}}, uniformNoise)
			if tc.from == "y" {
				X[0], X[1] = X[1], X[0]
			}
			g, err := Discover(context.Background(), X, []string{"x", "y"}, Options{Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			wantDirected(t, g, tc.from, tc.to, OrientedByLiNGAM)
			e, _ := findEdge(g, tc.from, tc.to)
			if e.Confidence < 0.5 || e.Confidence > lingamDiscount {
				t.Errorf("LiNGAM confidence %.3f, want in [0.5, %v]", e.Confidence, lingamDiscount)
			}
		})
	}
}

func TestDiscoverGaussianPairStaysUndirected(t *testing.T) {
	for seed := uint64(0); seed < 5; seed++ {
		X := simulateSEM(rand.New(rand.NewPCG(seed, 9)), 1000, []string{"x", "y"},
			[]semEdge{{"x", "y", 0.8}}, gaussianNoise)
		g, err := Discover(context.Background(), X, []string{"x", "y"}, Options{Seed: int64(seed)})
		if err != nil {
			t.Fatal(err)
		}
		wantUndirected(t, g, "x", "y")
	}
}

func TestDiscoverLiNGAMRefusesMisspecifiedPair(t *testing.T) {
	// y = 0.8x + (0.2+|x|)·e is non-Gaussian but heteroscedastic: the
	// residual of y on x is not independent of x, so the linear
	// non-Gaussian model does not hold in either direction and the edge must
	// stay undirected.
	rng := rand.New(rand.NewPCG(13, 14))
	n := 1000
	x, y := make([]float64, n), make([]float64, n)
	for i := range n {
		x[i] = uniformNoise(rng)
		y[i] = 0.8*x[i] + (0.2+math.Abs(x[i]))*uniformNoise(rng)
	}
	g, err := Discover(context.Background(), [][]float64{x, y}, []string{"x", "y"}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	wantUndirected(t, g, "x", "y")
}

func TestDiscoverLiNGAMChainNonGaussian(t *testing.T) {
	// PC alone cannot orient a chain; with uniform noise LiNGAM orients one
	// edge and Meek or LiNGAM the other, both correctly.
	nodes := []string{"a", "b", "c"}
	X := simulateSEM(rand.New(rand.NewPCG(11, 12)), 2000, nodes,
		[]semEdge{{"a", "b", 0.8}, {"b", "c", 0.8}}, uniformNoise)
	g, err := Discover(context.Background(), X, nodes, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range [][2]string{{"a", "b"}, {"b", "c"}} {
		got, ok := findEdge(g, e[0], e[1])
		if !ok || !got.Directed || got.From != e[0] {
			t.Errorf("want %s → %s, got %+v", e[0], e[1], got)
		}
	}
	pc, err := Discover(context.Background(), X, nodes, Options{DisableLiNGAM: true})
	if err != nil {
		t.Fatal(err)
	}
	wantUndirected(t, pc, "a", "b")
	wantUndirected(t, pc, "b", "c")
}

func TestPCIsOrderIndependent(t *testing.T) {
	nodes, edges := randomDAG(rand.New(rand.NewPCG(21, 22)), 12, 0.25)
	X := simulateSEM(rand.New(rand.NewPCG(23, 24)), 500, nodes, edges, gaussianNoise)
	g1, err := Discover(context.Background(), X, nodes, Options{DisableLiNGAM: true})
	if err != nil {
		t.Fatal(err)
	}
	// Reverse the column order.
	rn := make([]string, len(nodes))
	rX := make([][]float64, len(X))
	for i := range nodes {
		rn[len(nodes)-1-i] = nodes[i]
		rX[len(nodes)-1-i] = X[i]
	}
	g2, err := Discover(context.Background(), rX, rn, Options{DisableLiNGAM: true})
	if err != nil {
		t.Fatal(err)
	}
	m1, m2 := pairMarks(g1.Edges), pairMarks(g2.Edges)
	if len(m1) != len(m2) {
		t.Fatalf("%d vs %d adjacencies after reordering", len(m1), len(m2))
	}
	// The skeleton (PC-stable) and the collider decisions (majority rule)
	// do not depend on the column order, so neither does the pattern.
	for k, v := range m1 {
		if m2[k] != v {
			t.Errorf("pair %v: mark %v vs %v after reordering", k, v, m2[k])
		}
	}
}

func TestDiscoverRejectsBadInput(t *testing.T) {
	ctx := context.Background()
	col := []float64{1, 2, 3, 4, 5, 6}
	for name, tc := range map[string]struct {
		X     [][]float64
		names []string
	}{
		"name count":   {[][]float64{col, col}, []string{"a"}},
		"duplicate":    {[][]float64{col, col}, []string{"a", "a"}},
		"ragged":       {[][]float64{col, col[:3]}, []string{"a", "b"}},
		"constant":     {[][]float64{col, {1, 1, 1, 1, 1, 1}}, []string{"a", "b"}},
		"nan":          {[][]float64{col, {1, math.NaN(), 3, 4, 5, 6}}, []string{"a", "b"}},
		"no variables": {nil, nil},
	} {
		if _, err := Discover(ctx, tc.X, tc.names, Options{}); err == nil {
			t.Errorf("%s: want error", name)
		}
	}
}

func TestDiscoverHonoursCancellation(t *testing.T) {
	nodes, edges := randomDAG(rand.New(rand.NewPCG(1, 1)), 10, 0.3)
	X := simulateSEM(rand.New(rand.NewPCG(2, 2)), 200, nodes, edges, gaussianNoise)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Discover(ctx, X, nodes, Options{}); err == nil {
		t.Fatal("want context error")
	}
}

func TestDOT(t *testing.T) {
	g := &Graph{Nodes: []string{"a", "b", `c"q`}, Edges: []Edge{
		{From: "a", To: "b", Directed: true, OrientedBy: "pc", EffectStrength: 0.5, Confidence: 0.9},
		{From: "a", To: `c"q`, EffectStrength: -0.25},
		{From: "b", To: "a", Directed: true, OrientedBy: "lag", Lag: 2},
	}}
	dot := g.DOT()
	for _, want := range []string{
		"digraph causal {",
		`"a" -> "b" [label="0.50"`,
		`"a" -> "c\"q" [label="-0.25", dir=none`,
		`label="lag 2: 0.00"`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("DOT lacks %q:\n%s", want, dot)
		}
	}
}

func TestDiscoverGaussianSEMHasNoLiNGAMOrientations(t *testing.T) {
	nodes, edges := randomDAG(rand.New(rand.NewPCG(31, 32)), 20, 0.15)
	X := simulateScaledSEM(rand.New(rand.NewPCG(33, 34)), 1000, nodes, edges, gaussianNoise)
	g, err := Discover(context.Background(), X, nodes, Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	undirected := 0
	for _, e := range g.Edges {
		if e.OrientedBy == OrientedByLiNGAM {
			t.Errorf("Gaussian data oriented by LiNGAM: %+v", e)
		}
		if !e.Directed {
			undirected++
		}
	}
	if undirected == 0 {
		t.Log("note: PC and Meek oriented every edge, so LiNGAM had nothing to decide")
	}
	if _, _, f1 := SkeletonF1(g, trueEdgeList(edges)); f1 < 0.8 {
		t.Errorf("skeleton F1 %.2f, want ≥ 0.8", f1)
	}
}
