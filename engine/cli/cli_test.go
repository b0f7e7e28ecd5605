package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCSV writes y = 2*a - b with an unrelated column c.
func writeCSV(t *testing.T, dir string) string {
	t.Helper()
	rng := rand.New(rand.NewSource(1))
	var b strings.Builder
	b.WriteString("a,b,c,y\n")
	for i := 0; i < 120; i++ {
		a, bb, c := rng.Float64()*4-2, rng.Float64()*4-2, rng.Float64()
		fmt.Fprintf(&b, "%.6f,%.6f,%.6f,%.6f\n", a, bb, c, 2*a-bb)
	}
	path := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(args ...string) (stdout, stderr string, err error) {
	cmd := NewCommand()
	var out, errb bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errb.String(), err
}

func TestDiscoverWritesResultsAndArtifacts(t *testing.T) {
	dir := t.TempDir()
	csv := writeCSV(t, dir)
	output := filepath.Join(dir, "out", "results.json")
	_, stderr, err := run("discover", "--dataset", csv, "--mode", "symbolic", "--target", "y",
		"--param", "max_complexity=15", "--param", "constraints=operators:+,-,*,^;exclude:c",
		"--negative-controls", "shuffled_target,noise_feature", "--seed", "3", "--time-limit", "60s", "--output", output)
	if err != nil {
		t.Fatalf("discover: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "stage symbolic_regression completed 100%") || !strings.Contains(stderr, "stage claim_generation completed") {
		t.Fatalf("progress lines missing:\n%s", stderr)
	}
	body, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Claims []struct {
			Type       string         `json:"type"`
			Expression string         `json:"expression"`
			Score      float64        `json:"score"`
			Scope      map[string]any `json:"scope"`
			Evidence   map[string]any `json:"evidence"`
		} `json:"claims"`
		Summary   map[string]any `json:"summary"`
		Artifacts []struct {
			Name, File, SHA256 string
			Size               int64 `json:"size_bytes"`
		} `json:"artifacts"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Claims) == 0 || res.Claims[0].Type != "law" {
		t.Fatalf("claims: %s", body)
	}
	c := res.Claims[0]
	if strings.Contains(c.Expression, "c") || c.Evidence["negative_controls_passed"] != true {
		t.Fatalf("claim: %+v", c)
	}
	if got := c.Scope["constraints_satisfied"].([]any); len(got) != 2 {
		t.Fatalf("constraints_satisfied %v", got)
	}
	if res.Summary["mode"] != "symbolic" || res.Summary["best_claim_index"] != 0.0 {
		t.Fatalf("summary %v", res.Summary)
	}
	if len(res.Artifacts) == 0 {
		t.Fatal("no artifacts")
	}
	for _, a := range res.Artifacts {
		info, err := os.Stat(filepath.Join(dir, "out", a.File))
		if err != nil || info.Size() != a.Size || a.File == "" {
			t.Fatalf("artifact %+v: %v", a, err)
		}
	}
}

func TestBadInputIsOneErrorLine(t *testing.T) {
	dir := t.TempDir()
	csv := writeCSV(t, dir)
	cases := [][]string{
		{"discover", "--dataset", csv, "--output", filepath.Join(dir, "r.json")},
		{"discover", "--dataset", csv, "--mode", "magic", "--output", filepath.Join(dir, "r.json")},
		{"discover", "--dataset", filepath.Join(dir, "missing.csv"), "--mode", "symbolic", "--output", filepath.Join(dir, "r.json")},
		{"discover", "--dataset", csv, "--mode", "symbolic", "--param", "constraints=colour:red", "--output", filepath.Join(dir, "r.json")},
		{"discover", "--dataset", csv, "--mode", "symbolic", "--param", "epochs=many", "--output", filepath.Join(dir, "r.json")},
		{"discover", "--no-such-flag"},
		{"profile"},
		{"profile", "--dataset", csv, "extra"},
	}
	for _, args := range cases {
		_, stderr, err := run(args...)
		if err == nil {
			t.Errorf("%v: want an error", args)
			continue
		}
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if len(lines) != 1 || !strings.HasPrefix(lines[0], "disco engine: ") {
			t.Errorf("%v: want one 'disco engine:' line, got %q", args, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Fatal("a failed run must not write results")
	}
}

func TestProfilePrintsJSON(t *testing.T) {
	csv := writeCSV(t, t.TempDir())
	stdout, stderr, err := run("profile", "--dataset", csv)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if p["row_count"] != 120.0 || p["column_count"] != 4.0 {
		t.Fatalf("profile %v", p)
	}
}
