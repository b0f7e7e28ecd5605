// Command dashboard measures the web dashboard (issue 15, "Measured"; make bench-dashboard).
//
// 1. Server time of the claims page at 1,000 and at 100,000 claims, side by side in one
// run. It starts an envtest control plane, a controller-runtime manager with
// internal/index and the tenant and project controllers, the facade (apiserver.New) and the
// dashboard (dashboard.New over the facade's handler, as the composition root mounts it)
// on one loopback origin. A user signs in through the real authorization-code flow (the
// facade's login form, PKCE, the sealed session cookie). Two projects of one tenant get
// -small and -large claims, written straight to the Kubernetes API as in bench-api. The
// claims page of each project is then requested in interleaved rounds (small, large,
// small, ...), -requests requests per page and round, one at a time, in several forms:
//
//	claims        /projects/{p}/claims                       newest first, 20 a page
//	claims-score  /projects/{p}/claims?type=law&sort=score&order=desc
//	claims-min    /projects/{p}/claims?min_score=0.9          the score filter
//	claims-next   the same as claims, at the cursor of its 5th page
//
// Server time is the dashboard handler's time for the request (from the request to the
// last byte written, the in-process REST calls included), taken by a wrapper around the
// handler; client time is the loopback round trip as the client reads it. The small
// project's page is also measured before the large project's claims exist.
//
// 2. Time to first render on `disco dev`: the disco binary (built from this tree, or
// -disco) runs `disco dev` in a temporary data dir; headless Chromium (the system's, as
// the dashboard's browser tests use) signs in with the printed user and opens the projects
// page and a project's claims page -renders times each; the Navigation Timing and Paint
// Timing entries give time to first byte, first contentful paint and DOMContentLoaded.
//
// The facade's per-tenant rate limit would throttle part 1 (each page makes three REST
// calls), so the facade's clock runs -limiter-speedup times faster than real time, as in
// bench-api; the limiter still runs on every call.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/dashboard"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/test/bench/internal/benchenv"
	"github.com/discolab/disco/test/live"
)

type config struct {
	small, large int
	rounds       int
	requests     int
	workers      int
	speedup      float64
	renders      int
	repo         string
	disco        string
	out          string
	skipServer   bool
	skipRender   bool
}

