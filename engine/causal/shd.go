package causal

// pairMark is the state of one unordered pair {a, b} with a < b (by name).
type pairMark int

const (
	markNone       pairMark = iota
	markUndirected          // a — b
	markForward             // a → b
	markBackward            // b → a
	markBoth                // a → b and b → a (only from lagged edges)
)

// pairMarks summarises a graph as one mark per adjacent pair. Lagged edges
// count as directed From → To; several edges between the same pair (say at
// different lags) merge, and opposite directions give markBoth.
func pairMarks(edges []Edge) map[[2]string]pairMark {
	out := map[[2]string]pairMark{}
	for _, e := range edges {
		if e.From == e.To {
			continue // a variable's own lags are not adjacencies
		}
		key := [2]string{e.From, e.To}
		m := markForward
		if key[1] < key[0] {
			key = [2]string{e.To, e.From}
			m = markBackward
		}
		if !e.Directed {
			m = markUndirected
		}
		prev, ok := out[key]
		switch {
		case !ok || prev == m:
			out[key] = m
		case prev == markUndirected:
			out[key] = m
		case m == markUndirected:
			// keep the directed mark
		default:
			out[key] = markBoth
		}
	}
	return out
}

// SHD is the structural Hamming distance between g and the CPDAG of the
// true DAG: every unordered pair of variables whose state differs counts
// once. A missing or extra adjacency costs 1; an adjacency present in both
// but with a different mark (undirected vs directed, reversed, or oriented
// both ways) costs 1. A reversed edge therefore costs 1, not 2. Lagged
// edges are folded into one directed adjacency per pair.
func SHD(g *Graph, trueEdges [][2]string) int {
	truth := pairMarks(CPDAG(g.Nodes, trueEdges).Edges)
	est := pairMarks(g.Edges)
	d := 0
	for k, m := range est {
		if truth[k] != m {
			d++
		}
	}
	for k := range truth {
		if _, ok := est[k]; !ok {
			d++
		}
	}
	return d
}

// SkeletonF1 compares the adjacencies of g with those of the true DAG,
// ignoring orientation. precision is the share of g's adjacencies that are
// true, recall the share of true adjacencies g found, f1 their harmonic
// mean. An empty g has precision 1 when the truth is empty too and 0
// otherwise.
func SkeletonF1(g *Graph, trueEdges [][2]string) (precision, recall, f1 float64) {
	est := pairMarks(g.Edges)
	truth := map[[2]string]bool{}
	for _, e := range trueEdges {
		if e[0] == e[1] {
			continue
		}
		k := e
		if k[1] < k[0] {
			k = [2]string{e[1], e[0]}
		}
		truth[k] = true
	}
	if len(est) == 0 && len(truth) == 0 {
		return 1, 1, 1
	}
	tp := 0
	for k := range est {
		if truth[k] {
			tp++
		}
	}
	if len(est) > 0 {
		precision = float64(tp) / float64(len(est))
	}
	if len(truth) > 0 {
		recall = float64(tp) / float64(len(truth))
	}
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return precision, recall, f1
}
