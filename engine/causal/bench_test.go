package causal

import (
	"context"
	"math/rand/v2"
	"testing"
)

// benchSEM is a random 50-variable linear SEM (expected degree about 4)
// with 1000 rows.
func benchSEM(noise func(*rand.Rand) float64) ([]string, []semEdge, [][]float64) {
	nodes, edges := randomDAG(rand.New(rand.NewPCG(50, 1)), 50, 0.08)
	X := simulateScaledSEM(rand.New(rand.NewPCG(50, 2)), 1000, nodes, edges, noise)
	return nodes, edges, X
}

// BenchmarkPC50 times the PC-stable part (skeleton, colliders, Meek) on
// Gaussian data and reports the skeleton F1 and SHD it reaches.
func BenchmarkPC50(b *testing.B) {
	nodes, edges, X := benchSEM(gaussianNoise)
	var g *Graph
	b.ResetTimer()
	for b.Loop() {
		var err error
		g, err = Discover(context.Background(), X, nodes, Options{DisableLiNGAM: true})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	_, _, f1 := SkeletonF1(g, trueEdgeList(edges))
	b.ReportMetric(f1, "skeletonF1")
	b.ReportMetric(float64(SHD(g, trueEdgeList(edges))), "SHD")
}

// BenchmarkDiscover50NonGaussian times the full pipeline, LiNGAM included,
// on the same SEM with uniform noise.
func BenchmarkDiscover50NonGaussian(b *testing.B) {
	nodes, edges, X := benchSEM(uniformNoise)
	var g *Graph
	b.ResetTimer()
	for b.Loop() {
		var err error
		g, err = Discover(context.Background(), X, nodes, Options{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	oriented, correct := orientationScore(g, trueEdgeList(edges))
	_, _, f1 := SkeletonF1(g, trueEdgeList(edges))
	b.ReportMetric(f1, "skeletonF1")
	b.ReportMetric(float64(oriented), "oriented")
	b.ReportMetric(float64(correct), "correct")
}
