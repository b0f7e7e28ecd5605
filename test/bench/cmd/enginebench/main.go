// Command enginebench generates the engine benchmark's reference cases and
// runs disco's engine on them (see test/bench/README.md).
//
//	enginebench gen -out DIR [-set 50|100] [-n 20] [-noise 0,0.01,0.1]
//	enginebench run -cases DIR -out ours.json [-time-limit 20s] [-pc pc.json] [-parts ...] [-units]
//
// gen writes the CSV files and DIR/manifest.json that the Python peers read;
// run runs engine.Discover (symbolic mode) on every Feynman case of the
// manifest, causal.Discover on the SEMs and Sachs (scoring causal-learn's PC
// graphs from -pc with the same functions), conservation.Find on the
// trajectories and the calibration runs, and writes one JSON document.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/causal"
	"github.com/discolab/disco/engine/conservation"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/engine/symbolic"
	"github.com/discolab/disco/test/bench"
)

// defaultNoise is gen's default list of noise levels of the Feynman cases,
// as fractions of RMS(y): SRBench's noise levels (La Cava et al. 2021,
// "Contemporary Symbolic Regression Methods and their Relative
// Performance": σ = level·RMS(y)).
const defaultNoise = "0,0.01,0.1"

// parseNoise reads a comma-separated list of noise levels in [0, 1).
func parseNoise(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v < 0 || v >= 1 || math.IsNaN(v) {
			return nil, fmt.Errorf("noise level %q: want a number in [0, 1)", f)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// caseNoise lists a case's noise levels (the keys of Files) in ascending
// order.
func caseNoise(c feynmanCase) []string {
	keys := make([]string, 0, len(c.Files))
	for k := range c.Files {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		x, _ := strconv.ParseFloat(a, 64)
		y, _ := strconv.ParseFloat(b, 64)
		return cmp.Compare(x, y)
	})
	return keys
}

type feynmanCase struct {
	Name   string            `json:"name"`
	Expr   string            `json:"expr"`
	Tier   string            `json:"tier"`
	Vars   []string          `json:"vars"`
	Ranges [][2]float64      `json:"ranges"`
	Files  map[string]string `json:"files"` // noise level ("0", "0.01", "0.1") -> CSV path relative to the manifest
}

type semCase struct {
	Name  string      `json:"name"`
	P     int         `json:"p"`
	Noise string      `json:"noise"`
	Seed  uint64      `json:"seed"`
	File  string      `json:"file"`
	Edges [][2]string `json:"edges"`
}

type sachsCase struct {
	File  string      `json:"file"`
	Rows  int         `json:"rows"`
	Edges [][2]string `json:"edges"`
}

type manifest struct {
	Rows    int           `json:"rows"`
	Set     string        `json:"set,omitempty"` // the Feynman table: "50" or "100" (bench.FeynmanSet)
	Alpha   float64       `json:"alpha"`
	Feynman []feynmanCase `json:"feynman"`
	SEM     []semCase     `json:"sem"`
	Sachs   sachsCase     `json:"sachs"`
}

// SachsConsensus is the 17-edge consensus network of /work/shared/data/README.md.
var SachsConsensus = [][2]string{
	{"raf", "mek"}, {"mek", "erk"}, {"erk", "akt"}, {"pka", "akt"}, {"pka", "erk"}, {"pka", "jnk"},
	{"pka", "mek"}, {"pka", "p38"}, {"pka", "raf"}, {"pkc", "jnk"}, {"pkc", "mek"}, {"pkc", "p38"},
	{"pkc", "pka"}, {"pkc", "raf"}, {"plc", "pip2"}, {"plc", "pip3"}, {"pip3", "pip2"},
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: enginebench gen|run|splits [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "splits":
		err = splits(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q (gen, run, splits)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "enginebench:", err)
		os.Exit(1)
	}
}

// readManifest reads DIR/manifest.json, written by gen.
func readManifest(dir string) (manifest, error) {
	var m manifest
	body, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return m, err
	}
	return m, json.Unmarshal(body, &m)
}

