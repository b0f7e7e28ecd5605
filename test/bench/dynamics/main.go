// Command dynamicsbench is the dynamics benchmark of issue 18 item 1 (see
// test/bench/README.md, "Dynamics"):
//
//	dynamicsbench gen   -out DIR               writes DIR/<case>.csv and DIR/manifest.json
//	dynamicsbench run   -data DIR -out FILE     runs dynamics.Discover on every case
//	dynamicsbench score -data DIR -ours FILE [-peers FILE] [-md FILE]
//
// run.sh beside it runs the three steps and pysindy on the same CSVs.
package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/discolab/disco/engine/dynamics"
)

// caseInfo is one system at one noise level.
type caseInfo struct {
	Name   string               `json:"name"`
	System string               `json:"system"`
	Noise  float64              `json:"noise"`
	Rep    int                  `json:"rep"` // noise draw; 0 is the main table's
	File   string               `json:"file"`
	States []string             `json:"states"`
	Truth  []map[string]float64 `json:"truth"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: dynamicsbench gen|run|score [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "score":
		err = score(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dynamicsbench:", err)
		os.Exit(1)
	}
}

func seedOf(parts ...string) uint64 {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

func caseName(sys string, noise float64) string {
	return fmt.Sprintf("%s_noise%g", sys, 100*noise)
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("out", "data", "output directory")
	reps := fs.Int("reps", 1, "noise draws per system and (nonzero) noise level")
	_ = fs.Parse(args) // ExitOnError: Parse exits on a bad flag
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	var manifest []caseInfo
	for _, sys := range systems {
		// the same initial conditions at every noise level
		icRNG := rand.New(rand.NewPCG(seedOf(sys.name, "ic"), 1))
		times := make([]float64, sys.steps)
		for i := range times {
			times[i] = float64(i) * sys.dt
		}
		var paths [][][]float64
		for range trajectories {
			x0 := sys.ic(icRNG.Float64)
			p, err := dynamics.Integrate(func(_ float64, x, dx []float64) { sys.f(x, dx) }, x0, times, dynamics.IntegrateOptions{RelTol: 1e-10, AbsTol: 1e-12})
			if err != nil {
				return fmt.Errorf("%s: %w", sys.name, err)
			}
			paths = append(paths, p)
		}
		rmsOf := make([]float64, len(sys.states))
		for j := range sys.states {
			var s float64
			var n int
			for _, p := range paths {
				for _, x := range p {
					s += x[j] * x[j]
					n++
				}
			}
			rmsOf[j] = math.Sqrt(s / float64(n))
		}
		for _, noise := range noiseLevels {
			for rep := range *reps {
				if rep > 0 && noise == 0 {
					break
				}
				c := caseInfo{Name: caseName(sys.name, noise), System: sys.name, Noise: noise, Rep: rep, States: sys.states, Truth: sys.truth}
				seed := seedOf(sys.name, "noise", strconv.FormatFloat(noise, 'g', -1, 64))
				if rep > 0 {
					c.Name += fmt.Sprintf("_rep%d", rep)
					seed = seedOf(sys.name, "noise", strconv.FormatFloat(noise, 'g', -1, 64), "rep", strconv.Itoa(rep))
				}
				c.File = c.Name + ".csv"
				if err := writeCase(filepath.Join(*out, c.File), sys, times, paths, rmsOf, noise, rand.New(rand.NewPCG(seed, 2))); err != nil {
					return err
				}
				manifest = append(manifest, c)
			}
		}
	}
	return writeJSON(filepath.Join(*out, "manifest.json"), manifest)
}

// writeCase writes the trajectories with noise·rms[j]·N(0,1) added to
// state j as a CSV: t, trajectory, states.
func writeCase(path string, sys system, times []float64, paths [][][]float64, rms []float64, noise float64, rng *rand.Rand) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(append([]string{"t", "trajectory"}, sys.states...)) // csv errors stick; w.Error reports them
	for k, p := range paths {
		for i, x := range p {
			row := []string{strconv.FormatFloat(times[i], 'g', 10, 64), strconv.Itoa(k)}
			for j, v := range x {
				row = append(row, strconv.FormatFloat(v+noise*rms[j]*rng.NormFloat64(), 'g', 12, 64))
			}
			_ = w.Write(row)
		}
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// outcome is one method's answer on one case.
type outcome struct {
	// Coefficients per state: term → coefficient.
	Coefficients []map[string]float64 `json:"coefficients"`
	Expressions  []string             `json:"expressions,omitempty"`
	Passed       []bool               `json:"passed,omitempty"`
	Seconds      float64              `json:"seconds"`
	Error        string               `json:"error,omitempty"`
	Simulation   *dynamics.Simulation `json:"simulation,omitempty"`
}

func readManifest(dir string) ([]caseInfo, error) {
	var m []caseInfo
	err := readJSON(filepath.Join(dir, "manifest.json"), &m)
	return m, err
}

func readCase(dir string, c caseInfo) (dynamics.Trajectories, error) {
	f, err := os.Open(filepath.Join(dir, c.File))
	if err != nil {
		return dynamics.Trajectories{}, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return dynamics.Trajectories{}, err
	}
	d := dynamics.Trajectories{StateNames: recs[0][2:], States: make([][]float64, len(recs[0])-2)}
	for _, r := range recs[1:] {
		t, err := strconv.ParseFloat(r[0], 64)
		if err != nil {
			return d, err
		}
		d.Time = append(d.Time, t)
		d.Trajectory = append(d.Trajectory, r[1])
		for j, s := range r[2:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return d, err
			}
			d.States[j] = append(d.States[j], v)
		}
	}
	return d, nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	dir := fs.String("data", "data", "directory written by gen")
	out := fs.String("out", "ours.json", "output file")
	_ = fs.Parse(args) // ExitOnError: Parse exits on a bad flag
	manifest, err := readManifest(*dir)
	if err != nil {
		return err
	}
	results := map[string]outcome{}
	for _, c := range manifest {
		d, err := readCase(*dir, c)
		if err != nil {
			return err
		}
		start := time.Now()
		res, err := dynamics.Discover(context.Background(), d, dynamics.Settings{Seed: 1})
		o := outcome{Seconds: time.Since(start).Seconds()}
		if err != nil {
			o.Error = err.Error()
		} else {
			sim := res.Simulation
			o.Simulation = &sim
			for _, eq := range res.Equations {
				o.Coefficients = append(o.Coefficients, eq.Coefficients)
				o.Expressions = append(o.Expressions, eq.Target+" = "+eq.Expression)
				o.Passed = append(o.Passed, eq.Passed)
			}
		}
		fmt.Fprintf(os.Stderr, "%-28s %6.2fs %s\n", c.Name, o.Seconds, strings.Join(o.Expressions, "; "))
		results[c.Name] = o
	}
	return writeJSON(*out, results)
}

// canonical orders the factors of a product term ("y*x" and "x y" become
// "x*y"), so that names from pysindy and from engine/dynamics compare.
func canonical(term string) string {
	term = strings.TrimSpace(term)
	fields := strings.FieldsFunc(term, func(r rune) bool { return r == '*' || r == ' ' })
	powers := map[string]int{}
	for _, f := range fields {
		base, p := f, 1
		if i := strings.LastIndex(f, "^"); i > 0 {
			if n, err := strconv.Atoi(f[i+1:]); err == nil {
				base, p = f[:i], n
			}
		}
		powers[base] += p
	}
	var keys []string
	for k := range powers {
		if k != "1" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		if powers[k] == 1 {
			parts = append(parts, k)
		} else {
			parts = append(parts, fmt.Sprintf("%s^%d", k, powers[k]))
		}
	}
	if len(parts) == 0 {
		return "1"
	}
	return strings.Join(parts, "*")
}

// verdict scores one outcome against the truth: exact structure (the true
// terms and no others in every equation) with every coefficient within
// 2 % of the truth; maxErr is the largest relative coefficient error over
// the true terms when the structure is right; wrong counts missing plus
// extra terms.
type verdict struct {
	exact, structure bool
	maxErr           float64
	wrong            int
}

const coefTolerance = 0.02

func judge(c caseInfo, o outcome) verdict {
	if o.Error != "" || len(o.Coefficients) != len(c.Truth) {
		return verdict{maxErr: math.Inf(1), wrong: -1}
	}
	v := verdict{structure: true}
	for s, want := range c.Truth {
		got := map[string]float64{}
		for k, x := range o.Coefficients[s] {
			if x != 0 {
				got[canonical(k)] += x
			}
		}
		for k, x := range want {
			g, ok := got[canonical(k)]
			if !ok {
				v.wrong++
				v.structure = false
				continue
			}
			v.maxErr = math.Max(v.maxErr, math.Abs(g-x)/math.Abs(x))
		}
		for k := range got {
			found := false
			for w := range want {
				if canonical(w) == k {
					found = true
				}
			}
			if !found {
				v.wrong++
				v.structure = false
			}
		}
	}
	if !v.structure {
		v.maxErr = math.NaN()
	}
	v.exact = v.structure && v.maxErr <= coefTolerance
	return v
}

// header writes a markdown table header with the given columns.
func header(b *strings.Builder, cols []string) {
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
}

// exactColumns names the per-noise-level columns of the summary tables.
func exactColumns() []string {
	var out []string
	for _, n := range noiseLevels {
		out = append(out, fmt.Sprintf("exact at %g %%", 100*n))
	}
	return out
}

func score(args []string) error {
	fs := flag.NewFlagSet("score", flag.ExitOnError)
	dir := fs.String("data", "data", "directory written by gen")
	oursPath := fs.String("ours", "ours.json", "output of run")
	peersPath := fs.String("peers", "", "output of pysindy_bench.py (optional)")
	md := fs.String("md", "", "write the markdown report here too")
	_ = fs.Parse(args) // ExitOnError: Parse exits on a bad flag
	manifest, err := readManifest(*dir)
	if err != nil {
		return err
	}
	methods := map[string]map[string]outcome{}
	var ours map[string]outcome
	if err := readJSON(*oursPath, &ours); err != nil {
		return err
	}
	methods["ours"] = ours
	names := []string{"ours"}
	if *peersPath != "" {
		var peers map[string]map[string]outcome // method → case → outcome
		if err := readJSON(*peersPath, &peers); err != nil {
			return err
		}
		var keys []string
		for k := range peers {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			methods[k] = peers[k]
			names = append(names, k)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Exact = the true terms and no others in every equation, every coefficient within %.0f %% of the truth. Cell: exact (✓/✗), then the largest relative coefficient error when the terms are right, or the number of wrong terms (missing + extra).\n\n", 100*coefTolerance)
	header(&b, slices.Concat([]string{"system", "noise"}, names, []string{"ours: all equations pass"}))
	exact := map[string]map[float64]int{}
	type key struct {
		system string
		noise  float64
	}
	var keys []key
	drawExact := map[string]map[key]int{}
	draws := map[key]int{}
	for _, c := range manifest {
		k := key{c.System, c.Noise}
		if draws[k] == 0 {
			keys = append(keys, k)
		}
		draws[k]++
		for _, m := range names {
			if o, ok := methods[m][c.Name]; ok && judge(c, o).exact {
				if drawExact[m] == nil {
					drawExact[m] = map[key]int{}
				}
				drawExact[m][k]++
			}
		}
		if c.Rep > 0 {
			continue
		}
		fmt.Fprintf(&b, "| %s | %g %% |", c.System, 100*c.Noise)
		for _, m := range names {
			o, ok := methods[m][c.Name]
			if !ok {
				fmt.Fprintf(&b, " – |")
				continue
			}
			v := judge(c, o)
			if exact[m] == nil {
				exact[m] = map[float64]int{}
			}
			if v.exact {
				exact[m][c.Noise]++
			}
			switch {
			case o.Error != "":
				fmt.Fprintf(&b, " error |")
			case v.structure:
				mark := "✗"
				if v.exact {
					mark = "✓"
				}
				fmt.Fprintf(&b, " %s %.3g %% |", mark, 100*v.maxErr)
			default:
				fmt.Fprintf(&b, " ✗ %d wrong |", v.wrong)
			}
		}
		o := ours[c.Name]
		all := len(o.Passed) > 0
		for _, p := range o.Passed {
			all = all && p
		}
		sim := "–"
		if o.Simulation != nil {
			sim = fmt.Sprintf("horizon %.3g vs %.3g", o.Simulation.Horizon, o.Simulation.PersistenceHorizon)
		}
		fmt.Fprintf(&b, " %v (%s) |\n", all, sim)
	}
	b.WriteString("\n")
	header(&b, slices.Concat([]string{"method"}, exactColumns(), []string{"seconds, all cases"}))
	for _, m := range names {
		fmt.Fprintf(&b, "| %s |", m)
		for _, n := range noiseLevels {
			fmt.Fprintf(&b, " %d/%d |", exact[m][n], len(systems))
		}
		var secs float64
		for _, o := range methods[m] {
			secs += o.Seconds
		}
		fmt.Fprintf(&b, " %.1f |\n", secs)
	}
	if len(manifest) > len(keys) {
		fmt.Fprintf(&b, "\nExact over all noise draws (the main table's and the others, `gen -reps`):\n\n")
		header(&b, slices.Concat([]string{"system", "noise"}, names))
		total := map[string]map[float64][2]int{}
		for _, k := range keys {
			fmt.Fprintf(&b, "| %s | %g %% |", k.system, 100*k.noise)
			for _, m := range names {
				fmt.Fprintf(&b, " %d/%d |", drawExact[m][k], draws[k])
				if total[m] == nil {
					total[m] = map[float64][2]int{}
				}
				t := total[m][k.noise]
				total[m][k.noise] = [2]int{t[0] + drawExact[m][k], t[1] + draws[k]}
			}
			fmt.Fprintf(&b, "\n")
		}
		b.WriteString("\n")
		header(&b, slices.Concat([]string{"method"}, exactColumns()))
		for _, m := range names {
			fmt.Fprintf(&b, "| %s |", m)
			for _, n := range noiseLevels {
				t := total[m][n]
				fmt.Fprintf(&b, " %d/%d |", t[0], t[1])
			}
			fmt.Fprintf(&b, "\n")
		}
	}
	fmt.Print(b.String())
	if *md != "" {
		return os.WriteFile(*md, []byte(b.String()), 0o644)
	}
	return nil
}
