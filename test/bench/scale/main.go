// Command scale measures how the engine's time and peak memory grow with the
// rows and columns of a dataset, per mode (issue 18, item 4), and compares
// causal discovery on a large SEM with causal-learn PC.
//
// Each point runs in a child process (this binary with -child), so that its
// peak memory is its own: the child reports its VmHWM from
// /proc/self/status. Its ru_maxrss would not do: it also counts the parent's
// resident set at the fork (engine/data/memory_test.go).
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/discolab/disco/engine"
	"github.com/discolab/disco/engine/causal"
	"github.com/discolab/disco/engine/data"
	"github.com/discolab/disco/test/bench"
)

// point is one measurement: a mode at a table size.
type point struct {
	Mode   string  `json:"mode"`
	Rows   int     `json:"rows"`
	Cols   int     `json:"cols"`
	WallS  float64 `json:"wall_s"`
	CPUS   float64 `json:"cpu_s"`
	PeakMB float64 `json:"peak_rss_mb"`
	Claims int     `json:"claims"`
	Passed int     `json:"claims_passing_controls"`
	// PassingSet lists the passing claims (cause->effect, or the law) with
	// -list, to compare two engines claim by claim.
	PassingSet []string           `json:"passing_claims,omitempty"`
	StagesMS   map[string]int64   `json:"stages_ms,omitempty"`
	Extra      map[string]float64 `json:"extra,omitempty"`
	TimedOut   bool               `json:"timed_out,omitempty"`
	// LimitS is the engine's time limit of the point (0: none).
	LimitS    float64 `json:"time_limit_s,omitempty"`
	Error     string  `json:"error,omitempty"`
	LoadAvg   string  `json:"load_avg"`
	GenerateS float64 `json:"generate_s"`
	// GenerateCPUS is the CPU time the child spent before the engine
	// started (making the data), subtracted from CPUS.
	GenerateCPUS float64 `json:"generate_cpu_s"`
}

var listClaims bool