// pickEquations returns n equations of the table all spread evenly over it
// (all when n <= 0 or n >= the table size), or those of all named in only.
func pickEquations(all []bench.Equation, n int, only string) []bench.Equation {
	if only != "" {
		want := map[string]bool{}
		for _, s := range strings.Split(only, ",") {
			want[strings.TrimSpace(s)] = true
		}
		var out []bench.Equation
		for _, e := range all {
			if want[e.Name] {
				out = append(out, e)
			}
		}
		return out
	}
	if n <= 0 || n >= len(all) {
		return all
	}
	out := make([]bench.Equation, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, all[i*len(all)/n])
	}
	return out
}

func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	out := fs.String("out", "", "output directory (required)")
	set := fs.String("set", "100", "Feynman table: 50 (the first half, the benchmark's table until issue 18) or 100 (the whole AI Feynman database)")
	n := fs.Int("n", 0, "number of Feynman equations, spread over the table (0: all)")
	noise := fs.String("noise", defaultNoise, "comma-separated noise levels of the Feynman cases, as fractions of RMS(y)")
	only := fs.String("equations", "", "comma-separated equation names instead of -n")
	semSeeds := fs.Int("sem-seeds", 2, "random graphs per SEM size and noise kind")
	sachs := fs.String("sachs", "/work/shared/data/sachs-2005-continuous.tsv", "Sachs TSV")
	_ = fs.Parse(args) // ExitOnError: Parse exits on a bad flag
	if *out == "" {
		return fmt.Errorf("gen: -out is required")
	}
	table, ok := bench.FeynmanSet(*set)
	if !ok {
		return fmt.Errorf("gen: -set must be 50 or 100, not %q", *set)
	}
	noiseLevels, err := parseNoise(*noise)
	if err != nil {
		return fmt.Errorf("gen: -noise: %w", err)
	}
	m := manifest{Rows: bench.Rows, Alpha: 0.05, Set: *set}
	for _, eq := range pickEquations(table, *n, *only) {
		c := feynmanCase{Name: eq.Name, Expr: eq.Expr, Tier: eq.Tier, Files: map[string]string{}}
		for _, v := range eq.Vars {
			c.Vars = append(c.Vars, v.Name)
			c.Ranges = append(c.Ranges, [2]float64{v.Lo, v.Hi})
		}
		for _, nl := range noiseLevels {
			key := fmt.Sprint(nl)
			rel := filepath.Join("feynman", fmt.Sprintf("%s_noise%s.csv", eq.Name, key))
			if err := bench.FeynmanTable(eq, nl).WriteCSV(filepath.Join(*out, rel)); err != nil {
				return err
			}
			c.Files[key] = rel
		}
		m.Feynman = append(m.Feynman, c)
	}
	for _, p := range []int{10, 50} {
		for _, noise := range []string{"gaussian", "uniform", "laplace"} {
			for s := 1; s <= *semSeeds; s++ {
				name := fmt.Sprintf("sem_p%d_%s_s%d", p, noise, s)
				sem := bench.LinearSEM(name, p, bench.Rows, 2, noise, uint64(s))
				rel := filepath.Join("sem", name+".csv")
				if err := sem.Data.WriteCSV(filepath.Join(*out, rel)); err != nil {
					return err
				}
				m.SEM = append(m.SEM, semCase{Name: name, P: p, Noise: noise, Seed: uint64(s), File: rel, Edges: sem.Edges})
			}
		}
	}
	abs, err := filepath.Abs(*sachs)
	if err != nil {
		return err
	}
	m.Sachs = sachsCase{File: abs, Rows: 853, Edges: SachsConsensus}
	body, _ := json.MarshalIndent(m, "", "  ")
	fmt.Fprintf(os.Stderr, "gen: %d Feynman equations x %d noise levels, %d SEMs -> %s\n",
		len(m.Feynman), len(noiseLevels), len(m.SEM), *out)
	return os.WriteFile(filepath.Join(*out, "manifest.json"), body, 0o644)
}

