package artifacts

import (
	"strings"
)

// GraphDOT writes the graph in Graphviz DOT. If any edge is directed the
// result is a digraph, with "->" for directed edges and "->" plus
// [dir=none] for undirected ones (DOT forbids "--" inside a digraph);
// otherwise it is a graph with "--" edges. Node names and labels are always
// quoted, with backslashes, quotes and line breaks escaped. Unlike GraphSVG it
// does not validate: edges may name nodes not listed, which DOT creates.
func GraphDOT(nodes []string, edges []GraphEdge) string {
	directed := false
	for _, e := range edges {
		directed = directed || e.Directed
	}
	var b strings.Builder
	if directed {
		b.WriteString("digraph G {\n")
	} else {
		b.WriteString("graph G {\n")
	}
	b.WriteString("  node [shape=ellipse];\n")
	for _, n := range nodes {
		b.WriteString("  " + dotQuote(n) + ";\n")
	}
	for _, e := range edges {
		b.WriteString("  " + dotQuote(e.From))
		if directed {
			b.WriteString(" -> ")
		} else {
			b.WriteString(" -- ")
		}
		b.WriteString(dotQuote(e.To))
		var attrs []string
		if directed && !e.Directed {
			attrs = append(attrs, "dir=none")
		}
		if e.Label != "" {
			attrs = append(attrs, "label="+dotQuote(e.Label))
		}
		if len(attrs) > 0 {
			b.WriteString(" [" + strings.Join(attrs, ", ") + "]")
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// dotQuoter escapes the characters that could end or corrupt a DOT quoted
// string. Doubling backslashes keeps a trailing backslash from escaping the
// closing quote and shows a literal backslash in labels.
var dotQuoter = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`)

func dotQuote(s string) string {
	return `"` + dotQuoter.Replace(s) + `"`
}