func main() {
	child := flag.Bool("child", false, "run one point in this process and print it as JSON")
	flag.BoolVar(&listClaims, "list", false, "child: list the passing claims")
	mode := flag.String("mode", "causal", "symbolic, neural, neuro_symbolic (the three on the symbolic table), causal, causal-null (independent columns), graph (causal.Discover alone), conservation or dynamics")
	rows := flag.Int("rows", 1000, "rows")
	cols := flag.Int("cols", 5, "columns")
	seed := flag.Int64("seed", 1, "seed")
	limit := flag.Duration("time-limit", 0, "engine time limit (0: none)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the child run")
	memProfile := flag.String("memprofile", "", "write a heap profile (allocations) of the child run at its end")
	grid := flag.String("grid", "", "sweep: mode:rows×cols,... (e.g. causal:1000x5,causal:1000x50); empty: the default grid")
	out := flag.String("out", "", "sweep: write the points as JSON here")
	budget := flag.Duration("budget", 20*time.Minute, "sweep: stop starting points after this long")
	childBin := flag.String("child-bin", "", "sweep: run the points with this binary (another build of this command, e.g. of an older engine); default: this one")
	pcSize := flag.String("pc", "", "compare with causal-learn PC at ROWSxCOLS (e.g. 100000x200) instead of sweeping")
	python := flag.String("python", os.ExpandEnv("$HOME/.cache/disco/benchvenv/bin/python"), "python with causal-learn (the venv of test/bench/run-engine.sh)")
	pcScript := flag.String("pc-script", "test/bench/scale/pc.py", "the PC runner")
	files := flag.String("files", "", "instead of sweeping: write each file format:ROWSxCOLS,... (parquet or csv, N(0,1) doubles) under -file-dir, measure profiling and upload validation of it in children, delete it")
	fileDir := flag.String("file-dir", os.TempDir(), "-files: where the files are written")
	file := flag.String("file", "", "child: the file of -mode profile or validate")
	flag.IntVar(&parquetRowGroup, "row-group", parquetRowGroup, "-files: rows per Parquet row group")
	flag.BoolVar(&keepFiles, "keep", false, "-files: keep the files")
	flag.Parse()
	// self is the binary the children run: -child-bin, or this one.
	self := *childBin
	if self == "" && !*child {
		var err error
		if self, err = os.Executable(); err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
	}
	if *files != "" {
		if err := fileSweep(*files, *fileDir, *out, self); err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		return
	}
	if *pcSize != "" {
		pts, err := parseGrid("pc:" + *pcSize)
		if err != nil || len(pts) != 1 {
			fmt.Fprintln(os.Stderr, "scale: -pc wants ROWSxCOLS")
			os.Exit(2)
		}
		r := comparePC(self, *python, *pcScript, pts[0].Rows, pts[0].Cols, *seed, *limit)
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Println(string(b))
		if *out != "" {
			if err := writeFile(*out, b); err != nil {
				fmt.Fprintln(os.Stderr, "scale:", err)
				os.Exit(1)
			}
		}
		return
	}
	if *child {
		var p point
		if *file != "" {
			p = runFile(*mode, *file)
		} else {
			p = runPoint(*mode, *rows, *cols, *seed, *limit, *cpuProfile)
		}
		if *memProfile != "" {
			if err := writeHeapProfile(*memProfile); err != nil {
				fmt.Fprintln(os.Stderr, "scale:", err)
			}
		}
		p.PeakMB = vmHWM()
		_ = json.NewEncoder(os.Stdout).Encode(p)
		return
	}
	if err := sweep(*grid, *out, self, *seed, *limit, *budget); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// frameOf turns named columns into an engine frame.
func frameOf(names []string, cols [][]float64) *data.Frame {
	f := &data.Frame{Rows: len(cols[0])}
	for j, n := range names {
		f.Columns = append(f.Columns, data.Column{Name: n, DType: data.Float64, Values: cols[j]})
	}
	return f
}

// symbolicTable: y = 2.5·x0·x1/x2 + noise 1 % of its RMS, with cols-1 inputs
// U(1,5) of which x0..x2 are used (the law the 1M-row run found).
func symbolicTable(rows, cols int, seed uint64) ([]string, [][]float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	k := max(cols-1, 3)
	names := make([]string, 0, k+1)
	X := make([][]float64, 0, k+1)
	for j := 0; j < k; j++ {
		c := make([]float64, rows)
		for i := range c {
			c[i] = 1 + 4*r.Float64()
		}
		names = append(names, "x"+strconv.Itoa(j))
		X = append(X, c)
	}
	y := make([]float64, rows)
	for i := range y {
		y[i] = 2.5 * X[0][i] * X[1][i] / X[2][i]
	}
	rms := 0.0
	for _, v := range y {
		rms += v * v
	}
	rms = math.Sqrt(rms / float64(rows))
	for i := range y {
		y[i] += 0.01 * rms * r.NormFloat64()
	}
	return append(names, "y"), append(X, y)
}

func runPoint(mode string, rows, cols int, seed int64, limit time.Duration, cpuProfile string) point {
	p := point{Mode: mode, Rows: rows, Cols: cols, LoadAvg: loadAvg(), Extra: map[string]float64{}}
	t0 := time.Now()
	var names []string
	var X [][]float64
	var truth [][2]string
	var clean [][]float64 // conservation: the states without noise
	switch mode {
	case "symbolic", "neural", "neuro_symbolic":
		names, X = symbolicTable(rows, cols, uint64(seed))
	case "causal-null": // independent Gaussian columns: any passing claim is a false one
		s := bench.LinearSEM(fmt.Sprintf("scale-null-%dx%d", cols, rows), cols, rows, 0, "gaussian", uint64(seed))
		names, X = s.Data.Names, s.Data.Cols
	case "causal", "graph":
		s := bench.LinearSEM(fmt.Sprintf("scale-%dx%d", cols, rows), cols, rows, 2, "gaussian", uint64(seed))
		names, X, truth = s.Data.Names, s.Data.Cols, s.Edges
	case "conservation":
		names, X, clean = oscillatorTable(rows, cols, uint64(seed))
	case "dynamics":
		names, X = dynamicsTable(rows, cols, uint64(seed))
	default:
		p.Error = "unknown mode " + mode
		return p
	}
	p.GenerateS = time.Since(t0).Seconds()
	p.GenerateCPUS = cpuSeconds()
	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err == nil {
			_ = pprof.StartCPUProfile(f)
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	ctx := context.Background()
	start := time.Now()
	if mode == "graph" {
		g, err := causal.Discover(ctx, X, names, causal.Options{Alpha: 0.05, DisableLiNGAM: true, Seed: seed})
		p.WallS = time.Since(start).Seconds()
		if err != nil {
			p.Error = err.Error()
			return p
		}
		p.Claims = len(g.Edges)
		_, _, p.Extra["skeleton_f1"] = causal.SkeletonF1(g, truth)
		p.Extra["true_edges"] = float64(len(truth))
		return p
	}
	spec := engine.Spec{Mode: engine.Mode(strings.TrimSuffix(mode, "-null")), Seed: seed, TimeLimit: limit}
	switch mode {
	case "symbolic", "neural", "neuro_symbolic":
		spec.Targets = []string{"y"}
	case "conservation":
		spec = conservationSpec(names, seed, limit)
	case "dynamics":
		spec = dynamicsSpec(names, seed, limit)
	}
	res, err := engine.Discover(ctx, frameOf(names, X), spec, nil)
	p.WallS = time.Since(start).Seconds()
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.TimedOut = res.Summary.TimedOut
	p.StagesMS = map[string]int64{}
	for _, s := range res.Summary.Stages {
		if s.DurationMS > 0 {
			p.StagesMS[string(s.Name)] = s.DurationMS
		}
	}
	p.Claims = len(res.Claims)
	for _, c := range res.Claims {
		if c.Evidence.NegativeControlsPassed {
			p.Passed++
			if listClaims {
				p.PassingSet = append(p.PassingSet, c.Cause+"->"+c.Effect+c.Expression)
			}
		}
	}
	if mode == "causal" {
		var edges [][2]string
		for _, c := range res.Claims {
			if c.Type == engine.ClaimCausal {
				edges = append(edges, [2]string{c.Cause, c.Effect})
			}
		}
		p.Extra["skeleton_f1"] = skeletonF1(edges, truth)
	}
	switch mode {
	case "conservation":
		scoreConservation(&p, res, names, clean)
	case "dynamics":
		scoreDynamics(&p, res, len(names)-2)
	}
	if spec.Targets != nil && res.Summary.BestClaimIndex >= 0 {
		p.Extra["best_r2"] = valueOr(res.Claims[res.Summary.BestClaimIndex].Evidence.RSquared)
	}
	runtime.KeepAlive(X)
	return p
}

func valueOr(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// skeletonF1 scores found adjacencies against the true ones, direction
// ignored.
func skeletonF1(found, truth [][2]string) float64 {
	key := func(e [2]string) [2]string {
		if e[1] < e[0] {
			return [2]string{e[1], e[0]}
		}
		return e
	}
	want := map[[2]string]bool{}
	for _, e := range truth {
		want[key(e)] = true
	}
	got := map[[2]string]bool{}
	for _, e := range found {
		got[key(e)] = true
	}
	tp := 0
	for e := range got {
		if want[e] {
			tp++
		}
	}
	if tp == 0 {
		return 0
	}
	prec, rec := float64(tp)/float64(len(got)), float64(tp)/float64(len(want))
	return 2 * prec * rec / (prec + rec)
}

// measure runs one point in a child process.
// With -list, the child lists the passing claims.
func measure(self, mode string, rows, cols int, seed int64, limit time.Duration) point {
	args := []string{"-child", "-mode", mode, "-rows", strconv.Itoa(rows),
		"-cols", strconv.Itoa(cols), "-seed", strconv.FormatInt(seed, 10), "-time-limit", limit.String()}
	if listClaims {
		args = append(args, "-list")
	}
	return runChild(self, point{Mode: mode, Rows: rows, Cols: cols}, args...)
}

// runChild runs self with args and returns the point it prints, with its CPU
// time (user + system, less the data generation's). A child that prints no
// point is reported as failed (what, with the error), and its peak is then
// read from ru_maxrss, which may count the parent's too.
func runChild(self string, what point, args ...string) point {
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	p := what
	if jerr := json.Unmarshal(outb, &p); jerr != nil {
		p = what
		p.LoadAvg = loadAvg()
		p.Error = cmp.Or(err, jerr).Error()
	}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && p.PeakMB == 0 {
			p.PeakMB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
		}
		p.CPUS = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() - p.GenerateCPUS
	}
	return p
}

// writeFile writes b to path, creating its directory.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// parseGrid reads mode:ROWSxCOLS[@LIMIT],... where LIMIT, a duration,
// replaces the sweep's time limit for that point.
func parseGrid(s string) ([]point, error) {
	var out []point
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		var limit time.Duration
		if rest, lim, ok := strings.Cut(item, "@"); ok {
			d, err := time.ParseDuration(lim)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("grid item %q: the time limit after @ must be a positive duration", item)
			}
			item, limit = rest, d
		}
		mode, size, ok := strings.Cut(item, ":")
		r, c, ok2 := strings.Cut(size, "x")
		if !ok || !ok2 {
			return nil, fmt.Errorf("grid item %q: want mode:ROWSxCOLS", item)
		}
		rows, err1 := strconv.ParseFloat(r, 64)
		cols, err2 := strconv.Atoi(c)
		if err1 != nil || err2 != nil || rows < 1 || cols < 1 {
			return nil, fmt.Errorf("grid item %q: want mode:ROWSxCOLS with positive numbers", item)
		}
		out = append(out, point{Mode: mode, Rows: int(rows), Cols: cols, LimitS: limit.Seconds()})
	}
	return out, nil
}