// ---- run ----

type feynmanResult struct {
	Name         string   `json:"name"`
	Noise        string   `json:"noise"`
	Expression   string   `json:"expression"`
	Alternatives []string `json:"alternatives,omitempty"`
	RSquared     float64  `json:"r_squared"`
	HeldOutR2    float64  `json:"held_out_r_squared"`
	TimedOut     bool     `json:"timed_out"`
	WallSeconds  float64  `json:"wall_s"`
	Error        string   `json:"error,omitempty"`
	// Generations and Stop are the main search's length and why it ended;
	// they show which cases a smaller generation budget would change.
	Generations int                 `json:"generations,omitempty"`
	Stop        symbolic.StopReason `json:"stop,omitempty"`
	// DimensionallyConsistent is the chosen claim's evidence of that name
	// (runs with -units).
	DimensionallyConsistent *bool `json:"dimensionally_consistent,omitempty"`
	// Structure is the neural mode's claim checked against the truth.
	Structure *structureCheck `json:"structure,omitempty"`
}

type graphScore struct {
	SHD       int     `json:"shd_cpdag"`
	SHDDAG    int     `json:"shd_dag"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Edges     int     `json:"edges"`
	Directed  int     `json:"directed"`
	// CorrectOrient counts directed edges that agree with the true DAG,
	// WrongOrient directed edges between true adjacencies pointing the
	// other way.
	CorrectOrient int     `json:"correct_orientations"`
	WrongOrient   int     `json:"wrong_orientations"`
	Seconds       float64 `json:"time_s"`
	Error         string  `json:"error,omitempty"`
}

type semResult struct {
	Name    string      `json:"name"`
	P       int         `json:"p"`
	Noise   string      `json:"noise"`
	Ours    graphScore  `json:"ours"`
	OursPC  graphScore  `json:"ours_pc_only"`
	PC      *graphScore `json:"causallearn_pc,omitempty"`
	EdgeCnt int         `json:"true_edges"`
}

type conservationResult struct {
	Name        string   `json:"name"`
	Truth       string   `json:"truth"`
	Found       []string `json:"found"`
	Recovered   bool     `json:"recovered"`
	BestR2      float64  `json:"best_r2_vs_truth"`
	RelVar      float64  `json:"relative_variation"`
	Seconds     float64  `json:"time_s"`
	Error       string   `json:"error,omitempty"`
	NoiseFrac   float64  `json:"noise"`
	Trajectorys int      `json:"trajectories"`
}

type calibrationResult struct {
	Seeds         int      `json:"seeds"`
	NoClaimPassed int      `json:"runs_without_passing_claim"`
	Rate          float64  `json:"rate"`
	TimeLimitSec  float64  `json:"time_limit_s"`
	PassingClaims []string `json:"passing_claims,omitempty"`
	Errors        []string `json:"errors,omitempty"`
}

type report struct {
	Config       map[string]any       `json:"config"`
	Feynman      []feynmanResult      `json:"feynman"`
	SEM          []semResult          `json:"sem"`
	Sachs        map[string]any       `json:"sachs,omitempty"`
	Conservation []conservationResult `json:"conservation"`
	Calibration  *calibrationResult   `json:"calibration,omitempty"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	casesDir := fs.String("cases", "", "directory written by gen (required)")
	out := fs.String("out", "", "results JSON (required)")
	timeLimit := fs.Duration("time-limit", 20*time.Second, "engine time limit per Feynman case")
	epochs := fs.Int("epochs", 100000, "symbolic generations (large: the time limit decides)")
	seed := fs.Int64("seed", 1, "engine seed")
	pcFile := fs.String("pc", "", "causal-learn PC graphs (peers/pc_causallearn.py output)")
	parts := fs.String("parts", "feynman,sem,sachs,conservation,calibration", "what to run")
	calibSeeds := fs.Int("calib-seeds", 20, "calibration seeds")
	calibLimit := fs.Duration("calib-time-limit", 5*time.Second, "engine time limit per calibration run")
	consNoise := fs.Float64("cons-noise", 0.01, "noise of the conservation trajectories (fraction of each variable's RMS)")
	consTol := fs.Float64("cons-tol", 0, "conservation.Options.Tolerance (0: the package default)")
	depth := fs.Int("depth", -1, "PC max conditioning set size for ours (-1 unlimited, as causal-learn's default)")
	maxComplexity := fs.Int("max-complexity", 0, "max_complexity of the Feynman runs (0: the engine's default)")
	withUnits := fs.Bool("units", false, "declare each Feynman case's units (bench.FeynmanUnits) as a units: constraint")
	mode := (*engine.Mode)(fs.String("mode", string(engine.ModeSymbolic), "engine mode of the Feynman cases: symbolic, neuro_symbolic or neural (structure claims checked against the truth)"))
	_ = fs.Parse(args) // ExitOnError: Parse exits on a bad flag
	if *mode != engine.ModeSymbolic && *mode != engine.ModeNeuroSymbolic && *mode != engine.ModeNeural {
		return fmt.Errorf("run: -mode must be %s, %s or %s", engine.ModeSymbolic, engine.ModeNeuroSymbolic, engine.ModeNeural)
	}
	if *casesDir == "" || *out == "" {
		return fmt.Errorf("run: -cases and -out are required")
	}
	m, err := readManifest(*casesDir)
	if err != nil {
		return err
	}
	pcs := map[string]bench.PeerGraph{}
	if *pcFile != "" {
		if b, err := os.ReadFile(*pcFile); err == nil {
			if err := json.Unmarshal(b, &pcs); err != nil {
				return fmt.Errorf("reading %s: %w", *pcFile, err)
			}
		} else {
			fmt.Fprintf(os.Stderr, "run: no PC results (%v); causal comparison without the peer\n", err)
		}
	}
	want := map[string]bool{}
	for _, p := range strings.Split(*parts, ",") {
		want[strings.TrimSpace(p)] = true
	}
	rep := report{Config: map[string]any{
		"time_limit_s": timeLimit.Seconds(), "max_complexity": *maxComplexity, "mode": *mode, "units": *withUnits, "epochs": *epochs, "seed": *seed, "alpha": m.Alpha,
		"pc_depth": *depth, "calib_seeds": *calibSeeds, "calib_time_limit_s": calibLimit.Seconds(),
		"started": time.Now().UTC().Format(time.RFC3339),
	}}
	save := func() error {
		b, _ := json.MarshalIndent(rep, "", "  ")
		return os.WriteFile(*out, append(b, '\n'), 0o644)
	}
	ctx := context.Background()

	if want["feynman"] {
		for _, c := range m.Feynman {
			for _, key := range caseNoise(c) {
				path := filepath.Join(*casesDir, c.Files[key])
				var constraints []string
				if *withUnits {
					u, ok := bench.FeynmanUnits[c.Name]
					if !ok {
						return fmt.Errorf("run: -units: no units for %s", c.Name)
					}
					constraints = []string{"units:" + u}
				}
				r := runFeynman(ctx, path, *mode, *seed, *timeLimit, *epochs, *maxComplexity, constraints)
				r.Name, r.Noise = c.Name, key
				if *mode == engine.ModeNeural && r.Error == "" {
					r.Structure, r.Error = structureOf(r.Expression, c.Name, path)
				}
				fmt.Fprintf(os.Stderr, "feynman %-10s noise %-4s %6.1fs  %s\n", c.Name, key, r.WallSeconds, r.Expression+r.Error)
				rep.Feynman = append(rep.Feynman, r)
				if err := save(); err != nil {
					return err
				}
			}
		}
	}
	if want["sem"] {
		for _, c := range m.SEM {
			f, err := data.Load(filepath.Join(*casesDir, c.File), "csv")
			if err != nil {
				return err
			}
			X, err := f.Matrix(f.Names())
			if err != nil {
				return err
			}
			r := semResult{Name: c.Name, P: c.P, Noise: c.Noise, EdgeCnt: len(c.Edges)}
			r.Ours = runCausal(ctx, X, f.Names(), c.Edges, causal.Options{Alpha: m.Alpha, MaxConditioningSet: *depth, Seed: *seed})
			r.OursPC = runCausal(ctx, X, f.Names(), c.Edges, causal.Options{Alpha: m.Alpha, MaxConditioningSet: *depth, Seed: *seed, DisableLiNGAM: true})
			if pg, ok := pcs[c.Name]; ok {
				s := scorePeer(pg, c.Edges)
				r.PC = &s
			}
			fmt.Fprintf(os.Stderr, "sem %-24s ours F1 %.3f SHD %d %.3fs", c.Name, r.Ours.F1, r.Ours.SHD, r.Ours.Seconds)
			if r.PC != nil {
				fmt.Fprintf(os.Stderr, " | PC F1 %.3f SHD %d %.3fs", r.PC.F1, r.PC.SHD, r.PC.Seconds)
			}
			fmt.Fprintln(os.Stderr)
			rep.SEM = append(rep.SEM, r)
		}
		if err := save(); err != nil {
			return err
		}
	}
	if want["sachs"] {
		f, err := data.Load(m.Sachs.File, "")
		if err != nil {
			return err
		}
		f = f.Head(m.Sachs.Rows)
		X, err := f.Matrix(f.Names())
		if err != nil {
			return err
		}
		s := map[string]any{"rows": f.Rows, "consensus_edges": len(m.Sachs.Edges)}
		s["ours"] = runCausal(ctx, X, f.Names(), m.Sachs.Edges, causal.Options{Alpha: m.Alpha, MaxConditioningSet: *depth, Seed: *seed})
		s["ours_default_depth"] = runCausal(ctx, X, f.Names(), m.Sachs.Edges, causal.Options{Alpha: m.Alpha, Seed: *seed})
		s["ours_pc_only"] = runCausal(ctx, X, f.Names(), m.Sachs.Edges, causal.Options{Alpha: m.Alpha, MaxConditioningSet: *depth, Seed: *seed, DisableLiNGAM: true})
		if pg, ok := pcs["sachs"]; ok {
			s["causallearn_pc"] = scorePeer(pg, m.Sachs.Edges)
		}
		if g, err := causal.Discover(ctx, X, f.Names(), causal.Options{Alpha: m.Alpha, MaxConditioningSet: *depth, Seed: *seed}); err == nil {
			var es []string
			for _, e := range g.Edges {
				arrow := " -- "
				if e.Directed {
					arrow = " -> "
				}
				es = append(es, e.From+arrow+e.To+" ("+e.OrientedBy+")")
			}
			s["ours_edges"] = es
		}
		rep.Sachs = s
		fmt.Fprintf(os.Stderr, "sachs ours %+v\n", s["ours"])
		if err := save(); err != nil {
			return err
		}
	}
	if want["conservation"] {
		n := *consNoise
		// Each set shares its states; Kepler's four invariants need degree 3
		// (the Laplace–Runge–Lenz vector) and room for four quantities.
		for _, set := range []struct {
			cases []*bench.Trajectories
			opts  conservation.Options
		}{
			{[]*bench.Trajectories{bench.MassSpring(n)}, conservation.Options{}},
			{[]*bench.Trajectories{bench.Pendulum(n)}, conservation.Options{}},
			{[]*bench.Trajectories{bench.Kepler(n)}, conservation.Options{}},
			{[]*bench.Trajectories{bench.LotkaVolterra(n)}, conservation.Options{}},
			{[]*bench.Trajectories{bench.LotkaVolterraWide(n)}, conservation.Options{}},
			{bench.KeplerInvariants(n), conservation.Options{MaxDegree: 3, MaxQuantities: 4}},
		} {
			set.opts.Tolerance = *consTol
			for _, r := range runConservation(ctx, set.cases, n, set.opts) {
				fmt.Fprintf(os.Stderr, "conservation %-24s recovered=%v found=%v\n", r.Name, r.Recovered, r.Found)
				rep.Conservation = append(rep.Conservation, r)
			}
		}
		if err := save(); err != nil {
			return err
		}
	}
	if want["calibration"] {
		rep.Calibration = runCalibration(ctx, *calibSeeds, *calibLimit, *epochs)
		fmt.Fprintf(os.Stderr, "calibration %d/%d runs without a passing claim\n", rep.Calibration.NoClaimPassed, rep.Calibration.Seeds)
	}
	rep.Config["finished"] = time.Now().UTC().Format(time.RFC3339)
	return save()
}

