package artifacts_test

import (
	"fmt"
	"testing"

	"github.com/discolab/disco/engine/artifacts"
)

// Each law of a target has its own plot name; the chosen law's plot keeps the target's.
func ExampleLawPlotName() {
	fmt.Println(artifacts.TargetPlotName("F"))
	fmt.Println(artifacts.LawPlotName("F", "m*a"))
	fmt.Println(artifacts.IsLawPlot(artifacts.LawPlotName("F", "m*a"), "F"))
	// Output:
	// predicted-vs-observed-F.svg
	// predicted-vs-observed-F-bf1bfa5c438c.svg
	// true
}

func TestIsLawPlotKnowsOnlyItsOwnNames(t *testing.T) {
	for _, name := range []string{
		artifacts.TargetPlotName("y"),               // the chosen law's, by target
		artifacts.LawPlotName("y-2", "x"),           // another target whose name starts with y-
		"predicted-vs-observed-y-notahexdigest.svg", // not a digest
		"predicted-vs-observed-y-0123456789ab.png",
	} {
		if artifacts.IsLawPlot(name, "y") {
			t.Errorf("IsLawPlot(%q, y) = true", name)
		}
	}
	if !artifacts.IsLawPlot(artifacts.LawPlotName("y", "3*x0 + x1^2"), "y") {
		t.Error("a law's own plot is not recognised")
	}
}
