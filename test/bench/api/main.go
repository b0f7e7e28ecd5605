// Command api benchmarks the REST facade's claim reads (issue 4, "Benchmark (make
// bench-api)"): an authenticated GET of one claim and of a 100-item list page, with N claims
// stored, against a bare net/http JSON handler served by the same process to the same
// client in the same run.
//
// It starts an envtest control plane (etcd + kube-apiserver from $KUBEBUILDER_ASSETS,
// CRDs from config/crd/bases), a controller-runtime manager with internal/index and the
// tenant and project controllers, SQLite/blob/ledger in a temp dir, and the facade
// (apiserver.New) on a loopback port. It creates a tenant (enterprise tier), an admin API
// key (apiserver.Bootstrap) and a project through the REST API, then, for each N in
// -claims (ascending), tops the project up to N claims written directly with the
// controller-runtime client, waits until the facade's list reports total_count == N, and
// runs a closed-loop load (keep-alive client, -c workers, -duration per target, split into
// -rounds interleaved rounds) against:
//
//	bare-get   bare net/http handler encoding one claims.Claim
//	get        GET /v1/projects/{p}/claims/{random id}
//	bare-list  bare net/http handler encoding a 100-claim list page
//	list       GET /v1/projects/{p}/claims?limit=100            (first page)
//	list-next  GET /v1/projects/{p}/claims?limit=100&cursor=... (random one of the first pages)
//
// Rate limiting: the facade limits each tenant to 6,000 requests a minute (enterprise) and
// offers no option to raise it. The benchmark therefore gives the facade a clock that runs
// -limiter-speedup times faster than real time (apiserver.Options.Now, which the in-memory
// limiter reads); the limiter still runs on every request, it just refills faster. Any
// non-200 answer (429 included) is counted, reported, and excluded from throughput and
// latency.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver/claims"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/bench/internal/benchenv"
)

type config struct {
	claims      []int
	duration    time.Duration
	rounds      int
	conc        int
	workers     int
	speedup     float64
	cursorPages int
	repo        string
	out         string
	profileDir  string
}

