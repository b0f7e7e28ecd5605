package bench

import (
	"encoding/json"
	"testing"

	"github.com/discolab/disco/engine/causal"
)

func TestPeerGraphOrdersUndirectedEdges(t *testing.T) {
	var pg PeerGraph
	err := json.Unmarshal([]byte(`{"nodes":["a","b","c"],"edges":[{"from":"c","to":"a","directed":false},{"from":"c","to":"b","directed":true}],"time_s":1.5}`), &pg)
	if err != nil {
		t.Fatal(err)
	}
	g := pg.Graph()
	want := []causal.Edge{{From: "a", To: "c"}, {From: "c", To: "b", Directed: true}}
	if len(g.Edges) != len(want) || g.Edges[0] != want[0] || g.Edges[1] != want[1] || pg.Seconds != 1.5 {
		t.Fatalf("edges %+v, seconds %g; want %+v, 1.5", g.Edges, pg.Seconds, want)
	}
}
