package signin

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/ory/fosite"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/transport"
	"github.com/discolab/disco/internal/store"
)

// oauthError answers an OAuth failure with the error envelope; code is the RFC 6749 code.
func oauthError(err error) *apierror.Error {
	code, desc, status := oauth.ErrorOf(err)
	switch {
	case status >= 500:
		status = http.StatusInternalServerError
	case status != http.StatusUnauthorized && status != http.StatusForbidden:
		// The documented OAuth failures are 400, 401 and 403 (RFC 6749 5.2, 4.1.2.1).
		status = http.StatusBadRequest
	}
	if desc == "" {
		desc = "the OAuth request failed"
	}
	return apierror.New(status, code, "%s", desc).With("error_description", desc)
}

// Deps is what the signin room needs.
type Deps struct {
	Kit *resource.Kit
	// Store keeps users and their sign-in failures.
	Store *store.Store
	// Sessions is the OAuth 2 provider: clients, codes and tokens.
	Sessions *oauth.Provider
	// Secret keys the sign-in form's CSRF token.
	Secret []byte
}

type handlers struct{ Deps }

// Register adds the OAuth 2 endpoints under /auth: token exchange and revocation, and
// the authorization page where users sign in.
func Register(api huma.API, d Deps) {
	s := &handlers{Deps: d}
	g := huma.NewGroup(api, "/auth")
	transport.Register(g, huma.Operation{
		OperationID: "exchangeToken", Method: http.MethodPost, Path: "/token",
		Summary: "Exchange an authorization code or a refresh token for tokens", Tags: []string{"Authentication"},
		Description: "JSON or application/x-www-form-urlencoded. grant_type authorization_code: code, redirect_uri, " +
			"client_id, code_verifier (PKCE S256). grant_type refresh_token: refresh_token, client_id; refresh tokens " +
			"rotate on every use, and presenting a used one revokes every token of the grant. Access tokens " +
			"(disco_session_...) expire after 24 hours. A refresh token stays valid for 30 days after it was issued " +
			"(the idle window), and every token of a grant ends 90 days after the user signed in however often it is " +
			"refreshed (the absolute lifetime); then the user signs in again. Deleting or disabling a user ends their " +
			"sessions at once.",
		Errors:   []int{http.StatusUnauthorized, http.StatusForbidden},
		Metadata: map[string]any{transport.MetaRaw: true},
	}, "", s.exchangeToken)
	documentFormBody(api, "/auth/token", tokenRequestDoc{})

	transport.Register(g, huma.Operation{
		OperationID: "revokeToken", Method: http.MethodPost, Path: "/revoke",
		Summary: "Revoke a session or refresh token (RFC 7009)", Tags: []string{"Authentication"}, DefaultStatus: http.StatusOK,
		Errors:   []int{http.StatusUnauthorized, http.StatusForbidden},
		Metadata: map[string]any{transport.MetaRaw: true},
	}, "", s.revokeToken)
	documentFormBody(api, "/auth/revoke", revokeRequestDoc{})

	transport.Register(g, huma.Operation{
		OperationID: "authorizePage", Method: http.MethodGet, Path: "/authorize",
		Summary: "Login and consent page of the authorization code flow", Tags: []string{"Authentication"},
		Description: "Query: response_type=code, client_id, redirect_uri (exactly as registered), scope, state, " +
			"code_challenge, code_challenge_method=S256.",
		Errors:   []int{http.StatusUnauthorized, http.StatusForbidden},
		Metadata: map[string]any{transport.MetaRaw: true},
		Responses: map[string]*huma.Response{"200": {Description: "HTML login and consent form.",
			Content: map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: "string"}}}}},
	}, "", s.authorizePage)
	transport.Register(g, huma.Operation{
		OperationID: "authorizeDecision", Method: http.MethodPost, Path: "/authorize",
		Summary: "Submit login and consent", Tags: []string{"Authentication"},
		Description: "Form post from the login page; on approval redirects (303) to redirect_uri with code and state. " +
			"403 when the form does not belong to the pending authorization request.",
		Errors:   []int{http.StatusForbidden},
		Metadata: map[string]any{transport.MetaRaw: true},
		Responses: map[string]*huma.Response{"303": {Description: "Redirect to the client."},
			"401": {Description: "Wrong username or password, or a disabled account: the page again.", Content: map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: "string"}}}},
			"429": {Description: "Too many failed sign-ins for this username (tenant and username, whether or not the account exists): " +
				"the page again, with Retry-After. The wait starts at 30 seconds after 5 failures in a row and doubles with each " +
				"further failure up to 15 minutes.", Content: map[string]*huma.MediaType{"text/html": {Schema: &huma.Schema{Type: "string"}}}}},
	}, "", s.authorizeDecision)
}

