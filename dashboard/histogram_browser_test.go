package dashboard_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/discolab/disco/test/live"
)

// TestDatasetHistogramsAndAttemptLogInChromium: a dataset's page draws a histogram
// per numeric column with gonum/plot, lists a text column's most frequent values and
// states why a column has neither; a webhook's
// page lists each delivery's attempts with the signature headers the endpoint
// received (issue 15).
func TestDatasetHistogramsAndAttemptLogInChromium(t *testing.T) {
	creds := startDev(t)
	b := newBrowser(t, creds.DashboardURL)
	base := b.base
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	b.do("open the dashboard", chromedp.Navigate(base+"/"), chromedp.WaitVisible(css(`input[name=username]`)))
	b.do("sign in",
		chromedp.SendKeys(css(`input[name=username]`), creds.DashboardUser),
		chromedp.SendKeys(css(`input[name=password]`), creds.DashboardPassword),
		chromedp.Click(css(`button[value=approve]`)),
		chromedp.WaitVisible(css(`form[action="/projects"]`)))

	api := &live.Client{T: t, Base: creds.BaseURL, Key: creds.APIKey}
	pid := api.Must(http.StatusCreated, http.MethodPost, "/projects", map[string]any{"name": "histograms"})["id"].(string)
	hook := newSignatureReceiver(t)
	wid := api.Must(http.StatusCreated, http.MethodPost, "/webhooks", map[string]any{"url": hook.url, "events": []string{"dataset.profiled"},
		"project_id": pid, "secret": "a-signing-secret-of-some-length"})["id"].(string)

	// A numeric column named as an XSS probe, a text column, an empty column, a bool
	// column, and a column of one value.
	var csv strings.Builder
	csv.WriteString(xss + ",label,empty,flag,one\n")
	for i := range 60 {
		label := "l" + strconv.Itoa(i%5)
		if i%5 == 4 {
			label = xss // a hostile value is text too
		}
		csv.WriteString(strings.Join([]string{strconv.Itoa(i * i % 97), label, "", []string{"true", "false"}[i%3%2], "7.5"}, ",") + "\n")
	}
	b.do("upload a dataset",
		chromedp.Navigate(base+"/projects/"+pid+"/datasets"),
		chromedp.SendKeys(css(`#d-name`), "histograms"),
		chromedp.SetUploadFiles(css(`#d-file`), []string{writeFile(t, "h.csv", csv.String())}),
		chromedp.Click(css(`#upload-form button[type=submit]`)),
		chromedp.WaitVisible(css(`table.profile`)))
	b.waitFor("the histograms load", `[...document.querySelectorAll('td.histogram img')].every(i => i.complete && i.naturalWidth > 0)`, time.Minute)
	imgs := eval[[]string](b, `[...document.querySelectorAll('td.histogram img')].map(i => i.closest('tr').cells[0].textContent + ' | ' + i.alt)`)
	if len(imgs) != 3 || !strings.HasPrefix(imgs[0], xss+" | Histogram of "+xss+": 20 bins") {
		t.Errorf("histogram images %q, want the three numeric columns with values, the first of 20 bins", imgs)
	}
	typ, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`fetch(document.querySelector('td.histogram img').src).then(r => r.headers.get('content-type'))`, chromedp.EvalAwaitPromise))
	if err != nil || typ != "image/svg+xml" {
		t.Errorf("a histogram is served as %q (%v)", typ, err)
	}
	cells := b.text("table.profile tbody")
	for _, want := range []string{"l0 12", xss + " 12", "5 distinct values", "No values: every cell is missing."} {
		if !strings.Contains(cells, want) {
			t.Errorf("the profile does not say %q: %q", want, cells)
		}
	}
	if n := eval[int](b, `document.querySelectorAll('img[src="x"]').length`); n != 0 {
		t.Errorf("the column name became %d img elements", n)
	}
	b.page("21-dataset-histograms")

	// The dataset.profiled delivery: refused once, then accepted.
	live.Eventually(t, 2*time.Minute, "the delivery is retried and accepted", func() bool { return len(hook.all()) >= 2 })
	sent := hook.all()
	b.do("open the webhook", chromedp.Navigate(base+"/settings/webhooks/"+wid), chromedp.WaitVisible(css(`#deliveries`)))
	b.do("open the attempt log", chromedp.Click(css(`#deliveries details summary`)), chromedp.WaitVisible(css(`table.attempt-log`)))
	log := b.text("table.attempt-log")
	for _, h := range sent[:2] {
		for _, v := range []string{h.Get("X-Service-Signature"), h.Get("webhook-signature"), h.Get("webhook-timestamp"), h.Get("webhook-id")} {
			if v == "" || !strings.Contains(log, v) {
				t.Errorf("the attempt log does not show the header value %q the endpoint received: %q", v, log)
			}
		}
	}
	if !strings.Contains(log, "HTTP 503") || !strings.Contains(log, "HTTP 204") || strings.Contains(log, "a-signing-secret") {
		t.Errorf("the attempt log reads %q", log)
	}
	b.page("22-webhook-attempts")
}

// signatureReceiver keeps the headers of every request; it refuses the first.
type signatureReceiver struct {
	url string
	mu  sync.Mutex
	got []http.Header
}

func newSignatureReceiver(t *testing.T) *signatureReceiver {
	r := &signatureReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.got = append(r.got, req.Header.Clone())
		first := len(r.got) == 1
		r.mu.Unlock()
		if first {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL + "/hook"
	return r
}

func (r *signatureReceiver) all() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.got...)
}
