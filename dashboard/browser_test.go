package dashboard_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/discolab/disco/test/live"
)

// The browser suite drives the dashboard of a real `disco dev` in headless Chromium
// (Debian's chromium package; `make test` installs it with hack/install-chromium.sh),
// signing in through the facade's real login page. Screenshots of every page are kept in
// $DISCO_SCREENSHOTS, or in a temporary directory the test names.

func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: run hack/install-chromium.sh (make test does)")
	return ""
}

// startDev runs `disco dev` (this tree's, or $DISCO_BINARY built beforehand) on a free port
// until it is ready, and returns its credentials.json.
func startDev(t *testing.T) live.Credentials {
	t.Helper()
	dir := t.TempDir()
	bin := os.Getenv("DISCO_BINARY")
	if bin == "" {
		var err error
		if bin, err = live.BuildDisco(dir); err != nil {
			t.Fatalf("build disco: %v", err)
		}
	}
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		assets, _ = filepath.Abs(filepath.Join("..", "bin", "k8s"))
	}
	d := live.StartDev(t, bin, filepath.Join(dir, "data"), live.FreeAddr(t), "--assets-dir", assets)
	c, out := d.Creds, d.Output.String()
	// disco dev prints the dashboard's URL, user and password for a newcomer.
	if c.DashboardURL == "" || !strings.Contains(out, "dashboard    "+c.DashboardURL) || !strings.Contains(out, c.DashboardPassword) {
		t.Fatalf("disco dev did not print the dashboard's address and password of credentials.json %+v:\n%s", c, out)
	}
	return c
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