type tokenRequestDoc struct {
	GrantType    string `json:"grant_type" required:"true" enum:"authorization_code,refresh_token"`
	Code         string `json:"code,omitempty"`
	RedirectURI  string `json:"redirect_uri,omitempty"`
	ClientID     string `json:"client_id" required:"true"`
	ClientSecret string `json:"client_secret,omitempty" doc:"Confidential clients only (or HTTP Basic)."`
	CodeVerifier string `json:"code_verifier,omitempty"`
	RefreshToken string `json:"refresh_token,omitempty"`
}

type revokeRequestDoc struct {
	Token         string `json:"token" required:"true"`
	TokenTypeHint string `json:"token_type_hint,omitempty" enum:"access_token,refresh_token"`
	ClientID      string `json:"client_id" required:"true"`
}

// documentFormBody describes a body the handler parses itself (JSON or form).
func documentFormBody(api huma.API, path string, doc any) {
	op := api.OpenAPI().Paths[path].Post
	schema := api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(doc), true, "")
	op.RequestBody = &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"application/json":                  {Schema: schema},
		"application/x-www-form-urlencoded": {Schema: schema},
	}}
}

type TokenResponse struct {
	AccessToken  string `json:"access_token" example:"disco_session_..."`
	TokenType    string `json:"token_type" enum:"Bearer"`
	ExpiresIn    int64  `json:"expires_in" example:"86400"`
	RefreshToken string `json:"refresh_token" example:"disco_refresh_..."`
	Scope        string `json:"scope" doc:"Space-separated scopes."`
	TenantID     string `json:"tenant_id"`
}

// formRequest turns a JSON or form body into the form request fosite reads.
func formRequest(ctx context.Context, r *http.Request, body []byte) (*http.Request, *apierror.Error) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var form url.Values
	switch mt {
	case "application/x-www-form-urlencoded":
		v, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the form body could not be parsed")
		}
		form = v
	case "application/json", "":
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return nil, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the body is not a JSON object")
		}
		form = url.Values{}
		for k, v := range m {
			if s, ok := v.(string); ok {
				form.Set(k, s)
			} else if v != nil {
				return nil, apierror.Invalid("body."+k, "must be a string")
			}
		}
	default:
		return nil, apierror.New(http.StatusUnsupportedMediaType, apierror.CodeUnsupportedMedia,
			"send application/json or application/x-www-form-urlencoded")
	}
	fr, _ := http.NewRequestWithContext(ctx, http.MethodPost, r.URL.String(), strings.NewReader(form.Encode()))
	fr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Basic ") {
		fr.Header.Set("Authorization", a) // confidential clients may authenticate with HTTP Basic
	}
	fr.RemoteAddr = r.RemoteAddr
	return fr, nil
}

func (s *handlers) exchangeToken(ctx context.Context, in *struct{ RawBody []byte }) (*struct {
	CacheControl string `header:"Cache-Control"`
	Body         TokenResponse
}, error) {
	_, r := transport.RawRequest(ctx)
	fr, e := formRequest(ctx, r, in.RawBody)
	if e != nil {
		return nil, e
	}
	if gt := fr.PostFormValue("grant_type"); gt != "authorization_code" && gt != "refresh_token" {
		return nil, apierror.New(http.StatusBadRequest, "unsupported_grant_type",
			"grant_type must be authorization_code or refresh_token").With("error_description", "unsupported grant_type")
	}
	f := s.Sessions.Fosite()
	ar, err := f.NewAccessRequest(ctx, fr, &fosite.DefaultSession{})
	if err != nil {
		return nil, oauthError(err)
	}
	resp, err := f.NewAccessResponse(ctx, ar)
	if err != nil {
		return nil, oauthError(err)
	}
	out := TokenResponse{AccessToken: resp.GetAccessToken(), TokenType: "Bearer", Scope: strings.Join(ar.GetGrantedScopes(), " ")}
	if v, ok := resp.GetExtra("expires_in").(int64); ok {
		out.ExpiresIn = v
	}
	out.RefreshToken, _ = resp.GetExtra("refresh_token").(string)
	if sess, ok := ar.GetSession().(*fosite.DefaultSession); ok && sess != nil {
		out.TenantID, _ = sess.Extra["tenant_id"].(string)
	}
	return &struct {
		CacheControl string `header:"Cache-Control"`
		Body         TokenResponse
	}{CacheControl: "no-store", Body: out}, nil
}

