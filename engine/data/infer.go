package data

import (
	"errors"
	"strconv"
	"strings"
)

// isNullToken reports whether a (trimmed) CSV cell means "no value": an
// empty cell or, in any letter case, NA, N/A, NaN or null.
func isNullToken(s string) bool {
	switch len(s) {
	case 0:
		return true
	case 2, 3, 4:
		return strings.EqualFold(s, "na") || strings.EqualFold(s, "n/a") ||
			strings.EqualFold(s, "nan") || strings.EqualFold(s, "null")
	}
	return false
}

// parseBool accepts true/false in any letter case. Unlike strconv.ParseBool
// it rejects 1/0 and t/f, which are better read as numbers or text.
func parseBool(s string) (bool, bool) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

// parseFloat accepts anything strconv.ParseFloat does, including values too
// large for float64 (which become ±Inf and are caught by validation).
func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

// typeGuess narrows a column's type as cells are seen: it starts out as
// every type and drops each one a cell cannot be.
type typeGuess struct {
	notInt, notFloat, notBool bool
	nonNull                   int
}

func (g *typeGuess) observe(cell string) {
	if isNullToken(cell) {
		return
	}
	g.nonNull++
	if !g.notInt {
		if _, err := strconv.ParseInt(cell, 10, 64); err != nil {
			g.notInt = true
		}
	}
	if !g.notFloat {
		if _, ok := parseFloat(cell); !ok {
			g.notFloat = true
		}
	}
	if !g.notBool {
		if _, ok := parseBool(cell); !ok {
			g.notBool = true
		}
	}
}

// dtype is the narrowest type that fits every cell seen. A column with no
// values at all is float64 (all NaN), so it fails validation as missing data
// rather than as text.
func (g *typeGuess) dtype() DType {
	switch {
	case g.nonNull == 0:
		return Float64
	case !g.notInt:
		return Int64
	case !g.notFloat:
		return Float64
	case !g.notBool:
		return Bool
	}
	return String
}