func main() {
	var cfg config
	flag.IntVar(&cfg.small, "small", 1000, "claims of the small project")
	flag.IntVar(&cfg.large, "large", 100000, "claims of the large project")
	flag.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds")
	flag.IntVar(&cfg.requests, "requests", 40, "requests per page form, project and round")
	flag.IntVar(&cfg.workers, "create-workers", 16, "concurrent writers when creating claims")
	flag.Float64Var(&cfg.speedup, "limiter-speedup", 20, "the facade's clock runs this many times faster than real time (see the package comment)")
	flag.IntVar(&cfg.renders, "renders", 5, "navigations per page in the first-render part")
	flag.StringVar(&cfg.repo, "repo", ".", "repository root (config/crd/bases, bin/k8s)")
	flag.StringVar(&cfg.disco, "disco", "", "disco binary for the first-render part (default: built from -repo)")
	flag.StringVar(&cfg.out, "out", "", "also write the results as JSON to this file")
	flag.BoolVar(&cfg.skipServer, "skip-server", false, "skip part 1 (server time at 1,000 and 100,000 claims)")
	flag.BoolVar(&cfg.skipRender, "skip-render", false, "skip part 2 (first render on disco dev)")
	flag.Parse()
	if cfg.rounds < 1 || cfg.requests < 1 || cfg.workers < 1 || cfg.speedup < 1 || cfg.renders < 1 || cfg.small < 1 || cfg.large < cfg.small {
		fatalf("-rounds, -requests, -create-workers, -limiter-speedup, -renders and -small must be >= 1, -large >= -small")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour) // a hard stop, whatever happens
	defer cancel()
	doc := map[string]any{"when": time.Now().UTC().Format(time.RFC3339), "go": runtime.Version(), "cpus": runtime.NumCPU()}
	if !cfg.skipServer {
		res, err := serverTimes(ctx, cfg)
		if err != nil {
			fatalf("server time: %v", err)
		}
		doc["server"] = res
	}
	if !cfg.skipRender {
		res, err := firstRender(ctx, cfg)
		if err != nil {
			fatalf("first render: %v", err)
		}
		doc["first_render"] = res
	}
	if cfg.out != "" {
		b, _ := json.MarshalIndent(doc, "", "  ")
		if err := os.MkdirAll(filepath.Dir(cfg.out), 0o755); err != nil {
			fatalf("%v", err)
		}
		if err := os.WriteFile(cfg.out, append(b, '\n'), 0o644); err != nil {
			fatalf("%v", err)
		}
		logf("wrote %s", cfg.out)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench-dashboard: "+format+"\n", args...)
	os.Exit(1) //nolint:revive // the benchmark's one way out, called from main's helpers
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "[%s] "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// timed wraps the dashboard and records how long its handler took for the last request.
type timed struct {
	h    http.Handler
	last atomic.Int64 // nanoseconds
}

func (t *timed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	t.h.ServeHTTP(w, r)
	t.last.Store(int64(time.Since(start)))
}

// stack is part 1's facade and dashboard.
type stack struct {
	direct    client.Client
	origin    string // the dashboard's origin; the REST API is at origin + "/v1"
	apiKey    string
	tenantID  string
	namespace string
	hc        *http.Client // the signed-in browser: a cookie jar
	dash      *timed
}

func serverTimes(ctx context.Context, cfg config) (map[string]any, error) {
	e, err := benchenv.Start(ctx, cfg.repo, cfg.speedup, logf)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	opts, origin, tenantID := e.Options, e.Origin, e.TenantID
	user, password, created, err := apiserver.BootstrapUser(ctx, e.Store, tenantID)
	if err == nil && !created { // there is an admin user already, whose password is not known here
		if err = e.Store.DeleteUser(ctx, user); err == nil {
			user, password, _, err = apiserver.BootstrapUser(ctx, e.Store, tenantID)
		}
	}
	if err != nil {
		return nil, err
	}
	api := e.Server.Handler()
	var clientOnce sync.Once
	var clientID string
	var clientErr error
	d, err := dashboard.New(dashboard.Options{API: api, BaseURL: opts.BaseURL, CookieKey: []byte(strings.Repeat("k", 32)), Tenant: tenantID,
		Logger: logr.Discard(), ClientFor: func(ctx context.Context, _ string) (string, error) {
			redirect, _ := dashboard.RedirectURI(opts.BaseURL)
			clientOnce.Do(func() {
				clientID, _, clientErr = apiserver.CreateOAuthClient(ctx, opts, apiserver.OAuthClientSpec{TenantID: tenantID,
					Name: "disco dashboard", RedirectURIs: []string{redirect}, Public: true, CreatedBy: "system"})
			})
			return clientID, clientErr
		}})
	if err != nil {
		return nil, err
	}
	dash := &timed{h: d}
	httpSrv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dashboard.Serves(r.URL.Path) {
			dash.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	})}
	go func() { _ = httpSrv.Serve(e.Listener) }()
	defer httpSrv.Close()

	jar, _ := cookiejar.New(nil)
	s := &stack{direct: e.Direct, origin: origin, apiKey: e.APIKey, tenantID: tenantID, namespace: e.Namespace, dash: dash,
		hc: &http.Client{Jar: jar, Timeout: time.Minute}}
	if err := signIn(ctx, s.hc, origin, user, password); err != nil {
		return nil, err
	}
	small, err := s.project(ctx, "small")
	if err != nil {
		return nil, err
	}
	large, err := s.project(ctx, "large")
	if err != nil {
		return nil, err
	}
	logf("facade and dashboard at %s, tenant %s, projects %s (small) and %s (large)", origin, tenantID, small, large)

	if err := s.fill(ctx, small, cfg.small, cfg.workers); err != nil {
		return nil, err
	}
	alone, err := s.measure(ctx, cfg, map[string]string{"small": small})
	if err != nil {
		return nil, err
	}
	printTable(fmt.Sprintf("Before the large project's claims exist: %d claims in the tenant", cfg.small), alone, cfg)
	if err := s.fill(ctx, large, cfg.large, cfg.workers); err != nil {
		return nil, err
	}
	both, err := s.measure(ctx, cfg, map[string]string{"small": small, "large": large})
	if err != nil {
		return nil, err
	}
	printTable(fmt.Sprintf("Side by side: %d and %d claims, interleaved rounds", cfg.small, cfg.large), both, cfg)
	return map[string]any{"small_claims": cfg.small, "large_claims": cfg.large, "rounds": cfg.rounds,
		"requests_per_round": cfg.requests, "limiter_speedup": cfg.speedup, "alone": alone, "side_by_side": both}, nil
}