func sweep(grid, out, self string, seed int64, limit time.Duration, budget time.Duration) error {
	if grid == "" {
		grid = defaultGrid
	}
	points, err := parseGrid(grid)
	if err != nil {
		return err
	}
	start := time.Now()
	var done []point
	for _, q := range points {
		if time.Since(start) > budget {
			fmt.Fprintf(os.Stderr, "budget %s spent: %s %dx%d not run\n", budget, q.Mode, q.Rows, q.Cols)
			continue
		}
		lim := limit
		if q.LimitS > 0 {
			lim = time.Duration(q.LimitS * float64(time.Second))
		}
		p := measure(self, q.Mode, q.Rows, q.Cols, seed, lim)
		p.LimitS = lim.Seconds()
		done = append(done, p)
		if err := report(p, done, out); err != nil {
			return err
		}
	}
	return nil
}

// report prints the point just measured as one JSON line and, with out, writes
// every point so far there, so an interrupted sweep keeps what it measured.
func report[T any](point T, done []T, out string) error {
	b, _ := json.Marshal(point)
	fmt.Println(string(b))
	if out == "" {
		return nil
	}
	all, _ := json.MarshalIndent(done, "", "  ")
	return writeFile(out, all)
}

// cpuSeconds is this process's user+system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// pcPoint is causal-learn PC on a SEM next to our causal.Discover alone and
// the whole causal run (controls included), on the same data.
type pcPoint struct {
	Rows, Cols int
	TrueEdges  int     `json:"true_edges"`
	PCTimeS    float64 `json:"pc_time_s"`  // pc(...) alone, as the script times it
	PCPeakMB   float64 `json:"pc_peak_mb"` // the Python process's ru_maxrss
	PCF1       float64 `json:"pc_skeleton_f1"`
	PCEdges    int     `json:"pc_edges"`
	Graph      point   `json:"ours_graph"` // causal.Discover (PC-stable, no LiNGAM)
	Run        point   `json:"ours_run"`   // engine.Discover causal mode
	LoadBefore string  `json:"load_before"`
	LoadAfter  string  `json:"load_after"`
	Error      string  `json:"error,omitempty"`
}

