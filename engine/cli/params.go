package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/discolab/disco/engine"
)

// parseParams applies KEY=VALUE pairs to p. Keys are the JSON names of
// engine.Parameters; target_variables is comma-separated, constraints are
// separated by ';' (a constraint's own list uses commas).
func parseParams(pairs []string, p *engine.Parameters) error {
	for _, pair := range pairs {
		key, value, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("--param %q: want KEY=VALUE", pair)
		}
		key = strings.TrimSpace(key)
		var err error
		switch key {
		case "target_variables":
			p.TargetVariables = append(p.TargetVariables, splitNonEmpty(value, ",")...)
		case "constraints":
			p.Constraints = append(p.Constraints, splitNonEmpty(value, ";")...)
		case "max_complexity":
			p.MaxComplexity, err = strconv.Atoi(value)
		case "epochs":
			p.Epochs, err = strconv.Atoi(value)
		case "symbolic_prior":
			p.SymbolicPrior = value
		case "neural_backbone":
			p.NeuralBackbone = value
		case "cross_validate":
			p.CrossValidate, err = strconv.ParseBool(value)
		default:
			return fmt.Errorf("--param: unknown key %q (known: target_variables, constraints, max_complexity, symbolic_prior, neural_backbone, epochs, cross_validate)", key)
		}
		if err != nil {
			return fmt.Errorf("--param %s: %q is not a valid value", key, value)
		}
	}
	return nil
}

func splitNonEmpty(s, sep string) []string {
	var out []string
	for _, part := range strings.Split(s, sep) {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