// csrfField is the hidden field of the facade's login form.
var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// signIn goes through the dashboard's sign-in as a browser does: /signin redirects to the
// facade's login page, whose form answers with the code the dashboard exchanges.
func signIn(ctx context.Context, hc *http.Client, origin, user, password string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, origin+"/signin", nil)
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := csrfField.FindSubmatch(body)
	if resp.StatusCode != http.StatusOK || m == nil {
		return fmt.Errorf("sign-in: the login page answered %d without a form", resp.StatusCode)
	}
	form := url.Values{"username": {user}, "password": {password}, "csrf": {string(m[1])}, "decision": {"approve"}}
	req, _ = http.NewRequestWithContext(ctx, http.MethodPost, resp.Request.URL.String(), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err = hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/projects" {
		return fmt.Errorf("sign-in ended at %s with %d", resp.Request.URL, resp.StatusCode)
	}
	return nil
}

// rest calls the REST API with the admin key.
func (s *stack) rest(ctx context.Context, method, path, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, s.origin+"/v1"+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.apiKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, bytes.TrimSpace(b))
	}
	return json.Unmarshal(b, out)
}

func (s *stack) project(ctx context.Context, name string) (string, error) {
	var p struct {
		ID string `json:"id"`
	}
	err := s.rest(ctx, http.MethodPost, "/projects", `{"name":"`+name+`"}`, &p)
	return p.ID, err
}

