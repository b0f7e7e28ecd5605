package causal

import (
	"context"
	"testing"
	"time"
)

func TestProbeLingam(t *testing.T) {
	nodes, _, X := benchSEM(uniformNoise)
	z, _ := standardize(X)
	corr := correlation(z)
	n := len(X[0])
	opts := Options{Seed: 1}.withDefaults()
	opts.DisableLiNGAM = true
	og, _, _ := discoverPDAG(context.Background(), z, corr, n, opts)
	und := 0
	for i := range og.n { for j := i+1; j < og.n; j++ { if og.undirected(i,j) { und++ } } }
	o := &lingamOrienter{z: z, corr: corr, adjConf: og.adjConf, alpha: 0.05, seed: 1, cache: map[[2]int]cachedEvidence{}}
	start := time.Now()
	a, b, _ := o.orient(context.Background(), og.pdag)
	t.Logf("undirected %d, lingam %d meek %d, cache %d, %v", und, a, b, len(o.cache), time.Since(start))
	_ = nodes
}
