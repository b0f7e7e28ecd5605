package neural

import (
	"fmt"
	"strings"
)

// functionNames label the unknown functions of each group in Describe.
var functionNames = []string{"f", "g", "h", "k", "p", "q", "r", "s", "u", "v", "w"}

// Describe renders the structure as an equation such as
// "y = f(a, b) * g(c)", "y = f(a) + g(b, c)" or "y = f(a, b, c)".
// names[j] names feature j ("x<j>" when names is too short); target names
// the left-hand side ("y" when empty).
func (s Structure) Describe(target string, names []string) string {
	if target == "" {
		target = "y"
	}
	op := " + "
	if s.Form == Multiplicative {
		op = " * "
	}
	terms := make([]string, len(s.Groups))
	for g, group := range s.Groups {
		args := make([]string, len(group))
		for a, j := range group {
			args[a] = featureName(names, j)
		}
		terms[g] = functionName(g) + "(" + strings.Join(args, ", ") + ")"
	}
	if len(terms) == 0 {
		terms = []string{"f()"}
	}
	return target + " = " + strings.Join(terms, op)
}

func functionName(g int) string {
	if g < len(functionNames) {
		return functionNames[g]
	}
	return fmt.Sprintf("f%d", g+1)
}

func featureName(names []string, j int) string {
	if j >= 0 && j < len(names) && names[j] != "" {
		return names[j]
	}
	return fmt.Sprintf("x%d", j)
}