func runFeynman(ctx context.Context, path string, mode engine.Mode, seed int64, limit time.Duration, epochs, maxComplexity int, constraints []string) feynmanResult {
	var r feynmanResult
	f, err := data.Load(path, "csv")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	spec := engine.Spec{Mode: mode, Targets: []string{"y"}, Seed: seed, TimeLimit: limit,
		Parameters: engine.Parameters{Epochs: epochs, MaxComplexity: maxComplexity, Constraints: constraints}}
	start := time.Now()
	res, err := engine.Discover(ctx, f, spec, nil)
	r.WallSeconds = time.Since(start).Seconds()
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.TimedOut = res.Summary.TimedOut
	if len(res.Summary.Searches) > 0 {
		r.Generations, r.Stop = res.Summary.Searches[0].Generations, res.Summary.Searches[0].Stop
	}
	alt := map[int]bool{}
	for _, i := range res.Summary.Alternatives {
		alt[i] = true
	}
	// The chosen model is the first law claim that is not an alternative.
	for i, c := range res.Claims {
		if c.Type != engine.ClaimLaw {
			continue
		}
		if alt[i] {
			r.Alternatives = append(r.Alternatives, c.Expression)
			continue
		}
		if r.Expression == "" {
			r.Expression = c.Expression
			if c.Evidence.RSquared != nil {
				r.RSquared = *c.Evidence.RSquared
			}
			if c.Evidence.HeldOutRSquared != nil {
				r.HeldOutR2 = *c.Evidence.HeldOutRSquared
			}
			r.DimensionallyConsistent = c.Evidence.DimensionallyConsistent
		}
	}
	return r
}

