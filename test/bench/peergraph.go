package bench

import "github.com/discolab/disco/engine/causal"

// PeerGraph is a graph as peers/pc_causallearn.py's run_pc writes it (also
// through scale/pc.py): causal-learn PC's edges, its time and any error.
type PeerGraph struct {
	Nodes []string `json:"nodes"`
	Edges []struct {
		From     string `json:"from"`
		To       string `json:"to"`
		Directed bool   `json:"directed"`
	} `json:"edges"`
	Seconds float64 `json:"time_s"`
	Error   string  `json:"error"`
}

// Graph is the peer's graph in the engine's form, scored by the same
// functions as ours. An undirected edge names its ends in name order.
func (pg PeerGraph) Graph() *causal.Graph {
	g := &causal.Graph{Nodes: pg.Nodes}
	for _, e := range pg.Edges {
		from, to := e.From, e.To
		if !e.Directed && to < from {
			from, to = to, from
		}
		g.Edges = append(g.Edges, causal.Edge{From: from, To: to, Directed: e.Directed})
	}
	return g
}
