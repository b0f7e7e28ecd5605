package causal

import (
	"context"
	"runtime"
	"sync"
)

// skeletonResult is what the adjacency search hands to orientation.
type skeletonResult struct {
	g *pdag // undirected skeleton
	// sepset[i][j] (symmetric) is the conditioning set that separated i and
	// j; separated[i][j] says whether one was found.
	sepset    [][][]int
	separated [][]bool
	// maxP[i][j] is the largest p-value seen over all tests of i and j.
	maxP [][]float64
	// tests counts the conditional-independence tests performed.
	tests int
}

// pairOutcome is one pair's result within a level.
type pairOutcome struct {
	i, j    int
	removed bool
	sepset  []int
	maxP    float64
	tests   int
}

// skeletonPCStable runs the adjacency phase of PC-stable: at each level l
// the adjacency sets are frozen before any edge is tested, so the result
// does not depend on the order of the variables. Each pair first tries
// subsets of adj(i)\{j}, then the subsets of adj(j)\{i} not already tried;
// within a level pairs are independent, so they run on all cores and the
// outcome is still deterministic.
func skeletonPCStable(ctx context.Context, test *fisherZ, p int, alpha float64, maxDepth int) (*skeletonResult, error) {
	res := &skeletonResult{
		g:         completePDAG(p),
		sepset:    make([][][]int, p),
		separated: make([][]bool, p),
		maxP:      make([][]float64, p),
	}
	for i := range p {
		res.sepset[i] = make([][]int, p)
		res.separated[i] = make([]bool, p)
		res.maxP[i] = make([]float64, p)
	}
	workers := runtime.GOMAXPROCS(0)
	testers := make([]*fisherZ, workers)
	for w := range testers {
		testers[w] = test.clone()
	}

	for level := 0; level <= maxDepth; level++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		adj := make([][]int, p)
		for i := range p {
			adj[i] = res.g.neighbours(i)
		}
		var pairs [][2]int
		for i := range p {
			for _, j := range adj[i] {
				if j > i && (len(adj[i])-1 >= level || len(adj[j])-1 >= level) {
					pairs = append(pairs, [2]int{i, j})
				}
			}
		}
		if len(pairs) == 0 {
			break
		}
		out := make([]pairOutcome, len(pairs))
		next := make(chan int)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func(t *fisherZ) {
				defer wg.Done()
				for k := range next {
					out[k] = testPair(t, pairs[k][0], pairs[k][1], adj, level, alpha, p)
				}
			}(testers[w])
		}
	feed:
		for k := range pairs {
			select {
			case next <- k:
			case <-ctx.Done():
				break feed
			}
		}
		close(next)
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for _, o := range out {
			res.tests += o.tests
			if o.maxP > res.maxP[o.i][o.j] {
				res.maxP[o.i][o.j], res.maxP[o.j][o.i] = o.maxP, o.maxP
			}
			if o.removed {
				res.g.removeEdge(o.i, o.j)
				res.separated[o.i][o.j], res.separated[o.j][o.i] = true, true
				res.sepset[o.i][o.j], res.sepset[o.j][o.i] = o.sepset, o.sepset
			}
		}
	}
	return res, nil
}

// testPair runs the level-l tests for the pair (i, j) against frozen
// adjacency sets.
func testPair(t *fisherZ, i, j int, adj [][]int, level int, alpha float64, p int) pairOutcome {
	o := pairOutcome{i: i, j: j}
	try := func(s []int) bool {
		pv, _ := t.test(i, j, s)
		o.tests++
		if pv > o.maxP {
			o.maxP = pv
		}
		if pv > alpha {
			o.removed = true
			o.sepset = append([]int(nil), s...)
			return false
		}
		return true
	}
	fromI := without(adj[i], j)
	forEachSubset(fromI, level, try)
	if o.removed {
		return o
	}
	inI := make([]bool, p)
	for _, v := range fromI {
		inI[v] = true
	}
	forEachSubset(without(adj[j], i), level, func(s []int) bool {
		if containsAll(inI, s) {
			return true // already tested from i's side
		}
		return try(s)
	})
	return o
}
