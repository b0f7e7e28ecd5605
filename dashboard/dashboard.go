package dashboard

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"

	"github.com/discolab/disco/dashboard/api"
)

//go:embed templates static
var files embed.FS

// Options configure the dashboard.
type Options struct {
	// API serves the REST API in this process (the facade's handler for /v1/...). The
	// dashboard calls it through an in-process transport (api.HandlerTransport).
	API http.Handler
	// Transport, when API is nil, reaches the REST API some other way (over the network).
	Transport http.RoundTripper
	// BaseURL is the REST API's public address including /v1, e.g.
	// http://127.0.0.1:8080/v1. The dashboard is served at its origin's root.
	BaseURL string
	// CookieKey seals the session cookies (at least 32 bytes, kept secret, the same on
	// every replica).
	CookieKey []byte
	// ClientFor returns the dashboard's OAuth client id in a tenant, registering the
	// client on first use (the composition root does it; see RedirectURI).
	ClientFor func(ctx context.Context, tenantID string) (string, error)
	// Tenant, when set, is the only tenant users sign in to (disco dev); otherwise the
	// sign-in page asks for the tenant id.
	Tenant string
	Logger logr.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Dashboard is the web dashboard, an http.Handler for every path outside /v1.
type Dashboard struct {
	opts      Options
	api       *api.Client
	origin    string // scheme://host of BaseURL
	redirect  string
	secure    bool
	sealer    *sealer
	pages     map[string]*pageTemplate
	mux       *http.ServeMux
	handler   http.Handler
	now       func() time.Time
	log       logr.Logger
	refreshMu sync.Mutex
	refreshed map[string]refreshResult // by SHA-256 of the used refresh token
}

// RedirectURI is the dashboard's OAuth redirect URI for a REST base URL: the callback
// at the root of the same origin. The composition root registers the client with it.
func RedirectURI(baseURL string) (string, error) {
	u, err := url.Parse(baseURL)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("dashboard: base URL %q must be absolute", baseURL)
	}
	return u.Scheme + "://" + u.Host + "/auth/callback", nil
}

// New builds the dashboard.
func New(opts Options) (*Dashboard, error) {
	redirect, err := RedirectURI(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	if opts.ClientFor == nil {
		return nil, errors.New("dashboard: ClientFor is required")
	}
	s, err := newSealer(opts.CookieKey)
	if err != nil {
		return nil, err
	}
	t := opts.Transport
	if opts.API != nil {
		t = api.HandlerTransport(opts.API)
	}
	if t == nil {
		return nil, errors.New("dashboard: API or Transport is required")
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	u, _ := url.Parse(opts.BaseURL)
	d := &Dashboard{
		opts: opts, api: &api.Client{Base: strings.TrimSuffix(opts.BaseURL, "/"), Transport: t},
		origin: u.Scheme + "://" + u.Host, redirect: redirect, secure: u.Scheme == "https", sealer: s,
		now: now, log: opts.Logger, refreshed: map[string]refreshResult{},
	}
	if d.pages, err = parsePages(); err != nil {
		return nil, err
	}
	d.routes()
	return d, nil
}

func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) { d.handler.ServeHTTP(w, r) }

// contentSecurityPolicy allows the dashboard's own scripts, styles and images only: no
// inline script or style, no framing (issue 15, "Security").
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self' %s; frame-ancestors 'none'; base-uri 'none'"

func (d *Dashboard) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(files, "static")
	m.Handle("GET /static/", http.StripPrefix("/static/", staticHandler(static)))
	m.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/projects", http.StatusSeeOther)
	})
	m.HandleFunc("GET /signin", d.signIn)
	m.HandleFunc("GET /auth/callback", d.callback)
	m.HandleFunc("POST /signout", d.signOut)
	d.pageRoutes(m)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		d.renderError(w, r, nil, http.StatusNotFound, "There is no page at this address.")
	})
	d.mux = m
	// Cross-origin state-changing requests are refused by their Fetch metadata or Origin
	// (net/http.CrossOriginProtection); SameSite=Lax keeps the session cookie off
	// cross-site subrequests as well.
	cop := http.NewCrossOriginProtection()
	csp := fmt.Sprintf(contentSecurityPolicy, d.origin)
	d.handler = cop.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, "/static/") {
			h.Set("Cache-Control", "no-store")
		}
		if r.Body != nil && r.Body != http.NoBody {
			// A body must keep coming: a form within bodyStall; an upload's reads are
			// bounded from then on by the facade's own deadlines (api.WithDeadlines).
			_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyStall))
		}
		m.ServeHTTP(w, r)
	}))
}

// bodyStall bounds the wait for a request body, as the facade's body stall timeout does
// for its own requests (issue 17: slow bodies must not hold connections).
const bodyStall = 30 * time.Second

func staticHandler(root fs.FS) http.Handler {
	fsrv := http.FileServerFS(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") || r.URL.Path == "" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fsrv.ServeHTTP(w, r)
	})
}

// randomString is 32 random bytes, base64url.
func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// localPath returns p when it is a path on this site, or "/projects": a sign-in never
// sends the user to another origin (open redirects, OWASP).
func localPath(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") ||
		strings.ContainsAny(p, "\r\n") {
		return "/projects"
	}
	return p
}

