package causal

import (
	"context"
	"errors"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Discover learns a causal graph from i.i.d. data. X is column-major:
// X[j][i] is variable j (named names[j]) at row i.
//
// The skeleton comes from PC-stable with Fisher-z tests at opts.Alpha,
// colliders from the recorded sepsets, then Meek's rules to closure. Unless
// opts.DisableLiNGAM is set, edges still undirected are oriented with the
// pairwise DirectLiNGAM measure when the data are clearly non-Gaussian (see
// lingamOrienter.orient); on Gaussian data they stay undirected.
func Discover(ctx context.Context, X [][]float64, names []string, opts Options) (*Graph, error) {
	opts = opts.withDefaults()
	if err := checkNames(X, names); err != nil {
		return nil, err
	}
	z, err := standardize(X)
	if err != nil {
		return nil, err
	}
	_, n := z.Dims()
	if n < 5 {
		return nil, fmt.Errorf("causal: need at least 5 rows, have %d", n)
	}
	corr := correlation(z)
	g, err := discoverPDAG(ctx, z, corr, n, opts)
	if err != nil {
		return nil, err
	}
	return g.toGraph(names, corr), nil
}

// discoverPDAG runs the whole i.i.d. pipeline on standardised data and
// returns the oriented graph and the adjacency confidences.
func discoverPDAG(ctx context.Context, z *mat.Dense, corr *mat.SymDense, n int, opts Options) (*orientedGraph, error) {
	p, _ := z.Dims()
	test := newFisherZ(corr, n)
	sk, err := skeletonPCStable(ctx, test, p, opts.Alpha, opts.maxDepth(p))
	if err != nil {
		return nil, err
	}
	adjConf := make([][]float64, p)
	for i := range p {
		adjConf[i] = make([]float64, p)
		for j := range p {
			adjConf[i][j] = 1 - sk.maxP[i][j]
		}
	}
	g := sk.g.clone()
	if err := orientVStructures(ctx, g, sk, test, opts.Alpha, opts.maxDepth(p), adjConf); err != nil {
		return nil, err
	}
	applyMeek(g, adjConf)
	if !opts.DisableLiNGAM {
		o := &lingamOrienter{z: z, corr: corr, adjConf: adjConf, alpha: opts.Alpha, seed: opts.Seed, cache: map[[2]int]cachedEvidence{}}
		if _, _, err := o.orient(ctx, g); err != nil {
			return nil, err
		}
	}
	return &orientedGraph{pdag: g, adjConf: adjConf}, nil
}

// orientedGraph is a pdag with its adjacency confidences.
type orientedGraph struct {
	*pdag
	adjConf [][]float64
}

// toGraph converts to the exported form; names[i] names variable i and corr
// gives the effect strengths.
func (g *orientedGraph) toGraph(names []string, corr *mat.SymDense) *Graph {
	out := &Graph{Nodes: append([]string(nil), names...)}
	for i := range g.n {
		for j := range g.n {
			switch {
			case g.directed(i, j):
				out.Edges = append(out.Edges, Edge{
					From: names[i], To: names[j], Directed: true,
					OrientedBy:     g.by[i][j],
					Confidence:     clamp01(g.adjConf[i][j] * g.conf[i][j]),
					EffectStrength: effectStrength(g.pdag, corr, i, j),
				})
			case i < j && g.undirected(i, j):
				a, b := i, j
				if names[b] < names[a] {
					a, b = b, a
				}
				out.Edges = append(out.Edges, Edge{
					From: names[a], To: names[b],
					Confidence:     clamp01(g.adjConf[a][b]),
					EffectStrength: effectStrength(g.pdag, corr, a, b),
				})
			}
		}
	}
	sortEdges(out.Edges)
	return out
}

func clamp01(v float64) float64 { return max(0, min(1, v)) }

// checkNames validates that names match the columns and are unique.
func checkNames(X [][]float64, names []string) error {
	if len(X) == 0 {
		return errors.New("causal: no variables")
	}
	if len(names) != len(X) {
		return fmt.Errorf("causal: %d names for %d variables", len(names), len(X))
	}
	seen := make(map[string]bool, len(names))
	for _, s := range names {
		if s == "" {
			return errors.New("causal: empty variable name")
		}
		if seen[s] {
			return fmt.Errorf("causal: duplicate variable name %q", s)
		}
		seen[s] = true
	}
	return nil
}