func (s *handlers) revokeToken(ctx context.Context, in *struct{ RawBody []byte }) (*struct{}, error) {
	_, r := transport.RawRequest(ctx)
	fr, e := formRequest(ctx, r, in.RawBody)
	if e != nil {
		return nil, e
	}
	if err := s.Sessions.Fosite().NewRevocationRequest(ctx, fr); err != nil {
		// RFC 7009: an unknown token is not an error for the client.
		if code, _, _ := oauth.ErrorOf(err); code == "invalid_request" && fr.PostFormValue("token") != "" {
			return &struct{}{}, nil
		}
		return nil, oauthError(err)
	}
	return &struct{}{}, nil
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in — disco</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.6rem 0}input[type=text],input[type=password]{width:100%;padding:.4rem}.err{color:#b00}button{margin:.8rem .4rem 0 0;padding:.4rem 1rem}code{background:#f3f3f3}</style>
</head><body>
<h1>Sign in to disco</h1>
<p><strong>{{.Client}}</strong> asks for access to your tenant's data with the scopes:</p>
<ul>{{range .Scopes}}<li><code>{{.}}</code></li>{{end}}</ul>
{{if .Error}}<p class="err">{{.Error}}</p>{{end}}
<form method="post" action="{{.Action}}">
<label>Username <input type="text" name="username" autocomplete="username" value="{{.Username}}" required></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" name="decision" value="approve">Sign in and allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form></body></html>
`))

// csrfToken binds the login form to the authorization request it was rendered for.
func (s *handlers) csrfToken(rawQuery string) string {
	m := hmac.New(sha256.New, s.Secret)
	m.Write([]byte("authorize-form\x00" + rawQuery))
	return hex.EncodeToString(m.Sum(nil))
}

// checkAuthorizeRequest validates the request with fosite and requires the redirect URI
// to be exactly one the client registered.
func (s *handlers) checkAuthorizeRequest(ctx context.Context, r *http.Request) (fosite.AuthorizeRequester, *oauth.Client, *apierror.Error) {
	ar, err := s.Sessions.Fosite().NewAuthorizeRequest(ctx, r)
	if err != nil {
		return nil, nil, oauthError(err)
	}
	if !oauth.ValidRedirect(ar.GetClient(), r.Form.Get("redirect_uri")) {
		return nil, nil, apierror.New(http.StatusBadRequest, "invalid_request",
			"redirect_uri must be given and match a registered redirect URI exactly").With("error_description", "redirect_uri mismatch")
	}
	// PKCE with S256 is required of every client; fosite would only refuse it after the
	// user has signed in, so say it before showing the page.
	if r.Form.Get("code_challenge") == "" || r.Form.Get("code_challenge_method") != "S256" {
		return nil, nil, apierror.New(http.StatusBadRequest, "invalid_request",
			"PKCE is required: send code_challenge with code_challenge_method=S256").With("error_description", "PKCE S256 required")
	}
	c, err := s.Sessions.Storage.Client(ctx, ar.GetClient().GetID())
	if err != nil {
		return nil, nil, apierror.Internal(err)
	}
	return ar, c, nil
}

func requestedScopes(ar fosite.AuthorizeRequester, c *oauth.Client) []string {
	if len(ar.GetRequestedScopes()) == 0 {
		return c.Scopes
	}
	return ar.GetRequestedScopes()
}

func (s *handlers) renderLogin(w http.ResponseWriter, status int, r *http.Request, c *oauth.Client, scopes []string, username, msg string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// The consent page must not be framed (clickjacking) and runs no scripts.
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = loginPage.Execute(w, map[string]any{
		"Client": c.Name, "Scopes": scopes, "Error": msg, "Username": username,
		"Action": s.Kit.BaseURL + "/auth/authorize?" + r.URL.RawQuery, "CSRF": s.csrfToken(r.URL.RawQuery),
	})
}

func (s *handlers) authorizePage(ctx context.Context, _ *struct{}) (*huma.StreamResponse, error) {
	_, r := transport.RawRequest(ctx)
	ar, c, e := s.checkAuthorizeRequest(ctx, r)
	if e != nil {
		return nil, e
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		_, w := humago.Unwrap(hctx)
		s.renderLogin(w, http.StatusOK, r, c, requestedScopes(ar, c), "", "")
	}}, nil
}

func (s *handlers) authorizeDecision(ctx context.Context, _ *struct{}) (*huma.StreamResponse, error) {
	w, r := transport.RawRequest(ctx)
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		if e := transport.RequestBodyError(err); e != nil {
			return nil, e
		}
		return nil, apierror.New(http.StatusBadRequest, apierror.CodeMalformedRequest, "the form could not be parsed")
	}
	if !hmac.Equal([]byte(r.PostForm.Get("csrf")), []byte(s.csrfToken(r.URL.RawQuery))) {
		return nil, apierror.New(http.StatusForbidden, apierror.CodeForbidden, "the form does not belong to this authorization request; start again")
	}
	ar, c, e := s.checkAuthorizeRequest(ctx, r)
	if e != nil {
		return nil, e
	}
	f := s.Sessions.Fosite()
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		_, w := humago.Unwrap(hctx)
		if r.PostForm.Get("decision") != "approve" {
			f.WriteAuthorizeError(ctx, w, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
			return
		}
		username := strings.TrimSpace(r.PostForm.Get("username"))
		user, msg, status := s.signIn(ctx, c.TenantID, username, r.PostForm.Get("password"), w.Header())
		if msg != "" {
			s.renderLogin(w, status, r, c, requestedScopes(ar, c), username, msg)
			return
		}
		for _, sc := range requestedScopes(ar, c) {
			ar.GrantScope(sc)
		}
		resp, err := f.NewAuthorizeResponse(ctx, ar, oauth.NewSession(user.TenantID, user.ID, user.Username, s.Kit.Now()))
		if err != nil {
			f.WriteAuthorizeError(ctx, w, ar, err)
			return
		}
		f.WriteAuthorizeResponse(ctx, w, ar, resp)
	}}, nil
}

// Per-account sign-in throttling (issue 17; OWASP Authentication Cheat Sheet, "Login
// Throttling"), on top of the per-address request limit: the first LoginFreeFailures
// failures in a row for a (tenant, username) pair cost nothing; from then on each failure
// locks the pair for loginBaseLock, doubling with every further failure up to loginMaxLock.
// Unknown usernames are throttled alike, so the answer does not tell whether an account
// exists. A success clears the count.
const (
	LoginFreeFailures = 5
	loginBaseLock     = 30 * time.Second
	loginMaxLock      = 15 * time.Minute
)

// loginLock is how long the pair is locked after its failures-th failure in a row.
func loginLock(failures int) time.Duration {
	if failures < LoginFreeFailures {
		return 0
	}
	d := loginBaseLock
	for i := LoginFreeFailures; i < failures && d < loginMaxLock; i++ {
		d *= 2
	}
	return min(d, loginMaxLock)
}

// signIn checks a username and password for a sign-in to the tenant. It returns the user,
// or the message and status of the login page to show instead; a throttled pair also gets
// Retry-After in h. The password is compared whether or not the user exists, and not at
// all while the pair is locked, so neither the answer nor its timing tells existing
// accounts from missing ones.
func (s *handlers) signIn(ctx context.Context, tenantID, username, password string, h http.Header) (store.User, string, int) {
	wait, err := s.Store.BeginLogin(ctx, tenantID, username, s.Kit.Now(), loginLock)
	if err != nil {
		s.Kit.Log.Error(err, "throttling sign-in", "request_id", transport.RequestID(ctx))
		return store.User{}, "Signing in is unavailable at the moment; try again shortly.", http.StatusInternalServerError
	}
	if wait > 0 {
		secs := int64(math.Ceil(wait.Seconds()))
		h.Set("Retry-After", strconv.FormatInt(secs, 10))
		return store.User{}, fmt.Sprintf("Too many failed sign-ins for this username. Try again in %s.", waitText(secs)), http.StatusTooManyRequests
	}
	user, ok, err := s.Store.VerifyPassword(ctx, username, password)
	if err != nil {
		s.Kit.Log.Error(err, "reading user", "request_id", transport.RequestID(ctx))
	}
	if !ok || user.TenantID != tenantID {
		return store.User{}, "Wrong username or password.", http.StatusUnauthorized
	}
	if user.Disabled() {
		return store.User{}, "This account is disabled; ask your tenant's administrator to enable it.", http.StatusUnauthorized
	}
	if err := s.Store.LoginSucceeded(ctx, tenantID, username); err != nil {
		s.Kit.Log.Error(err, "clearing sign-in failures", "request_id", transport.RequestID(ctx))
	}
	return user, "", 0
}

// waitText says secs in seconds or whole minutes, rounded up.
func waitText(secs int64) string {
	if secs < 60 {
		return fmt.Sprintf("%d seconds", secs)
	}
	return fmt.Sprintf("%d minutes", (secs+59)/60)
}
