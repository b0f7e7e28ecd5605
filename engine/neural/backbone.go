package neural

import (
	"fmt"
	"strconv"
	"strings"
)

// Limits on the hidden-layer shape. They keep a run's memory and time bounded
// whatever a user writes in a run's parameters.
const (
	MaxWidth = 1024
	MaxDepth = 8
)

// DefaultHidden is the backbone used when none is named.
var DefaultHidden = []int{64, 64}

// backboneForms is quoted in every parse error so users learn the grammar.
const backboneForms = `accepted forms are "mlp-<depth>x<width>" (e.g. "mlp-2x64") ` +
	`or "mlp-<width>-<width>-..." (e.g. "mlp-64-32"), with width 1..1024 and depth 1..8`

// ParseBackbone turns a backbone name into hidden-layer widths:
// "mlp-2x64" is [64 64], "mlp-64-32" is [64 32], and "" is DefaultHidden.
func ParseBackbone(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return append([]int(nil), DefaultHidden...), nil
	}
	rest, ok := strings.CutPrefix(s, "mlp-")
	if !ok || rest == "" {
		return nil, fmt.Errorf("neural: backbone %q not understood; %s", s, backboneForms)
	}
	var hidden []int
	if depthText, widthText, repeated := strings.Cut(rest, "x"); repeated {
		depth, err1 := strconv.Atoi(depthText)
		width, err2 := strconv.Atoi(widthText)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("neural: backbone %q not understood; %s", s, backboneForms)
		}
		if depth < 1 || depth > MaxDepth {
			return nil, fmt.Errorf("neural: backbone %q has depth %d; %s", s, depth, backboneForms)
		}
		for range depth {
			hidden = append(hidden, width)
		}
	} else {
		for _, part := range strings.Split(rest, "-") {
			width, err := strconv.Atoi(part)
			if err != nil {
				return nil, fmt.Errorf("neural: backbone %q not understood; %s", s, backboneForms)
			}
			hidden = append(hidden, width)
		}
	}
	if err := checkHidden(hidden); err != nil {
		return nil, fmt.Errorf("neural: backbone %q: %v; %s", s, err, backboneForms)
	}
	return hidden, nil
}

// checkHidden enforces the width and depth caps on a hidden-layer list.
func checkHidden(hidden []int) error {
	if len(hidden) < 1 || len(hidden) > MaxDepth {
		return fmt.Errorf("depth %d outside 1..%d", len(hidden), MaxDepth)
	}
	for _, w := range hidden {
		if w < 1 || w > MaxWidth {
			return fmt.Errorf("width %d outside 1..%d", w, MaxWidth)
		}
	}
	return nil
}
