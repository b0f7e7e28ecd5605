package causal

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// populationCorrelation returns the exact correlation matrix of the linear
// Gaussian SEM x = Bᵀx + e with unit noise variances: Σ = (I-B)⁻ᵀ(I-B)⁻¹
// transposed appropriately, scaled to unit diagonal.
func populationCorrelation(nodes []string, edges []semEdge) *mat.SymDense {
	p := len(nodes)
	idx := map[string]int{}
	for i, s := range nodes {
		idx[s] = i
	}
	// x = Wx + e with W[to][from] = weight, so x = (I-W)⁻¹e and
	// Σ = (I-W)⁻¹(I-W)⁻ᵀ.
	iw := mat.NewDense(p, p, nil)
	for i := range p {
		iw.Set(i, i, 1)
	}
	for _, e := range edges {
		iw.Set(idx[e.To], idx[e.From], -e.Weight)
	}
	var inv, cov mat.Dense
	if err := inv.Inverse(iw); err != nil {
		panic(err)
	}
	cov.Mul(&inv, inv.T())
	corr := mat.NewSymDense(p, nil)
	for i := range p {
		for j := i; j < p; j++ {
			corr.SetSym(i, j, cov.At(i, j)/math.Sqrt(cov.At(i, i)*cov.At(j, j)))
		}
	}
	return corr
}

// With the exact correlation matrix and a nominal sample size of 10¹⁸ the
// Fisher-z test calls |r| < 5·10⁻⁹ independent: exact zeros (d-separation,
// which show up as rounding-level values near 10⁻¹⁴) pass and every real
// dependence fails, so the test is an independence oracle and PC-stable
// plus the majority rule plus Meek must return exactly the CPDAG of the
// true DAG. This separates implementation errors from sampling error.
// (With finite n, random linear SEMs often contain edges whose population
// partial correlation given some set is 10⁻⁵ or less — among thousands of
// sets tried, near-cancellations are common — which is why the finite-n
// benchmarks do not reach SHD 0.)
func TestPCOracleRecoversCPDAG(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		nodes, edges := randomDAG(rand.New(rand.NewPCG(seed, 77)), 15, 0.2)
		corr := populationCorrelation(nodes, edges)
		if seed%2 == 0 {
			corr = scaledPopulationCorrelation(nodes, edges)
		}
		const n = 1e18
		test := newFisherZ(corr, n)
		p := len(nodes)
		sk, err := skeletonPCStable(context.Background(), test, p, 1e-6, p-2)
		if err != nil {
			t.Fatal(err)
		}
		adjConf := onesMatrix(p)
		g := sk.g.clone()
		if err := orientVStructures(context.Background(), g, sk, test, 1e-6, p-2, adjConf); err != nil {
			t.Fatal(err)
		}
		applyMeek(g, adjConf)
		est := (&orientedGraph{pdag: g, adjConf: adjConf}).toGraph(nodes, corr)
		if d := SHD(est, trueEdgeList(edges)); d != 0 {
			t.Errorf("seed %d: oracle PC SHD %d against the true CPDAG (%d edges)", seed, d, len(edges))
		}
	}
}

// scaledPopulationCorrelation is the exact correlation matrix of
// simulateScaledSEM: each variable is standardised as soon as it is
// generated, so weights act on unit-variance parents.
func scaledPopulationCorrelation(nodes []string, edges []semEdge) *mat.SymDense {
	p := len(nodes)
	idx := map[string]int{}
	for i, s := range nodes {
		idx[s] = i
	}
	c := mat.NewSymDense(p, nil)
	for j, name := range nodes {
		var pa []int
		var w []float64
		for _, e := range edges {
			if e.To == name {
				pa = append(pa, idx[e.From])
				w = append(w, e.Weight)
			}
		}
		// Covariances of the unscaled x_j with earlier variables, and its
		// variance.
		cov := make([]float64, j)
		for k := range j {
			for a, pk := range pa {
				cov[k] += w[a] * c.At(pk, k)
			}
		}
		v := 1.0
		for a, pa1 := range pa {
			for b, pb := range pa {
				v += w[a] * w[b] * c.At(pa1, pb)
			}
		}
		sd := math.Sqrt(v)
		for k := range j {
			c.SetSym(j, k, cov[k]/sd)
		}
		c.SetSym(j, j, 1)
	}
	return c
}
