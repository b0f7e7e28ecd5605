package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The browser suite drives the dashboard of a real `disco dev` in headless Chromium
// (Debian's chromium package; `make test` installs it with hack/install-chromium.sh),
// signing in through the facade's real login page. Screenshots of every page are kept in
// $DISCO_SCREENSHOTS, or in a temporary directory the test names.

type devCreds struct {
	BaseURL           string `json:"base_url"`
	APIKey            string `json:"api_key"`
	Kubeconfig        string `json:"kubeconfig"`
	DashboardURL      string `json:"dashboard_url"`
	DashboardUser     string `json:"dashboard_user"`
	DashboardPassword string `json:"dashboard_password"`
}

func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run hack/install-chromium.sh (make test does)")
	return ""
}

// startDev builds disco and runs `disco dev` on a free port until it is ready.
func startDev(t *testing.T) devCreds {
	t.Helper()
	dir := t.TempDir()
	bin := os.Getenv("DISCO_BINARY") // a disco built beforehand, or this tree's
	if bin == "" {
		bin = filepath.Join(dir, "disco")
		build := exec.Command("go", "build", "-o", bin, "github.com/discolab/disco")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			t.Fatalf("build disco: %v", err)
		}
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets, _ = filepath.Abs(filepath.Join("..", "bin", "k8s"))
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	data := filepath.Join(dir, "data")
	out := &syncBuffer{}
	cmd := exec.Command(bin, "dev", "--data-dir", data, "--listen", addr, "--assets-dir", assets)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-done:
			if err != nil {
				t.Logf("disco dev exited: %v", err)
			}
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("disco dev output:\n%s", out.String())
		}
	})
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("disco dev exited (%v):\n%s", err, out.String())
		default:
		}
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			var c devCreds
			raw, err := os.ReadFile(filepath.Join(data, "credentials.json"))
			// disco dev prints the dashboard's URL, user and password for a newcomer.
			if resp.StatusCode == http.StatusOK && err == nil && json.Unmarshal(raw, &c) == nil && c.DashboardURL != "" &&
				strings.Contains(out.String(), "dashboard    "+c.DashboardURL) && strings.Contains(out.String(), c.DashboardPassword) {
				return c
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("disco dev did not become ready:\n%s", out.String())
	return devCreds{}
}

// syncBuffer is the output of disco dev, written by its process and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type browser struct {
	t    *testing.T
	ctx  context.Context
	dir  string
	base string // the dashboard's origin, without a trailing slash
}

func newBrowser(t *testing.T, base string) *browser {
	dir := os.Getenv("DISCO_SCREENSHOTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "disco-dashboard-screens-"); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatal(err)
	}
	return &browser{t: t, ctx: ctx, dir: dir, base: strings.TrimSuffix(base, "/")}
}

// do runs the steps with a bound on their time.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 90*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
		b.t.Fatalf("%s: %v (at %s)", what, err, b.location())
	}
}

func (b *browser) location() string {
	loc, _ := chromedp.Run(b.ctx, chromedp.Location())
	return loc
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.shot("failed-text")
		b.t.Fatalf("text of %s: %v (at %s)", sel, err, b.location())
	}
	return s
}

func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it is true.
func (b *browser) waitFor(what, js string, timeout time.Duration) {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js)); err == nil && ok {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.shot("failed-" + strings.ReplaceAll(what, " ", "-"))
	b.t.Fatalf("%s: %s did not hold within %s (at %s)", what, js, timeout, b.location())
}

// page records a page of the dashboard: a screenshot, and axe-core's accessibility check
// (WCAG rules), which must find no serious or critical violation.
func (b *browser) page(name string) {
	b.t.Helper()
	b.shot(name)
	axe, err := os.ReadFile(filepath.Join("web", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		b.t.Fatalf("axe-core is not installed (make build runs dashboard/web/vendor.sh): %v", err)
	}
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](string(axe)+";true")); err != nil {
		b.t.Fatalf("load axe-core: %v", err)
	}
	const run = `axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations
		.filter(v => v.impact === 'serious' || v.impact === 'critical')
		.map(v => v.id + ' (' + v.help + '): ' + v.nodes.map(n => n.target.join(' ')).join(', '))))`
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](run, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe-core on %s: %v", name, err)
	}
	if out != "[]" {
		b.t.Errorf("accessibility violations on %s: %s", name, out)
	}
}

func (b *browser) shot(name string) {
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	_ = os.WriteFile(filepath.Join(b.dir, name+".png"), buf, 0o644)
}

func (b *browser) cookie(name string) string {
	b.t.Helper()
	var val string
	err := chromedp.Do(b.ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: []string{b.base + "/"}})
		if err != nil {
			return err
		}
		for _, c := range res.Cookies {
			if c.Name == name {
				val = c.Value
			}
		}
		return nil
	}))
	if err != nil || val == "" {
		b.t.Fatalf("cookie %s: %v (found %q)", name, err, val)
	}
	return val
}

func quadraticCSV(n int) string {
	var s strings.Builder
	s.WriteString("x,z,y\n")
	for i := range n {
		x := float64(i%41)/8 + 0.1
		fmt.Fprintf(&s, "%g,%g,%g\n", x, math.Sin(float64(i)*1.7), 3*x*x+1)
	}
	return s.String()
}

const xss = `<img src=x onerror=alert(1)>`

func writeFile(t *testing.T, name, body string) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noRedirects is an HTTP client that shows redirects instead of following them.
var noRedirects = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
	return http.ErrUseLastResponse
}}