type pairKey [2]string

func key(a, b string) pairKey {
	if b < a {
		a, b = b, a
	}
	return pairKey{a, b}
}

// score compares g with the true DAG: SHD against its CPDAG (causal.SHD),
// SHD against the DAG itself (each adjacency whose presence or marks differ
// from the DAG counts 1), skeleton precision/recall/F1 and orientations.
func score(g *causal.Graph, truth [][2]string) graphScore {
	var s graphScore
	s.SHD = causal.SHD(g, truth)
	s.Precision, s.Recall, s.F1 = causal.SkeletonF1(g, truth)
	dag := map[pairKey][2]string{}
	for _, e := range truth {
		dag[key(e[0], e[1])] = e
	}
	seen := map[pairKey]bool{}
	for _, e := range g.Edges {
		k := key(e.From, e.To)
		seen[k] = true
		s.Edges++
		t, ok := dag[k]
		if e.Directed {
			s.Directed++
		}
		switch {
		case !ok:
			s.SHDDAG++
		case !e.Directed:
			s.SHDDAG++
		case t[0] == e.From && t[1] == e.To:
			s.CorrectOrient++
		default:
			s.WrongOrient++
			s.SHDDAG++
		}
	}
	for k := range dag {
		if !seen[k] {
			s.SHDDAG++
		}
	}
	return s
}