func main() {
	var cfg config
	var claims string
	flag.StringVar(&claims, "claims", "1000,100000", "comma-separated claim counts, measured in ascending order (the project is topped up)")
	flag.DurationVar(&cfg.duration, "duration", 10*time.Second, "measured time per target and claim count")
	flag.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds the duration is split into")
	flag.IntVar(&cfg.conc, "c", 8, "concurrent client workers (closed loop)")
	flag.IntVar(&cfg.workers, "create-workers", 16, "concurrent writers when creating claims")
	flag.Float64Var(&cfg.speedup, "limiter-speedup", 1000, "the facade's clock runs this many times faster than real time, so the per-tenant rate limit (6,000/min) does not throttle the benchmark; 1 measures the real limit")
	flag.IntVar(&cfg.cursorPages, "cursor-pages", 5, "list pages after the first whose cursors list-next picks from")
	flag.StringVar(&cfg.repo, "repo", ".", "repository root (for config/crd/bases and bin/k8s)")
	flag.StringVar(&cfg.out, "out", "", "also write the results as JSON to this file")
	flag.StringVar(&cfg.profileDir, "profile-dir", "", "after measuring, profile each facade target for 3 s more and write cpu-<N>-<target>.pprof and allocs there (the whole process: facade, client and cache)")
	flag.Parse()
	for _, f := range strings.Split(claims, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fatalf("bad -claims entry %q", f)
		}
		cfg.claims = append(cfg.claims, n)
	}
	slices.Sort(cfg.claims)
	if cfg.rounds < 1 || cfg.conc < 1 || cfg.workers < 1 || cfg.speedup < 1 {
		fatalf("-rounds, -c, -create-workers and -limiter-speedup must be >= 1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour) // a hard stop, whatever happens
	defer cancel()
	if err := run(ctx, cfg); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-api: "+format+"\n", args...)
	os.Exit(1) //nolint:revive // the benchmark's one way out, called from main's helpers
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// stack is everything the benchmark runs against.
type stack struct {
	direct    client.Client
	baseURL   string
	apiKey    string
	tenantID  string
	namespace string
	projectID string
	campaign  string
	runID     string
	hc        *http.Client
}

func run(ctx context.Context, cfg config) error {
	e, err := benchenv.Start(ctx, cfg.repo, cfg.speedup, logf)
	if err != nil {
		return err
	}
	defer e.Close()
	baseURL := e.Options.BaseURL

	httpSrv := &http.Server{Handler: e.Server.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = httpSrv.Serve(e.Listener) }()
	defer httpSrv.Close()

	s := &stack{
		direct: e.Direct, baseURL: baseURL, apiKey: e.APIKey, tenantID: e.TenantID, namespace: e.Namespace,
		campaign: ids.New(ids.Campaign), runID: ids.New(ids.Run),
		hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
			MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute, DisableCompression: true,
		}},
	}
	var proj struct {
		ID string `json:"id"`
	}
	if code, err := s.do(ctx, http.MethodPost, "/projects", `{"name":"bench-api","description":"make bench-api"}`, &proj); err != nil || code != http.StatusCreated {
		return fmt.Errorf("create project: HTTP %d: %v", code, err)
	}
	s.projectID = proj.ID
	if _, err := s.total(ctx); err != nil { // also starts the claim informer before the bulk writes
		return err
	}
	logf("facade at %s, tenant %s (namespace %s), project %s", baseURL, e.TenantID, e.Namespace, s.projectID)

	bare, bareURL, err := startBare()
	if err != nil {
		return err
	}
	defer bare.Close()

	var results []result
	have := 0
	for _, n := range cfg.claims {
		if err := s.createClaims(ctx, have, n, cfg.workers); err != nil {
			return err
		}
		have = n
		claimIDs, err := s.waitAndCollect(ctx, n)
		if err != nil {
			return err
		}
		cursors, err := s.cursors(ctx, cfg.cursorPages)
		if err != nil {
			return err
		}
		runtime.GC()
		targets := []target{
			{name: "bare-get", url: func(*rand.Rand) string { return bareURL + "/claim" }},
			{name: "get", auth: true, url: func(r *rand.Rand) string {
				return s.baseURL + "/projects/" + s.projectID + "/claims/" + claimIDs[r.IntN(len(claimIDs))]
			}},
			{name: "bare-list", url: func(*rand.Rand) string { return bareURL + "/list" }},
			{name: "list", auth: true, url: func(*rand.Rand) string {
				return s.baseURL + "/projects/" + s.projectID + "/claims?limit=100"
			}},
		}
		if len(cursors) > 0 {
			targets = append(targets, target{name: "list-next", auth: true, url: func(r *rand.Rand) string {
				return s.baseURL + "/projects/" + s.projectID + "/claims?limit=100&cursor=" + url.QueryEscape(cursors[r.IntN(len(cursors))])
			}})
		}
		logf("N=%d: measuring %d targets, %s each in %d interleaved rounds, %d workers", n, len(targets), cfg.duration, cfg.rounds, cfg.conc)
		res := measure(ctx, s, targets, cfg)
		for i := range res {
			res[i].Claims = n
		}
		printTable(n, res)
		results = append(results, res...)
		if cfg.profileDir != "" {
			if err := profileTargets(ctx, s, targets, cfg, n); err != nil {
				return err
			}
		}
	}
	printSummary(results)
	if cfg.out != "" {
		doc := map[string]any{
			"when": time.Now().UTC().Format(time.RFC3339), "go": runtime.Version(), "cpus": runtime.NumCPU(),
			"gomaxprocs": runtime.GOMAXPROCS(0), "workers": cfg.conc, "duration_per_target": cfg.duration.String(),
			"rounds": cfg.rounds, "limiter_speedup": cfg.speedup, "results": results,
		}
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.MkdirAll(filepath.Dir(cfg.out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(cfg.out, append(b, '\n'), 0o644); err != nil {
			return err
		}
		logf("wrote %s", cfg.out)
	}
	return nil
}

// do sends an authenticated request to the facade and decodes a JSON answer into out.
func (s *stack) do(ctx context.Context, method, path, body string, out any) (int, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.baseURL+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+s.apiKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s", method, path, bytes.TrimSpace(b))
	}
	if out != nil {
		return resp.StatusCode, json.Unmarshal(b, out)
	}
	return resp.StatusCode, nil
}

type page struct {
	Data []struct {
		ID string `json:"id"`
	} `json:"data"`
	HasMore    bool   `json:"has_more"`
	NextCursor string `json:"next_cursor"`
	TotalCount *int   `json:"total_count"`
}

func (s *stack) total(ctx context.Context) (int, error) {
	var p page
	if _, err := s.do(ctx, http.MethodGet, "/projects/"+s.projectID+"/claims?limit=1", "", &p); err != nil {
		return 0, err
	}
	if p.TotalCount == nil {
		return 0, errors.New("the claim list has no total_count")
	}
	return *p.TotalCount, nil
}

// createClaims writes claims from..to-1 with `workers` concurrent writers.
func (s *stack) createClaims(ctx context.Context, from, to, workers int) error {
	if to <= from {
		return nil
	}
	logf("creating claims %d..%d with %d writers", from, to, workers)
	start := time.Now()
	var next, done atomic.Int64
	next.Store(int64(from))
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // progress
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				d := done.Load()
				logf("  %d/%d created (%.0f/s)", d, to-from, float64(d)/time.Since(start).Seconds())
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= to || ctx.Err() != nil {
					return
				}
				var err error
				for attempt := 0; attempt < 5; attempt++ {
					if err = s.direct.Create(ctx, s.claimObject(i)); err == nil {
						break
					}
					time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
				}
				if err != nil {
					once.Do(func() { firstErr = fmt.Errorf("create claim %d: %w", i, err) })
					next.Store(int64(to)) // stop the others
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	close(stop)
	if firstErr != nil {
		return firstErr
	}
	el := time.Since(start)
	logf("created %d claims in %s (%.0f/s)", to-from, el.Round(time.Millisecond), float64(to-from)/el.Seconds())
	return nil
}

// claimObject is a law claim shaped like the ones controllers/run_results.go writes.
func (s *stack) claimObject(i int) *discov1.Claim {
	id := ids.New(ids.Claim)
	evidence := fmt.Sprintf(`{"r_squared":%.4f,"cross_validation_score":%.4f,"negative_controls_passed":true}`,
		0.9+float64(i%97)/1000, 0.88+float64(i%89)/1000)
	types := []discov1.ClaimType{"law", "causal", "conservation"}
	c := &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{
			Name: ids.ToName(id), Namespace: s.namespace,
			Labels: map[string]string{
				discov1.LabelTenant: s.tenantID, discov1.LabelProject: s.projectID,
				discov1.LabelCampaign: s.campaign, discov1.LabelRun: s.runID,
			},
		},
		Spec: discov1.ClaimSpec{
			ProjectID: s.projectID, CampaignID: s.campaign, RunID: s.runID,
			Type: types[i%3], Tier: discov1.TierExplore,
			Summary: fmt.Sprintf("benchmark claim %d: F = m * a holds across the sampled regime", i),
			Score:   float64(i%1000) / 1000,
			Scope: discov1.ClaimScope{Variables: []string{"F", "m", "a"}, Domain: "m in [0.1, 10], a in [0, 9.81]",
				ConstraintsSatisfied: []string{"dimensional_consistency"}},
			Evidence:               &apiextensionsv1.JSON{Raw: []byte(evidence)},
			Expression:             "F = m * a",
			Variables:              []string{"F", "m", "a"},
			LedgerEntryID:          fmt.Sprintf("led_%026d", i),
			NegativeControlsPassed: true,
		},
	}
	if c.Spec.Type == "causal" {
		c.Spec.Expression, c.Spec.Variables = "", nil
		c.Spec.Cause, c.Spec.Effect, c.Spec.Direction = "m", "F", "forward"
	}
	return c
}

// waitAndCollect waits until the facade's list reports n claims and returns their ids
// (read from the direct client, so the ids are the stored ones).
func (s *stack) waitAndCollect(ctx context.Context, n int) ([]string, error) {
	start := time.Now()
	for {
		got, err := s.total(ctx)
		if err != nil {
			return nil, err
		}
		if got == n {
			break
		}
		if time.Since(start) > 10*time.Minute {
			return nil, fmt.Errorf("the facade sees %d claims, want %d, after 10 minutes", got, n)
		}
		time.Sleep(500 * time.Millisecond)
	}
	logf("facade sees all %d claims (waited %s)", n, time.Since(start).Round(time.Millisecond))
	var ids []string
	var list discov1.ClaimList
	opts := []client.ListOption{client.InNamespace(s.namespace), client.Limit(5000)}
	for {
		if err := s.direct.List(ctx, &list, opts...); err != nil {
			return nil, err
		}
		for i := range list.Items {
			ids = append(ids, idFromName(list.Items[i].Name))
		}
		if list.Continue == "" {
			break
		}
		opts = []client.ListOption{client.InNamespace(s.namespace), client.Limit(5000), client.Continue(list.Continue)}
	}
	return ids, nil
}

func idFromName(name string) string { return ids.FromName(name) }

// cursors follows the first pages of the list and returns their next_cursor values.
func (s *stack) cursors(ctx context.Context, pages int) ([]string, error) {
	var out []string
	cursor := ""
	for i := 0; i < pages; i++ {
		path := "/projects/" + s.projectID + "/claims?limit=100"
		if cursor != "" {
			path += "&cursor=" + url.QueryEscape(cursor)
		}
		var p page
		if _, err := s.do(ctx, http.MethodGet, path, "", &p); err != nil {
			return nil, err
		}
		if !p.HasMore || p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
		out = append(out, cursor)
	}
	return out, nil
}

// startBare serves the baseline: plain net/http handlers that JSON-encode a claim and a
// 100-claim list page of the same wire type as the facade, per request.
func startBare() (*http.Server, string, error) {
	created := time.Now().UTC()
	one := func(i int) claims.Claim {
		return claims.Claim{
			ID: ids.New(ids.Claim), Type: "law", Tier: "explore",
			Summary: fmt.Sprintf("benchmark claim %d: F = m * a holds across the sampled regime", i), Score: 0.5,
			Scope:         claims.ClaimScope{Variables: []string{"F", "m", "a"}, Domain: "m in [0.1, 10], a in [0, 9.81]", ConstraintsSatisfied: []string{"dimensional_consistency"}},
			Evidence:      claims.Evidence(`{"r_squared":0.95,"cross_validation_score":0.93,"negative_controls_passed":true}`),
			LedgerEntryID: fmt.Sprintf("led_%026d", i), RunID: ids.New(ids.Run), CampaignID: ids.New(ids.Campaign),
			ProjectID: ids.New(ids.Project), CreatedAt: created, Expression: "F = m * a", Variables: []string{"F", "m", "a"},
		}
	}
	claim := one(0)
	type listPage struct {
		Object     string         `json:"object"`
		Data       []claims.Claim `json:"data"`
		HasMore    bool           `json:"has_more"`
		NextCursor string         `json:"next_cursor,omitempty"`
		TotalCount int            `json:"total_count"`
	}
	lp := listPage{Object: "list", HasMore: true, NextCursor: strings.Repeat("c", 120), TotalCount: 100000}
	for i := 0; i < 100; i++ {
		lp.Data = append(lp.Data, one(i))
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /claim", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(claim)
	})
	mux.HandleFunc("GET /list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(lp)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return srv, "http://" + ln.Addr().String(), nil
}

type target struct {
	name string
	auth bool
	url  func(*rand.Rand) string
}

type result struct {
	Claims    int            `json:"claims"`
	Target    string         `json:"target"`
	OK        int            `json:"ok"`
	Errors    int            `json:"errors"`
	Status    map[string]int `json:"non_200_status,omitempty"`
	Seconds   float64        `json:"seconds"`
	RPS       float64        `json:"rps"`
	P50ms     float64        `json:"p50_ms"`
	P99ms     float64        `json:"p99_ms"`
	MaxMs     float64        `json:"max_ms"`
	BodyBytes int            `json:"mean_body_bytes"`
	Ratio     float64        `json:"ratio_to_bare,omitempty"`
}

type tally struct {
	lat     []time.Duration
	status  map[int]int
	errs    int
	bytes   int64
	elapsed time.Duration
}

// measure runs each target for duration/rounds per round, rounds times, interleaved.
func measure(ctx context.Context, s *stack, targets []target, cfg config) []result {
	tallies := make([]tally, len(targets))
	for i := range tallies {
		tallies[i].status = map[int]int{}
	}
	slice := cfg.duration / time.Duration(cfg.rounds)
	// A short warm-up of every target (connections, caches, JIT-free but allocator warm).
	for _, t := range targets {
		var w tally
		w.status = map[int]int{}
		load(ctx, s, t, cfg.conc, 300*time.Millisecond, &w)
	}
	for r := 0; r < cfg.rounds; r++ {
		for i, t := range targets {
			load(ctx, s, t, cfg.conc, slice, &tallies[i])
		}
	}
	out := make([]result, len(targets))
	for i, t := range targets {
		tl := &tallies[i]
		slices.Sort(tl.lat)
		res := result{Target: t.name, OK: len(tl.lat), Errors: tl.errs, Seconds: tl.elapsed.Seconds()}
		for code, n := range tl.status {
			if code != http.StatusOK {
				if res.Status == nil {
					res.Status = map[string]int{}
				}
				res.Status[strconv.Itoa(code)] = n
			}
		}
		if res.OK > 0 {
			res.RPS = float64(res.OK) / tl.elapsed.Seconds()
			res.P50ms = ms(tl.lat[res.OK*50/100])
			res.P99ms = ms(tl.lat[min(res.OK*99/100, res.OK-1)])
			res.MaxMs = ms(tl.lat[res.OK-1])
			res.BodyBytes = int(tl.bytes / int64(res.OK))
		}
		out[i] = res
	}
	base := map[string]float64{}
	for _, r := range out {
		if strings.HasPrefix(r.Target, "bare-") {
			base[strings.TrimPrefix(r.Target, "bare-")] = r.RPS
		}
	}
	for i, r := range out {
		if strings.HasPrefix(r.Target, "bare-") {
			continue
		}
		kind := "get"
		if strings.HasPrefix(r.Target, "list") {
			kind = "list"
		}
		if b := base[kind]; b > 0 {
			out[i].Ratio = r.RPS / b
		}
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// load runs a closed loop of conc workers against t for d and adds to tl.
func load(ctx context.Context, s *stack, t target, conc int, d time.Duration, tl *tally) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
			lat := make([]time.Duration, 0, 4096)
			status := map[int]int{}
			errs := 0
			var nbytes int64
			for time.Now().Before(deadline) && ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, t.url(rng), nil)
				if t.auth {
					req.Header.Set("Authorization", "Bearer "+s.apiKey)
				}
				t1 := time.Now()
				resp, err := s.hc.Do(req)
				if err != nil {
					errs++
					continue
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				el := time.Since(t1)
				if err != nil {
					errs++
					continue
				}
				status[resp.StatusCode]++
				if resp.StatusCode == http.StatusOK {
					lat = append(lat, el)
					nbytes += n
				}
			}
			mu.Lock()
			tl.lat = append(tl.lat, lat...)
			for k, v := range status {
				tl.status[k] += v
			}
			tl.errs += errs
			tl.bytes += nbytes
			mu.Unlock()
		}(uint64(w))
	}
	wg.Wait()
	tl.elapsed += time.Since(start)
}

