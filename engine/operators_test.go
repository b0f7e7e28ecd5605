package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/discolab/disco/engine/symbolic"
)

// operators: accepts asin and cosh, names them when it refuses an
// operator, and every operator it accepts is one the symbolic search
// runs with.
func TestConstraintOperatorsAsinCosh(t *testing.T) {
	c, err := ParseConstraints([]string{"operators:+,*,/,sin,asin,cosh"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Operators, " "); got != "+ * / sin asin cosh" {
		t.Fatalf("operators = %q", got)
	}
	_, err = ParseConstraints([]string{"operators:+,acos"})
	if err == nil || !strings.Contains(err.Error(), "asin cosh") {
		t.Fatalf("error %v does not list asin and cosh", err)
	}
	x := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	y := []float64{1, 3, 2, 5, 4, 6}
	if _, err := symbolic.Fit(context.Background(), [][]float64{x}, y, nil, symbolic.Options{Operators: KnownOperators, Generations: 1, PopulationSize: 8, Populations: 1}); err != nil {
		t.Fatalf("symbolic.Fit refuses operators:%s: %v", strings.Join(KnownOperators, ","), err)
	}
}
