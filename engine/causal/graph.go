package causal

import (
	"cmp"
	"slices"
)

// Orientation sources recorded in Edge.OrientedBy.
const (
	OrientedByPC     = "pc"     // unshielded collider found from sepsets
	OrientedByMeek   = "meek"   // implied by Meek's rules R1–R4
	OrientedByLiNGAM = "lingam" // decided by the pairwise non-Gaussian measure
	OrientedByLag    = "lag"    // time-lagged edge: the cause precedes the effect
)

// Edge is one adjacency of a discovered graph.
type Edge struct {
	// From and To name the endpoints. For an undirected edge (Directed
	// false) they are in name order.
	From, To string
	Directed bool
	// OrientedBy says what oriented the edge: "pc", "meek", "lingam", "lag",
	// or "" for an undirected edge.
	OrientedBy string
	// Confidence in 0..1 is the adjacency confidence A = 1 - (the largest
	// p-value seen over the conditioning sets tested for this pair)
	// multiplied by an orientation confidence O:
	//   - undirected: O = 1;
	//   - "pc" (collider a → k ← b): O = A of the other arm b — k;
	//   - "meek": O = the smallest full confidence (A·O) among the directed
	//     edges that imply the orientation, best witness taken;
	//   - "lingam": O = 0.8 × (2·agree − 1) × (1 − p_JB), where agree is the
	//     share of bootstrap resamples agreeing on the direction and p_JB the
	//     Jarque–Bera p-value of the adjusted pair; a LiNGAM orientation is
	//     thus never reported as more than 0.8 of its adjacency confidence.
	// Lagged edges use 1 - PValue.
	Confidence float64
	// EffectStrength is the standardised linear effect of From on To: the
	// coefficient of From when To is regressed on its parents (and, for an
	// undirected edge, on From) using standardised data.
	EffectStrength float64
	// Lag is 0 for contemporaneous edges and the delay in rows otherwise.
	Lag int
	// GrangerF and PValue are the nested-model F statistic and its p-value
	// for lagged edges; zero otherwise.
	GrangerF, PValue float64
}

// Graph is a discovered causal graph.
type Graph struct {
	Nodes []string
	Edges []Edge
}

// sortEdges orders edges by lag, then From, then To, so output is
// deterministic.
func sortEdges(edges []Edge) {
	slices.SortFunc(edges, func(ea, eb Edge) int {
		return cmp.Or(cmp.Compare(ea.From, eb.From), cmp.Compare(ea.To, eb.To), cmp.Compare(ea.Lag, eb.Lag))
	})
}
