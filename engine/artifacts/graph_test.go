package artifacts

import (
	"strings"
	"testing"
)

func TestGraphSVG(t *testing.T) {
	nodes := []string{"x", "y", hostile, "z"}
	edges := []GraphEdge{
		{From: "x", To: "y", Directed: true, Label: "0.8"},
		{From: "y", To: hostile, Directed: false, Label: `p<0.05 & "strong"`},
		{From: "y", To: "x", Directed: true},
		{From: "z", To: "z", Directed: true, Label: "self"},
	}
	doc, err := GraphSVG(nodes, edges)
	if err != nil {
		t.Fatal(err)
	}
	elems := parseSVG(t, doc)
	got := texts(elems, "text")
	for _, want := range append(nodes, "0.8", `p<0.05 & "strong"`, "self") {
		if !contains(got, want) {
			t.Errorf("no text %q in %q", want, got)
		}
	}
	var circles, arrows, plain int
	var curves []string
	for _, e := range elems {
		switch {
		case e.name == "circle":
			circles++
		case e.name == "path" && e.attrs["marker-end"] == "url(#arrow)":
			arrows++
			if strings.Contains(e.attrs["d"], " Q ") {
				curves = append(curves, e.attrs["d"])
			}
		case e.name == "path" && strings.HasPrefix(e.attrs["d"], "M") && e.attrs["marker-end"] == "" && !strings.Contains(e.attrs["d"], "z"):
			plain++
		}
	}
	if circles != len(nodes) {
		t.Errorf("%d circles, want %d", circles, len(nodes))
	}
	if arrows != 3 || plain != 1 {
		t.Errorf("%d arrowed and %d plain edges, want 3 and 1", arrows, plain)
	}
	// x->y and y->x must bend to different sides rather than overlap.
	if len(curves) != 2 || curves[0] == curves[1] {
		t.Errorf("opposite edges not separated: %q", curves)
	}
	if strings.Contains(string(doc), hostile) {
		t.Error("hostile name written unescaped")
	}
}

func TestGraphSVGSingleNode(t *testing.T) {
	doc, err := GraphSVG([]string{"only"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(parseSVG(t, doc), "text"); !contains(got, "only") {
		t.Errorf("texts %q", got)
	}
}

func TestGraphSVGRejectsBadInput(t *testing.T) {
	cases := map[string]struct {
		nodes []string
		edges []GraphEdge
	}{
		"no nodes":     {nil, nil},
		"duplicate":    {[]string{"a", "a"}, nil},
		"empty name":   {[]string{"a", ""}, nil},
		"unknown from": {[]string{"a"}, []GraphEdge{{From: "b", To: "a"}}},
		"unknown to":   {[]string{"a"}, []GraphEdge{{From: "a", To: "b"}}},
	}
	for name, c := range cases {
		if _, err := GraphSVG(c.nodes, c.edges); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestGraphDOTDirected(t *testing.T) {
	dot := GraphDOT([]string{"a", hostile, `back\`}, []GraphEdge{
		{From: "a", To: hostile, Directed: true, Label: "w=1"},
		{From: hostile, To: `back\`, Directed: false},
	})
	want := `digraph G {
  node [shape=ellipse];
  "a";
  "a<b&\"c\"";
  "back\\";
  "a" -> "a<b&\"c\"" [label="w=1"];
  "a<b&\"c\"" -> "back\\" [dir=none];
}
`
	if dot != want {
		t.Errorf("got\n%s\nwant\n%s", dot, want)
	}
	if strings.Contains(dot, " -- ") {
		t.Error("digraph must not use --")
	}
}

func TestGraphDOTUndirected(t *testing.T) {
	dot := GraphDOT([]string{"a", "b", "c"}, []GraphEdge{
		{From: "a", To: "b"},
		{From: "b", To: "c", Label: "line1\nline2"},
	})
	if !strings.HasPrefix(dot, "graph G {") {
		t.Errorf("undirected graph should be a graph: %s", dot)
	}
	if strings.Contains(dot, "->") || strings.Count(dot, " -- ") != 2 {
		t.Errorf("undirected edges must use --: %s", dot)
	}
	if !strings.Contains(dot, `"b" -- "c" [label="line1\nline2"];`) {
		t.Errorf("label newline not escaped: %s", dot)
	}
}
