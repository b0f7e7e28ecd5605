package artifacts

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// LawPlotName names the predicted-versus-observed plot of one law: the law of target whose
// claim has expression. A run with alternatives has a plot per law, and a claim page finds
// its own by this name (the claim carries target and expression, the plot only its name).
func LawPlotName(target, expression string) string {
	sum := sha256.Sum256([]byte(expression))
	return "predicted-vs-observed-" + target + "-" + hex.EncodeToString(sum[:lawDigestLen/2]) + ".svg"
}

// IsLawPlot tells whether name is a LawPlotName of target, whichever the law.
func IsLawPlot(name, target string) bool {
	rest, ok := strings.CutPrefix(name, "predicted-vs-observed-"+target+"-")
	if !ok {
		return false
	}
	digest, ok := strings.CutSuffix(rest, ".svg")
	if !ok || len(digest) != lawDigestLen {
		return false
	}
	_, err := hex.DecodeString(digest)
	return err == nil
}

// lawDigestLen is the length of LawPlotName's hex digest of the expression.
const lawDigestLen = 12

// TargetPlotName names the plot of the law the run chose for target, as runs always have.
func TargetPlotName(target string) string { return "predicted-vs-observed-" + target + ".svg" }
