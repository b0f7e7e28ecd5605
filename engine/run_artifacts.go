package engine

import (
	"fmt"

	"github.com/discolab/disco/engine/artifacts"
	"github.com/discolab/disco/engine/causal"
	"github.com/discolab/disco/engine/symbolic"
)

// Artifacts are best effort: a plot that cannot be drawn does not fail the
// run, whose claims stand on their own.

// plotLaw adds the predicted-versus-observed plot of a law under its own name
// (artifacts.LawPlotName), and for the chosen law also under the target's name
// (artifacts.TargetPlotName) that runs have always had.
func (r *runner) plotLaw(target string, m *lawModel, y, pred []float64, chosen bool) {
	svg, err := artifacts.PredictedVsObserved(y, pred, target+": "+m.expression)
	if err != nil {
		return
	}
	r.result.Artifacts = append(r.result.Artifacts,
		NewArtifact(artifacts.LawPlotName(target, m.expression), KindPlot, "image/svg+xml", svg))
	if chosen {
		r.result.Artifacts = append(r.result.Artifacts,
			NewArtifact(artifacts.TargetPlotName(target), KindPlot, "image/svg+xml", svg))
	}
}

// plotPareto adds the error-versus-complexity front of a symbolic search.
func (r *runner) plotPareto(target string, front []*symbolic.Model, best *symbolic.Model) {
	if len(front) == 0 {
		return
	}
	complexity := make([]int, len(front))
	loss := make([]float64, len(front))
	chosen := -1
	for i, m := range front {
		complexity[i], loss[i] = m.Complexity, m.MSE
		if m == best || (chosen < 0 && m.Expression == best.Expression) {
			chosen = i
		}
	}
	svg, err := artifacts.ParetoFront(complexity, loss, chosen, fmt.Sprintf("Pareto front for %s", target))
	if err == nil {
		r.result.Artifacts = append(r.result.Artifacts,
			NewArtifact("pareto-front-"+target+".svg", KindPlot, "image/svg+xml", svg))
	}
}

// graphArtifacts adds the causal graph as Graphviz DOT and as SVG; edge
// labels carry the lag (if any) and the standardised effect.
func (r *runner) graphArtifacts(g *causal.Graph) {
	edges := make([]artifacts.GraphEdge, len(g.Edges))
	for i, e := range g.Edges {
		label := fmt.Sprintf("%.2f", e.EffectStrength)
		if e.Lag > 0 {
			label = fmt.Sprintf("lag %d, %s", e.Lag, label)
		}
		edges[i] = artifacts.GraphEdge{From: e.From, To: e.To, Directed: e.Directed, Label: label}
	}
	r.result.Artifacts = append(r.result.Artifacts,
		NewArtifact("causal-graph.dot", KindReport, "text/vnd.graphviz", []byte(artifacts.GraphDOT(g.Nodes, edges))))
	if svg, err := artifacts.GraphSVG(g.Nodes, edges); err == nil {
		r.result.Artifacts = append(r.result.Artifacts,
			NewArtifact("causal-graph.svg", KindPlot, "image/svg+xml", svg))
	}
}