func printTable(n int, res []result) {
	fmt.Printf("\nN = %d claims\n", n)
	fmt.Printf("%-10s %10s %8s %9s %9s %9s %9s %8s  %s\n", "target", "req/s", "ratio", "p50 ms", "p99 ms", "max ms", "body B", "ok", "non-200 / errors")
	for _, r := range res {
		ratio := "-"
		if r.Ratio > 0 {
			ratio = fmt.Sprintf("%.3fx", r.Ratio)
		}
		bad := "0"
		if len(r.Status) > 0 || r.Errors > 0 {
			bad = fmt.Sprintf("%v / %d", r.Status, r.Errors)
		}
		fmt.Printf("%-10s %10.0f %8s %9.2f %9.2f %9.2f %9d %8d  %s\n", r.Target, r.RPS, ratio, r.P50ms, r.P99ms, r.MaxMs, r.BodyBytes, r.OK, bad)
	}
}

// printSummary checks the goals: ratio >= 0.5 and list latency at the largest N
// within 2x of the smallest.
func printSummary(all []result) {
	if len(all) == 0 {
		return
	}
	fmt.Println("\nGoals (issue 4): facade/bare throughput >= 0.5x; list p50/p99 at largest N <= 2x smallest N")
	lo, hi := all[0].Claims, all[len(all)-1].Claims
	find := func(n int, t string) *result {
		for i := range all {
			if all[i].Claims == n && all[i].Target == t {
				return &all[i]
			}
		}
		return nil
	}
	for _, r := range all {
		if r.Ratio > 0 {
			fmt.Printf("  N=%-7d %-10s ratio %.3fx  %s\n", r.Claims, r.Target, r.Ratio, verdict(r.Ratio >= 0.5))
		}
	}
	if lo != hi {
		for _, t := range []string{"list", "list-next", "get"} {
			a, b := find(lo, t), find(hi, t)
			if a == nil || b == nil || a.P50ms == 0 {
				continue
			}
			fmt.Printf("  %-10s p50 %.2f -> %.2f ms (%.1fx), p99 %.2f -> %.2f ms (%.1fx) from N=%d to N=%d  %s\n",
				t, a.P50ms, b.P50ms, b.P50ms/a.P50ms, a.P99ms, b.P99ms, b.P99ms/a.P99ms, lo, hi, verdict(b.P50ms <= 2*a.P50ms && b.P99ms <= 2*a.P99ms))
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// profileTargets runs each facade target for 3 s under the CPU profiler and writes a heap
// allocation profile after it.
func profileTargets(ctx context.Context, s *stack, targets []target, cfg config, n int) error {
	if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
		return err
	}
	for _, t := range targets {
		if !t.auth {
			continue
		}
		f, err := os.Create(filepath.Join(cfg.profileDir, fmt.Sprintf("cpu-%d-%s.pprof", n, t.name)))
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		var tl tally
		tl.status = map[int]int{}
		load(ctx, s, t, cfg.conc, 3*time.Second, &tl)
		pprof.StopCPUProfile()
		f.Close()
		if h, err := os.Create(filepath.Join(cfg.profileDir, fmt.Sprintf("allocs-%d-%s.pprof", n, t.name))); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(h, 0)
			h.Close()
		}
		logf("profiled %s at N=%d (%d ok)", t.name, n, len(tl.lat))
	}
	return nil
}
