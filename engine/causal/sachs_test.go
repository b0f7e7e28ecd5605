package causal

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

const sachsPath = "/work/shared/data/sachs-2005-continuous.tsv"

// sachsConsensus is the 17-edge consensus network from the data README.
var sachsConsensus = [][2]string{
	{"raf", "mek"}, {"mek", "erk"}, {"erk", "akt"}, {"pka", "akt"}, {"pka", "erk"},
	{"pka", "jnk"}, {"pka", "mek"}, {"pka", "p38"}, {"pka", "raf"}, {"pkc", "jnk"},
	{"pkc", "mek"}, {"pkc", "p38"}, {"pkc", "pka"}, {"pkc", "raf"}, {"plc", "pip2"},
	{"plc", "pip3"}, {"pip3", "pip2"},
}

// loadTSV reads the first maxRows data rows of a tab-separated file with a
// header, column-major.
func loadTSV(t testing.TB, path string, maxRows int) ([]string, [][]float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("Sachs data not available: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		t.Fatal("empty file")
	}
	names := strings.Split(strings.TrimSpace(sc.Text()), "\t")
	X := make([][]float64, len(names))
	for rows := 0; rows < maxRows && sc.Scan(); rows++ {
		fields := strings.Split(strings.TrimSpace(sc.Text()), "\t")
		if len(fields) != len(names) {
			t.Fatalf("row %d has %d fields, want %d", rows+1, len(fields), len(names))
		}
		for j, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("row %d: %v", rows+1, err)
			}
			X[j] = append(X[j], v)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return names, X
}

// orientationScore counts directed edges of g and how many agree with the
// consensus DAG.
func orientationScore(g *Graph, dag [][2]string) (oriented, correct int) {
	truth := map[[2]string]bool{}
	for _, e := range dag {
		truth[e] = true
	}
	for _, e := range g.Edges {
		if e.Directed {
			oriented++
			if truth[[2]string{e.From, e.To}] {
				correct++
			}
		}
	}
	return oriented, correct
}

func TestSachsObservational(t *testing.T) {
	names, X := loadTSV(t, sachsPath, 853)
	if len(X[0]) != 853 {
		t.Fatalf("read %d rows, want 853", len(X[0]))
	}
	truth := map[[2]string]bool{}
	for _, e := range sachsConsensus {
		truth[e] = true
		truth[[2]string{e[1], e[0]}] = true
	}
	for _, disable := range []bool{true, false} {
		g, err := Discover(context.Background(), X, names, Options{Alpha: 0.05, DisableLiNGAM: disable, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range g.Edges {
			if !truth[[2]string{e.From, e.To}] {
				t.Errorf("false adjacency %s–%s", e.From, e.To)
			}
		}
		shd := SHD(g, sachsConsensus)
		p, r, f1 := SkeletonF1(g, sachsConsensus)
		oriented, correct := orientationScore(g, sachsConsensus)
		t.Logf("LiNGAM=%v: %d adjacencies, SHD %d vs consensus CPDAG, skeleton P=%.2f R=%.2f F1=%.2f, oriented %d (%d agree with the consensus DAG)",
			!disable, len(g.Edges), shd, p, r, f1, oriented, correct)
		for _, e := range g.Edges {
			t.Logf("  %s %s %s by=%q conf=%.3f effect=%.3f", e.From, arrow(e), e.To, e.OrientedBy, e.Confidence, e.EffectStrength)
		}
		if shd > 11 {
			t.Errorf("SHD %d (LiNGAM=%v), want ≤ 11", shd, !disable)
		}
		if len(g.Edges) < 8 {
			t.Errorf("%d adjacencies, want at least the 8 PC finds in the reference", len(g.Edges))
		}
	}
}

func arrow(e Edge) string {
	if e.Directed {
		return "->"
	}
	return "--"
}