// signIn starts the authorization code flow with PKCE S256 (RFC 7636): the state and the
// verifier stay in a sealed cookie, and the browser goes to the facade's login page.
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	next := localPath(r.URL.Query().Get("next"))
	tenant := d.opts.Tenant
	if tenant == "" {
		tenant = strings.TrimSpace(r.URL.Query().Get("tenant"))
		if tenant == "" || len(tenant) > 64 {
			d.render(w, r, http.StatusOK, "signin.html", &page{Title: "Sign in", Data: map[string]any{"Next": next}})
			return
		}
	}
	clientID, err := d.opts.ClientFor(r.Context(), tenant)
	if err != nil {
		d.log.Error(err, "dashboard: OAuth client")
		d.render(w, r, http.StatusNotFound, "signin.html", &page{Title: "Sign in",
			Data: map[string]any{"Next": next, "Error": "There is no tenant with this id."}})
		return
	}
	f := flow{State: randomString(), Verifier: randomString(), Next: next, Tenant: tenant, Client: clientID, Created: d.now()}
	if err := d.setCookie(w, flowCookie, f, 15*time.Minute); err != nil {
		d.renderError(w, r, nil, http.StatusInternalServerError, "Signing in is unavailable at the moment.")
		return
	}
	sum := sha256.Sum256([]byte(f.Verifier))
	q := url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {d.redirect}, "state": {f.State},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
	}
	http.Redirect(w, r, d.api.Base+"/auth/authorize?"+q.Encode(), http.StatusSeeOther)
}

// callback finishes the flow: the state must be the one this browser was given, and the
// code is exchanged with the verifier.
func (d *Dashboard) callback(w http.ResponseWriter, r *http.Request) {
	var f flow
	ok := d.readCookie(r, flowCookie, &f)
	d.clearCookie(w, flowCookie)
	q := r.URL.Query()
	switch {
	case !ok || d.now().Sub(f.Created) > 15*time.Minute:
		d.render(w, r, http.StatusBadRequest, "signin.html", &page{Title: "Sign in",
			Data: map[string]any{"Error": "This sign-in has expired or was started in another browser. Sign in again.", "Next": "/projects"}})
		return
	case q.Get("error") != "":
		d.render(w, r, http.StatusForbidden, "signin.html", &page{Title: "Sign in",
			Data: map[string]any{"Error": "Sign-in was not completed: " + q.Get("error_description"), "Next": f.Next}})
		return
	case !equalStrings(q.Get("state"), f.State) || q.Get("code") == "":
		d.render(w, r, http.StatusBadRequest, "signin.html", &page{Title: "Sign in",
			Data: map[string]any{"Error": "This sign-in answer does not belong to this browser. Sign in again.", "Next": f.Next}})
		return
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")}, "redirect_uri": {d.redirect},
		"client_id": {f.Client}, "code_verifier": {f.Verifier}}
	var tok api.Token
	if err := d.api.Do(r.Context(), api.Request{Method: http.MethodPost, Path: "/auth/token", Body: strings.NewReader(form.Encode()),
		ContentType: "application/x-www-form-urlencoded", RemoteAddr: r.RemoteAddr}, &tok); err != nil {
		d.render(w, r, http.StatusUnauthorized, "signin.html", &page{Title: "Sign in",
			Data: map[string]any{"Error": "Sign-in failed: " + messageOf(err), "Next": f.Next}})
		return
	}
	s := session{Access: tok.AccessToken, Refresh: tok.RefreshToken, Expires: d.now().Add(time.Duration(tok.ExpiresIn) * time.Second),
		Tenant: tok.TenantID, Client: f.Client}
	if err := d.setSession(w, &s); err != nil {
		d.renderError(w, r, nil, http.StatusInternalServerError, "Signing in is unavailable at the moment.")
		return
	}
	http.Redirect(w, r, f.Next, http.StatusSeeOther)
}

// sessionLifetime bounds the cookie; the refresh token's own limits (30 days idle, 90
// days absolute) end a session earlier.
const sessionLifetime = 90 * 24 * time.Hour

func (d *Dashboard) setSession(w http.ResponseWriter, s *session) error {
	return d.setCookie(w, sessionCookie, s, sessionLifetime)
}

// signOut revokes the refresh token (which ends every token of the grant) and the access
// token at /v1/auth/revoke (RFC 7009), then drops the cookie: a copy of the cookie kept
// elsewhere carries only revoked tokens.
func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request) {
	var s session
	if d.readCookie(r, sessionCookie, &s) {
		for _, tok := range []struct{ token, hint string }{{s.Refresh, "refresh_token"}, {s.Access, "access_token"}} {
			if tok.token == "" {
				continue
			}
			form := url.Values{"token": {tok.token}, "token_type_hint": {tok.hint}, "client_id": {s.Client}}
			if err := d.api.Do(r.Context(), api.Request{Method: http.MethodPost, Path: "/auth/revoke", Body: strings.NewReader(form.Encode()),
				ContentType: "application/x-www-form-urlencoded", RemoteAddr: r.RemoteAddr}, nil); err != nil {
				d.log.Error(err, "dashboard: revoking a token at sign-out")
			}
		}
	}
	d.clearCookie(w, sessionCookie)
	d.render(w, r, http.StatusOK, "signedout.html", &page{Title: "Signed out"})
}

func equalStrings(a, b string) bool {
	return a != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// Serves tells whether path is the dashboard's: the composition root sends these to the
// dashboard and everything else (/v1, probes, the aggregated API) to the REST facade.
func Serves(path string) bool {
	if path == "/" || path == "/signin" || path == "/signout" || path == "/auth/callback" || path == "/projects" {
		return true
	}
	for _, prefix := range []string{"/static/", "/projects/", "/settings/"} {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
