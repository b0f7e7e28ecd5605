package artifacts

import (
	"errors"
	"fmt"
)

// GraphEdge is one edge of a graph artifact. Undirected edges (Directed
// false) are drawn without arrowheads; Label, if set, is written beside the
// edge.
type GraphEdge struct {
	From, To string
	Directed bool
	Label    string
}

// checkGraph rejects graphs that cannot be drawn faithfully: no nodes,
// duplicate or empty node names, or edges that name unknown nodes. It returns
// each node's position in nodes.
func checkGraph(nodes []string, edges []GraphEdge) (map[string]int, error) {
	if len(nodes) == 0 {
		return nil, errors.New("artifacts: graph has no nodes")
	}
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		if n == "" {
			return nil, fmt.Errorf("artifacts: node %d has an empty name", i)
		}
		if _, dup := index[n]; dup {
			return nil, fmt.Errorf("artifacts: duplicate node %q", n)
		}
		index[n] = i
	}
	for i, e := range edges {
		for _, end := range []string{e.From, e.To} {
			if _, ok := index[end]; !ok {
				return nil, fmt.Errorf("artifacts: edge %d names unknown node %q", i, end)
			}
		}
	}
	return index, nil
}