func runCausal(ctx context.Context, X [][]float64, names []string, truth [][2]string, opts causal.Options) graphScore {
	start := time.Now()
	g, err := causal.Discover(ctx, X, names, opts)
	el := time.Since(start).Seconds()
	if err != nil {
		return graphScore{Error: err.Error(), Seconds: el}
	}
	s := score(g, truth)
	s.Seconds = el
	return s
}

func scorePeer(pg bench.PeerGraph, truth [][2]string) graphScore {
	if pg.Error != "" {
		return graphScore{Error: pg.Error, Seconds: pg.Seconds}
	}
	s := score(pg.Graph(), truth)
	s.Seconds = pg.Seconds
	return s
}

// runConservation fits on the noisy states the cases share (once) and judges
// the found quantities against each case's true one on the clean states:
// recovered when some quantity Q satisfies Q ≈ a·Q_true + b with R² ≥ 0.99
// (scale and offset are arbitrary).
func runConservation(ctx context.Context, cases []*bench.Trajectories, noise float64, opts conservation.Options) []conservationResult {
	t := cases[0]
	start := time.Now()
	qs, err := conservation.Find(ctx, t.Noisy, t.Names, t.Traj, opts)
	seconds := time.Since(start).Seconds()
	var out []conservationResult
	for _, c := range cases {
		r := conservationResult{Name: c.Name, Truth: c.Truth, NoiseFrac: noise, Seconds: seconds}
		if err != nil {
			r.Error = err.Error()
			out = append(out, r)
			continue
		}
		n := len(c.Traj)
		truth := make([]float64, n)
		state := make([]float64, len(c.Names))
		for i := 0; i < n; i++ {
			for j := range c.Names {
				state[j] = c.Clean[j][i]
			}
			truth[i] = c.Quantity(state)
		}
		for _, q := range qs {
			r.Found = append(r.Found, q.Expression)
			r.Trajectorys = q.Trajectories
			vals, err := bench.QuantityValues(q.Coefficients, c.Names, c.Clean)
			if err != nil {
				r.Error = err.Error()
				continue
			}
			if r2 := bench.AffineR2(vals, truth); r2 > r.BestR2 {
				r.BestR2, r.RelVar = r2, q.RelativeVariation
			}
		}
		r.Recovered = r.BestR2 >= 0.99
		out = append(out, r)
	}
	return out
}

