package causal

import (
	"fmt"
	"strconv"
	"strings"
)

// DOT renders g in Graphviz DOT. Directed edges are arrows labelled with
// their effect strength (and lag, when lagged); undirected edges have no
// arrowhead. Edge width does not encode anything; the confidence is in the
// tooltip so renderers that show it can.
func (g *Graph) DOT() string {
	var b strings.Builder
	b.WriteString("digraph causal {\n")
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "  %s;\n", strconv.Quote(n))
	}
	for _, e := range g.Edges {
		var attrs []string
		label := strconv.FormatFloat(e.EffectStrength, 'f', 2, 64)
		if e.Lag > 0 {
			label = fmt.Sprintf("lag %d: %s", e.Lag, label)
		}
		attrs = append(attrs, "label="+strconv.Quote(label))
		if !e.Directed {
			attrs = append(attrs, "dir=none")
		}
		if e.OrientedBy == OrientedByLiNGAM {
			attrs = append(attrs, "style=dashed")
		}
		attrs = append(attrs, "tooltip="+strconv.Quote(fmt.Sprintf("confidence %.3f, oriented by %s", e.Confidence, orientedByText(e))))
		fmt.Fprintf(&b, "  %s -> %s [%s];\n", strconv.Quote(e.From), strconv.Quote(e.To), strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

func orientedByText(e Edge) string {
	if e.OrientedBy == "" {
		return "nothing (undirected)"
	}
	return e.OrientedBy
}
