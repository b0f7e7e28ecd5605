package causal

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportBenchmarkSEM writes the benchmark data sets (data.tsv with a
// header row, truth.tsv with one "from<TAB>to" line per true edge) under
// $DISCO_CAUSAL_EXPORT, so other implementations (causal-learn's PC, for
// the speed comparison) can be run on exactly the same rows. Skipped
// unless the variable is set.
func TestExportBenchmarkSEM(t *testing.T) {
	dir := os.Getenv("DISCO_CAUSAL_EXPORT")
	if dir == "" {
		t.Skip("set DISCO_CAUSAL_EXPORT to a directory to export the benchmark SEM")
	}
	for name, noise := range map[string]func(*rand.Rand) float64{"gauss": gaussianNoise, "uniform": uniformNoise} {
		nodes, edges, X := benchSEM(noise)
		var data strings.Builder
		data.WriteString(strings.Join(nodes, "\t") + "\n")
		for i := range X[0] {
			for j := range X {
				if j > 0 {
					data.WriteByte('\t')
				}
				fmt.Fprintf(&data, "%.17g", X[j][i])
			}
			data.WriteByte('\n')
		}
		var truth strings.Builder
		for _, e := range edges {
			fmt.Fprintf(&truth, "%s\t%s\n", e.From, e.To)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-data.tsv"), []byte(data.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+"-truth.tsv"), []byte(truth.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