// runCalibration runs symbolic discovery on targets independent of the
// inputs; a run is well calibrated when no claim passes its negative
// controls.
func runCalibration(ctx context.Context, seeds int, limit time.Duration, epochs int) *calibrationResult {
	r := &calibrationResult{Seeds: seeds, TimeLimitSec: limit.Seconds()}
	tmp, err := os.MkdirTemp("", "enginebench-calib")
	if err != nil {
		r.Errors = append(r.Errors, err.Error())
		return r
	}
	defer os.RemoveAll(tmp)
	for s := 1; s <= seeds; s++ {
		path := filepath.Join(tmp, fmt.Sprintf("null_%d.csv", s))
		if err := bench.NullTable(uint64(s), 500, 4).WriteCSV(path); err != nil {
			r.Errors = append(r.Errors, err.Error())
			continue
		}
		f, err := data.Load(path, "csv")
		if err != nil {
			r.Errors = append(r.Errors, err.Error())
			continue
		}
		spec := engine.Spec{Mode: engine.ModeSymbolic, Targets: []string{"y"}, Seed: int64(s), TimeLimit: limit,
			Parameters: engine.Parameters{Epochs: epochs}}
		res, err := engine.Discover(ctx, f, spec, nil)
		if err != nil {
			r.Errors = append(r.Errors, fmt.Sprintf("seed %d: %v", s, err))
			continue
		}
		passed := false
		for _, c := range res.Claims {
			if c.Evidence.NegativeControlsPassed {
				passed = true
				r.PassingClaims = append(r.PassingClaims, fmt.Sprintf("seed %d: %s (score %.2f)", s, c.Expression, c.Score))
			}
		}
		if !passed {
			r.NoClaimPassed++
		}
	}
	r.Rate = float64(r.NoClaimPassed) / float64(seeds)
	return r
}