// comparePC writes the SEM the child would generate to a CSV, runs
// pc.py on it with python, then our graph and our whole run in children.
func comparePC(self, python, script string, rows, cols int, seed int64, limit time.Duration) pcPoint {
	out := pcPoint{Rows: rows, Cols: cols, LoadBefore: loadAvg()}
	s := bench.LinearSEM(fmt.Sprintf("scale-%dx%d", cols, rows), cols, rows, 2, "gaussian", uint64(seed))
	out.TrueEdges = len(s.Edges)
	dir, err := os.MkdirTemp("", "scale-pc")
	if err != nil {
		out.Error = err.Error()
		return out
	}
	defer os.RemoveAll(dir)
	csv := dir + "/sem.csv"
	if err := s.Data.WriteCSV(csv); err != nil {
		out.Error = err.Error()
		return out
	}
	cmd := exec.Command(python, script, "--csv", csv)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	var res bench.PeerGraph
	if err != nil {
		out.Error = "pc: " + err.Error()
	} else if err := json.Unmarshal(b, &res); err != nil {
		out.Error = "pc: " + err.Error()
	} else {
		_, _, out.PCF1 = causal.SkeletonF1(res.Graph(), s.Edges)
		out.PCTimeS, out.PCEdges = res.Seconds, len(res.Edges)
	}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			out.PCPeakMB = float64(ru.Maxrss) / 1024
		}
	}
	out.Graph = measure(self, "graph", rows, cols, seed, limit)
	out.Run = measure(self, "causal", rows, cols, seed, limit)
	out.LoadAfter = loadAvg()
	return out
}

// writeHeapProfile writes the heap profile (go tool pprof -sample_index
// alloc_space shows what allocated most) to path.
func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
