package dashboard

import (
	"testing"

	"github.com/discolab/disco/dashboard/api"
	"github.com/discolab/disco/engine/artifacts"
)

// A law's claim page shows that law's own fit plot; a run from before per-law plots shows
// its chosen law's plot, and a run that has per-law plots never shows an alternative the
// chosen law's fit.
func TestPickPlotsShowsEachLawItsOwnFit(t *testing.T) {
	run := api.Run{}
	run.Parameters.TargetVariables = []string{"y"}
	chosen := api.Claim{Type: "law", Expression: "3*x0 + x1^2"}
	alt := api.Claim{Type: "law", Expression: "3*x0 + x1^2 + 0.01*x2"}
	name := func(a *api.Artifact) string {
		if a == nil {
			return ""
		}
		return a.Name
	}
	arts := func(names ...string) []api.Artifact {
		out := make([]api.Artifact, len(names))
		for i, n := range names {
			out[i] = api.Artifact{Name: n}
		}
		return out
	}
	now := arts(artifacts.TargetPlotName("y"), artifacts.LawPlotName("y", chosen.Expression), artifacts.LawPlotName("y", alt.Expression), "pareto-front-y.svg")
	for _, c := range []api.Claim{chosen, alt} {
		if fit, _ := pickPlots(c, run, now); name(fit) != artifacts.LawPlotName("y", c.Expression) {
			t.Errorf("claim %q shows plot %q, want its own", c.Expression, name(fit))
		}
	}
	before := arts(artifacts.TargetPlotName("y"), "pareto-front-y.svg")
	if fit, _ := pickPlots(alt, run, before); name(fit) != artifacts.TargetPlotName("y") {
		t.Errorf("a run without per-law plots shows %q, want the target's plot", name(fit))
	}
	onlyChosen := arts(artifacts.TargetPlotName("y"), artifacts.LawPlotName("y", chosen.Expression))
	if fit, _ := pickPlots(alt, run, onlyChosen); fit != nil {
		t.Errorf("an alternative without its own plot shows %q, want none", fit.Name)
	}
}
