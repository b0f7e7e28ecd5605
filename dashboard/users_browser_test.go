package dashboard_test

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/test/live"
)

// TestKeyLastUsedAndUsersInChromium: the keys page shows when each key was last used, in
// the viewer's time zone, "never" before its first use; the users page lists the tenant's
// users, and disabling one ends their dashboard session at once; enabling lets them sign
// in again (issue 15).
func TestKeyLastUsedAndUsersInChromium(t *testing.T) {
	creds := startDev(t)
	b := newBrowser(t, creds.DashboardURL)
	base := b.base
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	signIn := func(b *browser, user, password string) {
		b.t.Helper()
		b.do("open the dashboard as "+user, chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(css(`input[name=username]`)))
		b.do("sign in as "+user,
			chromedp.SendKeys(css(`input[name=username]`), user),
			chromedp.SendKeys(css(`input[name=password]`), password),
			chromedp.Click(css(`button[value=approve]`)),
			chromedp.WaitVisible(css(`form[action="/projects"]`)))
	}
	signIn(b, creds.DashboardUser, creds.DashboardPassword)

	// A key used after the page showed it as never used.
	admin := &live.Client{T: t, Base: creds.BaseURL, Key: creds.APIKey}
	secret := admin.Must(http.StatusCreated, http.MethodPost, "/api-keys", map[string]any{"name": "probe-key", "scopes": []string{"projects:read"}})["key"].(string)
	lastUsed := `(() => { const r = [...document.querySelectorAll('main table tbody tr')].find(r => r.cells[0].textContent === 'probe-key');
		return r ? r.querySelector('td.last-used').textContent.trim() : 'no row' })()`
	b.do("open the keys", chromedp.Navigate(base+"/settings/keys"), chromedp.WaitVisible(css(`main table`)))
	if got := eval[string](b, lastUsed); got != "never" {
		t.Fatalf("an unused key's last use reads %q, want never", got)
	}
	(&live.Client{T: t, Base: creds.BaseURL, Key: secret}).Must(http.StatusOK, http.MethodGet, "/projects", nil)
	used := false
	for deadline := time.Now().Add(time.Minute); !used && time.Now().Before(deadline); {
		b.do("reload the keys", chromedp.Navigate(base+"/settings/keys"), chromedp.WaitVisible(css(`main table`)))
		used = eval[string](b, lastUsed) != "never"
		if !used {
			time.Sleep(time.Second)
		}
	}
	if !used {
		t.Fatal("the keys page still says the used key was never used")
	}
	// The time is the API's, shown in the browser's zone by app.js (not the UTC fallback).
	stamp := eval[string](b, `(() => { const r = [...document.querySelectorAll('main table tbody tr')].find(r => r.cells[0].textContent === 'probe-key');
		const el = r.querySelector('td.last-used time'); return el ? el.getAttribute('datetime') + ' | ' + el.textContent : '' })()`)
	iso, shown, _ := strings.Cut(stamp, " | ")
	at, err := time.Parse(time.RFC3339, iso)
	if err != nil || time.Since(at) > 10*time.Minute || strings.Contains(shown, "UTC") || shown == "" {
		t.Fatalf("the last use reads %q: want the time of the use in the viewer's zone", stamp)
	}
	b.page("23-keys-last-used")

	// A second user, signed in to the dashboard in a browser of their own.
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(filepath.Dir(creds.Kubeconfig), "disco.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(context.Background(), creds.TenantID, "ada-lovelace", "analytical engine"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ada := newBrowser(t, creds.DashboardURL)
	signIn(ada, "ada-lovelace", "analytical engine")

	row := func(user string) string {
		return `[...document.querySelectorAll('#users tbody tr')].find(r => r.dataset.user === '` + user + `')`
	}
	status := func(user string) string {
		return eval[string](b, `(() => { const r = `+row(user)+`; return r ? r.querySelector('.badge').textContent : 'no row' })()`)
	}
	b.do("open the users", chromedp.Navigate(base+"/settings/users"), chromedp.WaitVisible(css(`#users`)))
	if s := status("ada-lovelace"); s != "active" {
		t.Fatalf("ada-lovelace is %q on the users page, want active", s)
	}
	if s := status(creds.DashboardUser); s != "active" {
		t.Fatalf("the admin user is %q on the users page, want active", s)
	}
	b.page("24-users")

	b.do("disable ada", chromedp.Click(css(`button[aria-label="Disable ada-lovelace"]`)), chromedp.WaitVisible(css(`button[aria-label="Enable ada-lovelace"]`)))
	if s := status("ada-lovelace"); s != "disabled" {
		t.Fatalf("after disabling, ada-lovelace is %q", s)
	}
	b.page("25-users-disabled")
	// Ada's live dashboard session stops working: the next page sends her to sign in.
	ada.do("ada reloads", chromedp.Navigate(ada.base+"/projects"), chromedp.WaitVisible(css(`input[name=username]`)))
	if loc := ada.location(); strings.Contains(loc, "/projects") && !strings.Contains(loc, "signin") && !strings.Contains(loc, "authorize") {
		t.Fatalf("a disabled user's dashboard session still opens %s", loc)
	}

	// The admin cannot disable themselves; the page says why.
	b.do("disable oneself", chromedp.Click(css(`button[aria-label="Disable `+creds.DashboardUser+`"]`)), chromedp.WaitVisible(css(`main p.error`)))
	if msg := b.text("main p.error"); !strings.Contains(msg, "cannot disable your own user") {
		t.Errorf("disabling oneself reads %q", msg)
	}
	b.page("26-users-self-refused")
	if s := status(creds.DashboardUser); s != "active" {
		t.Fatalf("the admin disabled themselves: %q", s)
	}

	b.do("enable ada", chromedp.Click(css(`button[aria-label="Enable ada-lovelace"]`)), chromedp.WaitVisible(css(`button[aria-label="Disable ada-lovelace"]`)))
	signIn(ada, "ada-lovelace", "analytical engine")
	live.Eventually(t, 10*time.Second, "ada is active again", func() bool { return status("ada-lovelace") == "active" })
}
