package dashboard_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/discolab/disco/test/live"
)

// TestDashboardInChromium goes from signing in to a promoted claim in a real browser,
// as a newcomer does after `make run`, and probes the security rules on the way.
func TestDashboardInChromium(t *testing.T) {
	creds := startDev(t)
	// Another tenant's project, made at the start so every cache has it long before the
	// dashboard is asked for it.
	foreign := foreignProject(t, creds.Kubeconfig)
	b := newBrowser(t, creds.DashboardURL)
	base := b.base
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }

	// Sign in through the facade's login page.
	b.do("open the dashboard", chromedp.Navigate(base+"/"), chromedp.WaitVisible(css(`input[name=username]`)))
	if loc := b.location(); !strings.Contains(loc, "/v1/auth/authorize?") {
		t.Fatalf("an anonymous visitor lands on %s, not the login page", loc)
	}
	b.shot("01-login")
	b.do("sign in",
		chromedp.SendKeys(css(`input[name=username]`), creds.DashboardUser),
		chromedp.SendKeys(css(`input[name=password]`), creds.DashboardPassword),
		chromedp.Click(css(`button[value=approve]`)),
		chromedp.WaitVisible(css(`form[action="/projects"]`)))
	if loc := b.location(); loc != base+"/projects" {
		t.Fatalf("after sign-in the browser is at %s", loc)
	}
	if got := eval[string](b, `document.cookie`); strings.Contains(got, "disco_dash") {
		t.Errorf("the session cookie is readable by scripts: %q", got)
	}
	b.page("02-projects")

	// A project whose name is an XSS probe: it shows as text everywhere.
	b.do("create a project",
		chromedp.SendKeys(css(`#p-name`), "Signalling "+xss),
		chromedp.Submit(css(`#p-name`)),
		chromedp.WaitVisible(css(`#g-ceil`)))
	projectURL := b.location()
	pid := strings.TrimPrefix(projectURL, base+"/projects/")
	if !strings.HasPrefix(pid, "proj_") {
		t.Fatalf("after creating a project the browser is at %s", projectURL)
	}
	if h1 := b.text("h1"); !strings.Contains(h1, xss) {
		t.Errorf("the project heading %q does not show the name as text", h1)
	}
	if n := eval[int](b, `document.querySelectorAll('img[src="x"]').length`); n != 0 {
		t.Errorf("the project name became %d img elements", n)
	}
	// A webhook registered in the dashboard receives the events that follow.
	hook := newReceiver(t)
	b.do("register a webhook",
		chromedp.Navigate(base+"/settings/webhooks"),
		chromedp.SendKeys(css(`#w-url`), hook.url),
		chromedp.Click(css(`input[name=events][value="*"]`)),
		chromedp.SendKeys(css(`#w-secret`), "a-signing-secret-of-some-length"),
		chromedp.Submit(css(`#webhook-form`)),
		chromedp.WaitVisible(css(`form[action$="/delete"]`)))
	webhookURL := b.location()
	b.do("back to the project", chromedp.Navigate(projectURL), chromedp.WaitVisible(css(`#g-ceil`)))
	b.do("set governance",
		chromedp.SetValue(css(`#g-ceil`), "validate"),
		chromedp.SetValue(css(`#g-thr`), "0.5"),
		chromedp.Submit(css(`#g-thr`)),
		chromedp.WaitVisible(css(`p.ok`)))
	b.page("03-project")

	b.do("create a campaign",
		chromedp.SendKeys(css(`#c-name`), "first campaign"),
		chromedp.SetValue(css(`#c-cu`), "10000"),
		chromedp.SetValue(css(`#c-runs`), "5"),
		chromedp.Submit(css(`#c-name`)),
		chromedp.WaitVisible(css(`.gauges`)))
	campaignURL := b.location()
	if g := b.text(".gauges"); !strings.Contains(g, "0 of 10000 used") || !strings.Contains(g, "0 of 5 completed") {
		t.Errorf("budget gauges read %q", g)
	}
	b.page("04-campaign")

	// Upload a dataset and watch its profile arrive.
	b.do("upload a dataset",
		chromedp.Navigate(base+"/projects/"+pid+"/datasets"),
		chromedp.SendKeys(css(`#d-name`), "quadratic"),
		chromedp.SetUploadFiles(css(`#d-file`), []string{writeFile(t, "quadratic.csv", string(live.QuadraticCSV(240)))}),
		chromedp.Click(css(`#upload-form button[type=submit]`)),
		chromedp.WaitVisible(css(`table.profile`)))
	datasetID := strings.TrimPrefix(b.location(), base+"/projects/"+pid+"/datasets/")
	if facts := b.text("#dataset-live"); !strings.Contains(facts, "Rows\n240") {
		t.Errorf("the profile does not show 240 rows: %q", facts)
	}
	b.page("05-dataset")

	b.do("upload a dataset with a hostile column name",
		chromedp.Navigate(base+"/projects/"+pid+"/datasets"),
		chromedp.SetUploadFiles(css(`#d-file`), []string{writeFile(t, "hostile.csv", "a,"+xss+"\n1,2\n3,4\n5,7\n")}),
		chromedp.Click(css(`#upload-form button[type=submit]`)),
		chromedp.WaitVisible(css(`table.profile`)))
	if cells := b.text("table.profile tbody"); !strings.Contains(cells, xss) {
		t.Errorf("the hostile column name is not shown as text: %q", cells)
	}
	if n := eval[int](b, `document.querySelectorAll('img[src="x"]').length`); n != 0 {
		t.Errorf("the column name became %d img elements", n)
	}
	b.page("06-dataset-hostile")

	wide := strings.Repeat("c,", 4200) + "y\n" + strings.Repeat("1,", 4200) + "2\n"
	b.do("upload a file the API refuses",
		chromedp.Navigate(base+"/projects/"+pid+"/datasets"),
		chromedp.SetUploadFiles(css(`#d-file`), []string{writeFile(t, "wide.csv", wide)}),
		chromedp.Click(css(`#upload-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#upload-error`)))
	if msg := b.text("#upload-error"); !strings.Contains(msg, "cannot be used") {
		t.Errorf("a 422 upload shows %q", msg)
	}
	b.page("07-upload-refused")

	// Submit a run: first with a complexity the API refuses (its message shows at the field).
	b.do("open the run form from the dataset", chromedp.Navigate(base+"/projects/"+pid+"/datasets/"+datasetID),
		chromedp.Click(css(`ul.runlinks a`)), chromedp.WaitVisible(css(`#run-form`)))
	if got, _ := chromedp.Run(b.ctx, chromedp.Value(css(`#r-ds`))); got != datasetID {
		t.Errorf("the run form opened from the dataset has dataset %q selected, want %s", got, datasetID)
	}
	b.do("submit an invalid run",
		chromedp.SetValue(css(`#r-mode`), "symbolic"),
		chromedp.SetValue(css(`#r-ds`), datasetID),
		chromedp.SetValue(css(`#r-targets`), "y"),
		chromedp.SetValue(css(`#r-cx`), "500"),
		chromedp.Submit(css(`#run-form`)),
		chromedp.WaitVisible(css(`#r-cx + .fielderr`)))
	if msg := b.text("#r-cx + .fielderr"); msg == "" {
		t.Errorf("the refused complexity shows no message at its field")
	}
	b.page("08-run-form-refused")
	b.do("submit a symbolic run",
		chromedp.SetValue(css(`#r-ds`), datasetID),
		chromedp.Clear(css(`#r-cx`)),
		chromedp.Click(css(`input[value=shuffled_target]`)),
		chromedp.Click(css(`input[value=noise_feature]`)),
		chromedp.Submit(css(`#run-form`)),
		chromedp.WaitVisible(css(`#run-live`)))
	if !strings.Contains(b.location(), "/runs/run_") {
		t.Fatalf("after submitting, the browser is at %s; page: %s", b.location(), b.text("main"))
	}
	// The page is not reloaded: a marker set now survives while the pipeline updates.
	eval[bool](b, `window.__stay = true; document.getElementById('run-live').__first = true; true`)
	b.waitFor("stages appear", `document.querySelectorAll('#run-live li.stage').length > 0`, 2*time.Minute)
	b.page("09-run-live")
	b.waitFor("the run completes", `document.getElementById('run-live').dataset.status === 'completed'`, 5*time.Minute)
	if !eval[bool](b, `window.__stay === true && !document.getElementById('run-live').__first`) {
		t.Errorf("the pipeline did not update in place (reloaded, or never swapped)")
	}
	if n := eval[int](b, `document.querySelectorAll('#run-live li.stage[data-status=completed]').length`); n == 0 {
		t.Errorf("no stage shows completed")
	}
	b.waitFor("the run's plots load", `[...document.querySelectorAll('.plots img')].length > 0 && [...document.querySelectorAll('.plots img')].every(i => i.complete && i.naturalWidth > 0)`, time.Minute)
	b.page("10-run-completed")

	// The best claim: plots, a refused and a granted promotion.
	b.do("open the best claim", chromedp.Click(css(`#run-live .facts a[href*="/claims/"]`)), chromedp.WaitVisible(css(`#tier-form`)))
	claimURL := b.location()
	b.waitFor("the fit plot and the Pareto front load", `(() => { const imgs = [...document.querySelectorAll('.figures img')];
		return imgs.length >= 2 && imgs.every(i => i.complete && i.naturalWidth > 0) })()`, time.Minute)
	if n := eval[int](b, `document.querySelectorAll('#controls tbody tr').length`); n != 2 {
		t.Errorf("the claim shows %d negative controls, want 2", n)
	}
	b.page("11-claim")
	b.do("promote above the ceiling",
		chromedp.SetValue(css(`#t-tier`), "publish"),
		chromedp.SendKeys(css(`#t-why`), "too eager"),
		chromedp.Click(css(`button[value=promote]`)),
		chromedp.WaitVisible(css(`#refusal`)))
	if r := b.text("#refusal"); !strings.Contains(r, "promotion_ceiling_exceeded") || !strings.Contains(r, "403") {
		t.Errorf("the refusal reads %q", r)
	}
	b.page("12-claim-refused")
	b.do("promote within the ceiling",
		chromedp.SetValue(css(`#t-tier`), "validate"),
		chromedp.SendKeys(css(`#t-why`), "replicated"),
		chromedp.Click(css(`button[value=promote]`)),
		chromedp.WaitVisible(css(`p.ok`)))
	if s := b.text("p.ok"); !strings.Contains(s, "validate") {
		t.Errorf("after promotion the page says %q", s)
	}
	if h := b.text("ol.history"); !strings.Contains(h, "claim_promoted") || !strings.Contains(h, creds.DashboardUser) && !strings.Contains(h, "usr_") {
		t.Errorf("the tier history does not show the user's promotion: %q", h)
	}
	b.page("13-claim-promoted")

	// A causal run: its claim page shows the run's causal graph.
	b.do("submit a causal run", chromedp.Navigate(campaignURL+"/runs/new"), chromedp.WaitVisible(css(`#run-form`)),
		chromedp.SetValue(css(`#r-mode`), "causal"),
		chromedp.SetValue(css(`#r-ds`), datasetID),
		chromedp.Submit(css(`#run-form`)),
		chromedp.WaitVisible(css(`#run-live`)))
	b.waitFor("the causal run completes", `document.getElementById('run-live').dataset.status === 'completed'`, 5*time.Minute)
	b.do("open the causal claim", chromedp.Click(css(`#run-live .facts a[href*="/claims/"]`)), chromedp.WaitVisible(css(`#tier-form`)))
	b.waitFor("the causal graph loads", `(() => { const i = document.querySelector('.figures img[alt^="Causal graph"]');
		return !!i && i.complete && i.naturalWidth > 0 })()`, time.Minute)
	b.page("13-causal-claim")

	b.do("list claims", chromedp.Navigate(base+"/projects/"+pid+"/claims?type=law&sort=score&order=desc"), chromedp.WaitVisible(css(`main table`)))
	b.page("14-claims")
	// The score filter keeps the claims at or above the minimum, and its address is the link.
	b.do("filter claims by score", chromedp.SetValue(css(`#f-score`), "0.5"), chromedp.Submit(css(`#f-score`)),
		chromedp.WaitVisible(css(`#score-note`)))
	if !strings.Contains(b.location(), "min_score=0.5") {
		t.Errorf("the score filter is not in the address: %s", b.location())
	}
	if low := eval[int](b, `[...document.querySelectorAll('main table tbody meter')].filter(m => +m.getAttribute('value') < 0.5).length`); low != 0 {
		t.Errorf("%d claims below the minimum score are shown", low)
	}
	b.page("14-claims-min-score")

	b.do("verify the ledger", chromedp.Navigate(base+"/projects/"+pid+"/ledger"), chromedp.Click(css(`main form button`)),
		chromedp.WaitVisible(css(`#verify`)))
	if v := b.text("#verify"); !strings.Contains(v, "The ledger verifies") {
		t.Errorf("ledger verification reads %q", v)
	}
	b.page("15-ledger")
	b.do("open an entry's inclusion proof", chromedp.Click(css(`table.ledger tbody tr:nth-child(3) a`)),
		chromedp.WaitVisible(css(`#proof-result[data-verified]`)))
	if v := eval[string](b, `document.getElementById('proof-result').dataset.verified`); v != "true" {
		t.Errorf("the inclusion proof did not verify in the browser: %q", b.text("#proof-result"))
	}
	tampered := `(async () => { const p = JSON.parse(document.getElementById('proof').dataset.proof);
		const bad = Object.assign({}, p, {entry_hash: (p.entry_hash[0] === 'a' ? 'b' : 'a') + p.entry_hash.slice(1)});
		const moved = Object.assign({}, p, {hashes: p.hashes.slice().reverse(), leaf_index: p.leaf_index === 0 ? 1 : p.leaf_index - 1});
		return [await disco.verifyInclusion(p), await disco.verifyInclusion(bad), await disco.verifyInclusion(moved)].join() })()`
	if got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](tampered, chromedp.EvalAwaitPromise)); err != nil || got != "true,false,false" {
		t.Errorf("browser verification of the proof, a tampered hash and a moved leaf = %q (%v)", got, err)
	}
	b.page("15-ledger-proof")

	// An API key made in the dashboard works against /v1.
	b.do("create an API key",
		chromedp.Navigate(base+"/settings/keys"),
		chromedp.SendKeys(css(`#k-name`), "pipeline"),
		chromedp.Click(css(`input[value="projects:read"]`)),
		chromedp.Submit(css(`#key-form`)),
		chromedp.WaitVisible(css(`#new-key-secret`)))
	secret, err := chromedp.Run(b.ctx, chromedp.Value(css(`#new-key-secret`)))
	if err != nil || !strings.HasPrefix(secret, "disco_key_") {
		t.Fatalf("new key secret %q (%v)", secret, err)
	}
	req, _ := http.NewRequest(http.MethodGet, creds.BaseURL+"/projects/"+pid, nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the new key against /v1: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	b.page("16-keys")
	b.do("list OAuth clients", chromedp.Navigate(base+"/settings/oauth-clients"), chromedp.WaitVisible(css(`main table`)))
	if l := b.text("main table"); !strings.Contains(l, "disco dashboard") || !strings.Contains(l, base+"/auth/callback") {
		t.Errorf("the OAuth clients page does not list the dashboard: %q", l)
	}
	b.page("16-oauth-clients")

	// The webhook's deliveries, and a redelivery that the receiver gets again.
	var firstEvent string
	deadline := time.Now().Add(time.Minute)
	for firstEvent == "" && time.Now().Before(deadline) {
		b.do("open the webhook", chromedp.Navigate(webhookURL), chromedp.WaitVisible(css(`main h1`)))
		firstEvent = eval[string](b, `(() => { const r = document.querySelector('#deliveries tbody tr .b-succeeded');
			return r ? r.closest('tr').querySelector('code').textContent : '' })()`)
		if firstEvent == "" {
			time.Sleep(time.Second)
		}
	}
	if firstEvent == "" {
		t.Fatalf("no delivery succeeded; the page shows %q", b.text("main"))
	}
	if sig := b.text("#signing"); !strings.Contains(sig, "X-Service-Signature: t=") {
		t.Errorf("the webhook page does not say how attempts are signed: %q", sig)
	}
	b.page("17-webhook")
	before := hook.count(firstEvent)
	b.do("redeliver", chromedp.Click(css(`#deliveries tbody tr:has(.b-succeeded) form button`)), chromedp.WaitVisible(css(`#deliveries`)))
	live.Eventually(t, time.Minute, "the redelivery arrives", func() bool { return hook.count(firstEvent) > before })

	// Ids of another tenant, missing ids and things that are not ids are 404 pages.
	for _, p := range []string{"/projects/" + foreign, "/projects/" + foreign + "/claims", "/projects/proj_aaaaaaaaaaaaaaaaaaaaaaaaaa", "/projects/" + pid + "/claims/clm_aaaaaaaaaaaaaaaaaaaaaaaaaa",
		"/projects/..%2F..%2Fapi-keys"} {
		b.do("open "+p, chromedp.Navigate(base+p), chromedp.WaitVisible(css(`main h1`)))
		if h := b.text("main h1"); !strings.HasPrefix(h, "404") {
			t.Errorf("%s shows %q", p, h)
		}
	}
	b.page("18-not-found")

	// CSRF: a form on another origin posting to the dashboard does nothing.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form id=f method=post action="%s/projects"><input name=name value=csrf-probe></form>
<script>document.getElementById('f').submit()</script>`, base)
	}))
	defer evil.Close()
	b.do("visit a hostile page", chromedp.Navigate(evil.URL), chromedp.Sleep(2*time.Second))
	if projectNamed(t, creds, "csrf-probe") {
		t.Errorf("a cross-origin form created a project")
	}

	// Signing out revokes the session: the old cookie is useless.
	b.do("back to the dashboard", chromedp.Navigate(claimURL), chromedp.WaitVisible(css(`#tier-form`)))
	// A narrow screen: the navigation goes above the content, nothing overflows sideways.
	b.do("a narrow screen", chromedp.EmulateViewport(390, 844), chromedp.Reload(), chromedp.WaitVisible(css(`#tier-form`)))
	if wide := eval[bool](b, `document.documentElement.scrollWidth > window.innerWidth + 1`); wide {
		t.Errorf("the claim page scrolls sideways on a narrow screen")
	}
	b.page("20-claim-narrow")
	b.do("a wide screen again", chromedp.EmulateViewport(1280, 800))
	old := b.cookie("disco_dash")
	b.do("sign out", chromedp.Click(css(`form[action="/signout"] button`)), chromedp.WaitVisible(css(`a[href="/signin"]`)))
	b.page("19-signed-out")
	req, _ = http.NewRequest(http.MethodGet, base+"/projects", nil)
	req.AddCookie(&http.Cookie{Name: "disco_dash", Value: old})
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/signin") {
		t.Errorf("the cookie replayed after sign-out: %d, Location %q", resp.StatusCode, loc)
	}
	b.do("visit after sign-out", chromedp.Navigate(base+"/projects"), chromedp.WaitVisible(css(`input[name=username]`)))
}

// projectNamed tells whether the tenant has a project with that name (through /v1 with
// the admin key of disco dev).
func projectNamed(t *testing.T, creds live.Credentials, name string) bool {
	api := &live.Client{T: t, Base: creds.BaseURL, Key: creds.APIKey}
	data, ok := api.Must(http.StatusOK, http.MethodGet, "/projects?limit=100", nil)["data"].([]any)
	if !ok {
		t.Fatal("the project list has no data")
	}
	for _, p := range data {
		if p, _ := p.(map[string]any); p["name"] == name {
			return true
		}
	}
	return false
}

// receiver counts the webhook deliveries it gets, by event id.
type receiver struct {
	url string
	mu  sync.Mutex
	by  map[string]int
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{by: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var env struct {
			ID string `json:"id"`
		}
		_ = json.NewDecoder(req.Body).Decode(&env)
		r.mu.Lock()
		r.by[env.ID]++
		r.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/hook"
	return r
}

func (r *receiver) count(eventID string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.by[eventID]
}