// fill writes n claims into the project with `workers` writers and waits until the
// facade's list counts them.
func (s *stack) fill(ctx context.Context, projectID string, n, workers int) error {
	logf("creating %d claims in %s with %d writers", n, projectID, workers)
	start := time.Now()
	campaign, run := ids.New(ids.Campaign), ids.New(ids.Run)
	var next, done atomic.Int64
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				var err error
				for attempt := range 5 {
					if err = s.direct.Create(ctx, s.claimObject(projectID, campaign, run, i)); err == nil {
						break
					}
					time.Sleep(time.Duration(attempt+1) * 100 * time.Millisecond)
				}
				if err != nil {
					errs <- fmt.Errorf("create claim %d: %w", i, err)
					next.Store(int64(n))
					return
				}
				if d := done.Add(1); d%10000 == 0 {
					logf("  %d/%d created (%.0f/s)", d, n, float64(d)/time.Since(start).Seconds())
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	logf("created %d claims in %s", n, time.Since(start).Round(time.Millisecond))
	for {
		var page struct {
			TotalCount *int `json:"total_count"`
		}
		if err := s.rest(ctx, http.MethodGet, "/projects/"+projectID+"/claims?limit=1", "", &page); err != nil {
			return err
		}
		if page.TotalCount != nil && *page.TotalCount == n {
			return nil
		}
		if time.Since(start) > 30*time.Minute {
			return fmt.Errorf("the facade does not count %d claims in %s", n, projectID)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// claimObject is a claim shaped like the ones controllers/run_results.go writes; scores
// spread evenly over [0, 1), types in turn.
func (s *stack) claimObject(projectID, campaign, run string, i int) *discov1.Claim {
	id := ids.New(ids.Claim)
	evidence := fmt.Sprintf(`{"r_squared":%.4f,"cross_validation_score":%.4f,"negative_controls_passed":true,"complexity":%d}`,
		0.9+float64(i%97)/1000, 0.88+float64(i%89)/1000, 3+i%9)
	types := []discov1.ClaimType{"law", "causal", "conservation"}
	c := &discov1.Claim{
		ObjectMeta: metav1.ObjectMeta{Name: ids.ToName(id), Namespace: s.namespace, Labels: map[string]string{
			discov1.LabelTenant: s.tenantID, discov1.LabelProject: projectID, discov1.LabelCampaign: campaign, discov1.LabelRun: run}},
		Spec: discov1.ClaimSpec{
			ProjectID: projectID, CampaignID: campaign, RunID: run, Type: types[i%3], Tier: discov1.TierExplore,
			Summary: fmt.Sprintf("benchmark claim %d: F = m * a holds across the sampled regime", i),
			Score:   float64((i*7919)%1000) / 1000,
			Scope: discov1.ClaimScope{Variables: []string{"F", "m", "a"}, Domain: "m in [0.1, 10], a in [0, 9.81]",
				ConstraintsSatisfied: []string{"dimensional_consistency"}},
			Evidence:   &apiextensionsv1.JSON{Raw: []byte(evidence)},
			Expression: "F = m * a", Variables: []string{"F", "m", "a"},
			LedgerEntryID: fmt.Sprintf("led_%026d", i), NegativeControlsPassed: true,
		},
	}
	if c.Spec.Type != "law" {
		c.Spec.Expression, c.Spec.Variables = "", nil
		c.Spec.Cause, c.Spec.Effect, c.Spec.Direction = "m", "F", "forward"
	}
	return c
}

// result is one page form of one project: server and client times in milliseconds.
type result struct {
	Project   string  `json:"project"`
	Claims    int     `json:"claims"`
	Page      string  `json:"page"`
	Requests  int     `json:"requests"`
	ServerP50 float64 `json:"server_p50_ms"`
	ServerP90 float64 `json:"server_p90_ms"`
	ServerAvg float64 `json:"server_mean_ms"`
	ClientP50 float64 `json:"client_p50_ms"`
	Bytes     int     `json:"body_bytes"`
}

// pageForms are the claims page's addresses measured, below /projects/{p}.
var pageForms = []struct{ name, path string }{
	{"claims", "/claims"},
	{"claims-score", "/claims?type=law&sort=score&order=desc"},
	{"claims-min", "/claims?min_score=0.9"},
	{"claims-next", ""}, // filled with the 5th page's cursor
}

// fifthPage follows the claims page's next links to its 5th page.
var nextLink = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)

func (s *stack) fifthPage(ctx context.Context, projectID string) (string, error) {
	path := "/projects/" + projectID + "/claims"
	for range 4 {
		_, body, err := s.get(ctx, path)
		if err != nil {
			return "", err
		}
		m := nextLink.FindStringSubmatch(body)
		if m == nil {
			return "", fmt.Errorf("%s has no next page", path)
		}
		path = strings.ReplaceAll(m[1], "&amp;", "&")
	}
	return path, nil
}

func (s *stack) get(ctx context.Context, path string) (time.Duration, string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.origin+path, nil)
	resp, err := s.hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != strings.SplitN(path, "?", 2)[0] {
		return 0, "", fmt.Errorf("GET %s: %d at %s", path, resp.StatusCode, resp.Request.URL)
	}
	return time.Duration(s.dash.last.Load()), string(b), nil
}

// measure requests every page form of every project, in interleaved rounds.
func (s *stack) measure(ctx context.Context, cfg config, projects map[string]string) ([]result, error) {
	type key struct{ project, page string }
	var names []string // the small project first
	for _, p := range []string{"small", "large"} {
		if _, ok := projects[p]; ok {
			names = append(names, p)
		}
	}
	paths := map[key]string{}
	for _, p := range names {
		for _, f := range pageForms {
			path := "/projects/" + projects[p] + f.path
			if f.path == "" {
				var err error
				if path, err = s.fifthPage(ctx, projects[p]); err != nil {
					return nil, err
				}
			}
			paths[key{p, f.name}] = path
		}
	}
	server, clientT, size := map[key][]float64{}, map[key][]float64{}, map[key]int{}
	for _, p := range names { // each page once before measuring
		for _, f := range pageForms {
			if _, _, err := s.get(ctx, paths[key{p, f.name}]); err != nil {
				return nil, err
			}
		}
	}
	for r := range cfg.rounds {
		logf("round %d of %d", r+1, cfg.rounds)
		for _, f := range pageForms {
			for _, p := range names {
				k := key{p, f.name}
				for range cfg.requests {
					start := time.Now()
					st, body, err := s.get(ctx, paths[k])
					if err != nil {
						return nil, err
					}
					clientT[k] = append(clientT[k], ms(time.Since(start)))
					server[k] = append(server[k], ms(st))
					size[k] = len(body)
				}
			}
		}
	}
	var out []result
	for _, f := range pageForms {
		for _, p := range names {
			k := key{p, f.name}
			n := cfg.small
			if p == "large" {
				n = cfg.large
			}
			sv := server[k]
			out = append(out, result{Project: p, Claims: n, Page: f.name, Requests: len(sv), ServerP50: quantile(sv, 0.5),
				ServerP90: quantile(sv, 0.9), ServerAvg: mean(sv), ClientP50: quantile(clientT[k], 0.5), Bytes: size[k]})
		}
	}
	return out, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

func printTable(title string, res []result, cfg config) {
	fmt.Printf("\n%s\n%-13s %8s %10s %10s %10s %10s %8s\n", title, "page", "claims", "server p50", "server p90", "server avg", "client p50", "bytes")
	for _, r := range res {
		fmt.Printf("%-13s %8d %10.2f %10.2f %10.2f %10.2f %8d\n", r.Page, r.Claims, r.ServerP50, r.ServerP90, r.ServerAvg, r.ClientP50, r.Bytes)
	}
	for _, f := range pageForms {
		var small, large *result
		for i := range res {
			if res[i].Page == f.name && res[i].Project == "small" {
				small = &res[i]
			}
			if res[i].Page == f.name && res[i].Project == "large" {
				large = &res[i]
			}
		}
		if small != nil && large != nil && small.ServerP50 > 0 {
			ratio := large.ServerP50 / small.ServerP50
			verdict := "within 2x: yes"
			if ratio > 2 {
				verdict = "within 2x: NO"
			}
			fmt.Printf("  %-13s server p50 at %d / at %d claims = %.2fx  (%s)\n", f.name, cfg.large, cfg.small, ratio, verdict)
		}
	}
}

// firstRender runs `disco dev` and opens its dashboard in headless Chromium.
func firstRender(ctx context.Context, cfg config) (map[string]any, error) {
	repo, err := filepath.Abs(cfg.repo)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "disco-bench-dashboard-dev-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := cfg.disco
	if bin == "" {
		logf("building disco")
		if bin, err = live.BuildDisco(tmp); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	dataDir := filepath.Join(tmp, "data")
	var output bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "dev", "--data-dir", dataDir, "--listen", addr, "--assets-dir", filepath.Join(repo, "bin", "k8s"))
	cmd.Stdout, cmd.Stderr = &output, &output
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	var creds live.Credentials
	for {
		if time.Since(start) > 3*time.Minute {
			return nil, fmt.Errorf("disco dev was not ready within 3 minutes:\n%s", output.String())
		}
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if c, err := live.ReadCredentials(filepath.Join(dataDir, "credentials.json")); resp.StatusCode == http.StatusOK && err == nil && c.DashboardPassword != "" {
				creds = c
				break
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	ready := time.Since(start)
	logf("disco dev ready in %s at %s", ready.Round(time.Millisecond), creds.DashboardURL)
	var proj struct {
		ID string `json:"id"`
	}
	s := &stack{origin: strings.TrimSuffix(creds.DashboardURL, "/"), apiKey: creds.APIKey}
	if err := s.rest(ctx, http.MethodPost, "/projects", `{"name":"first render"}`, &proj); err != nil {
		return nil, err
	}

	chromium, err := exec.LookPath("chromium")
	if err != nil {
		return nil, errors.New("chromium is not installed: run hack/install-chromium.sh")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	sctx, cancelSign := context.WithTimeout(bctx, 2*time.Minute)
	defer cancelSign()
	if err := chromedp.Do(sctx,
		chromedp.Navigate(s.origin+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name=username]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=username]`), creds.DashboardUser),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), creds.DashboardPassword),
		chromedp.Click(chromedp.CSS(`button[value=approve]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/projects"]`))); err != nil {
		return nil, fmt.Errorf("signing in with Chromium: %w", err)
	}
	const timing = `(() => { const n = performance.getEntriesByType('navigation')[0];
		const p = performance.getEntriesByName('first-contentful-paint')[0];
		return [n.responseStart, p ? p.startTime : -1, n.domContentLoadedEventEnd] })()`
	out := map[string]any{"dev_ready_s": ready.Seconds()}
	fmt.Printf("\nFirst render on disco dev (ready in %.1f s), Chromium, ms since navigation start\n%-10s %5s %10s %10s %10s\n",
		ready.Seconds(), "page", "load", "TTFB", "FCP", "DCL")
	for _, pg := range []struct{ name, path string }{{"projects", "/projects"}, {"claims", "/projects/" + proj.ID + "/claims"}} {
		var rows [][]float64
		for i := range cfg.renders {
			nctx, cancel := context.WithTimeout(bctx, time.Minute)
			var v []float64
			err := chromedp.Do(nctx, chromedp.Navigate(s.origin+pg.path), chromedp.WaitVisible(chromedp.CSS(`main h1`)), chromedp.Sleep(300*time.Millisecond))
			if err == nil {
				v, err = chromedp.Run(nctx, chromedp.Evaluate[[]float64](timing))
			}
			cancel()
			if err != nil {
				return nil, fmt.Errorf("open %s: %w", pg.path, err)
			}
			rows = append(rows, v)
			fmt.Printf("%-10s %5d %10.1f %10.1f %10.1f\n", pg.name, i+1, v[0], v[1], v[2])
		}
		out[pg.name] = rows
	}
	return out, nil
}
