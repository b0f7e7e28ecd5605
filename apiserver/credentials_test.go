package apiserver

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/apiserver/signin"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// keyIDOf returns the id of the API key with plaintext plain.
func keyIDOf(t *testing.T, plain string) string {
	t.Helper()
	k, err := env.store.APIKeyByHash(context.Background(), store.HashAPIKey(plain))
	if err != nil {
		t.Fatal(err)
	}
	return k.ID
}

// listIDs walks every page of a list and returns the ids in it.
func listIDs(t *testing.T, path, key string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	next := path + "?limit=100"
	for next != "" {
		r := call(t, "GET", next, key, nil).expect(t, 200)
		for _, it := range r.JSON["data"].([]any) {
			out[it.(map[string]any)["id"].(string)] = true
		}
		next = ""
		if c := r.str("next_cursor"); c != "" {
			next = path + "?limit=100&cursor=" + url.QueryEscape(c)
		}
	}
	return out
}

// A key may roll, revoke, read or list only keys no stronger than itself (issue 17.1):
// a key with only api_keys:write cannot take over the admin key, and a project-restricted
// key cannot take over keys beyond its projects or scopes.
func TestAPIKeyManagementCannotEscalate(t *testing.T) {
	admin := newKey(t, env.tenantA, nil)
	adminID := keyIDOf(t, admin)
	manager := newKey(t, env.tenantA, []string{auth.APIKeysWrite})

	call(t, "POST", "/v1/api-keys/"+adminID+"/roll", manager, map[string]any{"grace_period_seconds": 0}).expect(t, 404, "not_found")
	call(t, "DELETE", "/v1/api-keys/"+adminID, manager, nil).expect(t, 404, "not_found")
	call(t, "GET", "/v1/api-keys/"+adminID, manager, nil).expect(t, 404, "not_found")
	if listIDs(t, "/v1/api-keys", manager)[adminID] {
		t.Fatal("a key with only api_keys:write lists the admin key")
	}
	env.server.authn.Forget(adminID)
	call(t, "GET", "/v1/projects", admin, nil).expect(t, 200)
	if k, err := env.store.APIKeyByID(context.Background(), env.tenantA, adminID); err != nil || k.RevokedAt != nil || k.ReplacedBy != "" {
		t.Fatalf("admin key changed: %+v, %v", k, err)
	}
	// A key it could not have created is out of reach too.
	reader := newKey(t, env.tenantA, []string{auth.ProjectsRead})
	call(t, "POST", "/v1/api-keys/"+keyIDOf(t, reader)+"/roll", manager, nil).expect(t, 404, "not_found")
	// Keys no stronger than the manager stay manageable.
	child := call(t, "POST", "/v1/api-keys", manager, map[string]any{"name": "child"}).expect(t, 201)
	if !listIDs(t, "/v1/api-keys", manager)[child.str("id")] {
		t.Fatal("the manager does not list the key it created")
	}
	rolled := call(t, "POST", "/v1/api-keys/"+child.str("id")+"/roll", manager, map[string]any{"grace_period_seconds": 0}).expect(t, 201)
	call(t, "DELETE", "/v1/api-keys/"+rolled.str("id"), manager, nil).expect(t, 204)
	// The admin key still manages everything.
	call(t, "GET", "/v1/api-keys/"+keyIDOf(t, manager), admin, nil).expect(t, 200)

	// Inside project restrictions: a restricted manager reaches only keys restricted to
	// some of its projects and holding only scopes it holds.
	p1 := mustProject(t, env.adminA, nil)
	p2 := mustProject(t, env.adminA, nil)
	restrictedManager := newKey(t, env.tenantA, []string{auth.APIKeysWrite, auth.ProjectsRead}, p1)
	restrictedAdmin := newKey(t, env.tenantA, nil, p1)
	for name, victim := range map[string]string{
		"an admin key of its own project":  restrictedAdmin,
		"an unrestricted key":              newKey(t, env.tenantA, []string{auth.ProjectsRead}),
		"a key reaching a further project": newKey(t, env.tenantA, []string{auth.ProjectsRead}, p1, p2),
	} {
		id := keyIDOf(t, victim)
		if r := call(t, "POST", "/v1/api-keys/"+id+"/roll", restrictedManager, map[string]any{"grace_period_seconds": 0}); r.Status != 404 {
			t.Fatalf("restricted manager rolled %s: %d %s", name, r.Status, r.Raw)
		}
		call(t, "DELETE", "/v1/api-keys/"+id, restrictedManager, nil).expect(t, 404, "not_found")
		if listIDs(t, "/v1/api-keys", restrictedManager)[id] {
			t.Fatalf("restricted manager lists %s", name)
		}
	}
	env.server.authn.Forget(keyIDOf(t, restrictedAdmin))
	call(t, "GET", "/v1/projects/"+p1, restrictedAdmin, nil).expect(t, 200)
	same := keyIDOf(t, newKey(t, env.tenantA, []string{auth.ProjectsRead}, p1))
	call(t, "POST", "/v1/api-keys/"+same+"/roll", restrictedManager, nil).expect(t, 201)
}

// OAuth clients follow the same rule (issue 17.1): a client's sessions reach every project,
// so it is managed only by unrestricted callers holding all of its scopes.
func TestOAuthClientManagementCannotEscalate(t *testing.T) {
	redirect := "http://127.0.0.1:5601/cb"
	adminClient := call(t, "POST", "/v1/oauth-clients", env.adminA, map[string]any{"name": "admin app", "redirect_uris": []string{redirect}}).expect(t, 201).str("id")
	manager := newKey(t, env.tenantA, []string{auth.APIKeysWrite, auth.ProjectsRead})
	restricted := newKey(t, env.tenantA, nil, mustProject(t, env.adminA, nil))
	for name, key := range map[string]string{"a key with fewer scopes": manager, "a project-restricted key": restricted} {
		call(t, "DELETE", "/v1/oauth-clients/"+adminClient, key, nil).expect(t, 404, "not_found")
		if listIDs(t, "/v1/oauth-clients", key)[adminClient] {
			t.Fatalf("%s lists the admin's client", name)
		}
	}
	if _, err := env.server.oauth.Storage.Client(context.Background(), adminClient); err != nil {
		t.Fatalf("the admin's client is gone: %v", err)
	}
	// Other tenants' clients do not exist.
	call(t, "DELETE", "/v1/oauth-clients/"+adminClient, env.adminB, nil).expect(t, 404, "not_found")
	// A client within the manager's scopes is its to manage.
	own := call(t, "POST", "/v1/oauth-clients", manager, map[string]any{"name": "reader app", "redirect_uris": []string{redirect},
		"scopes": []string{auth.ProjectsRead}}).expect(t, 201).str("id")
	if !listIDs(t, "/v1/oauth-clients", manager)[own] {
		t.Fatal("the manager does not list its own client")
	}
	call(t, "DELETE", "/v1/oauth-clients/"+own, manager, nil).expect(t, 204)
	call(t, "DELETE", "/v1/oauth-clients/"+adminClient, env.adminA, nil).expect(t, 204)
}

// testClock is a settable clock for a facade of its own.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// clockedServer starts a facade over the shared store and control plane whose clock the
// test moves. It returns the base URL (including /v1).
func clockedServer(t *testing.T, clock *testClock) string {
	t.Helper()
	return replicaWith(t, func(o *Options) { o.Now = clock.Now })
}

// signIn is one pass through the login page at base: the answer to the form post, and the
// page's body.
func signIn(t *testing.T, base string, q url.Values, username, password string) (*http.Response, string) {
	t.Helper()
	page := call(t, "GET", base+"/auth/authorize?"+q.Encode(), "", nil).expect(t, 200)
	m := csrfField.FindStringSubmatch(string(page.Raw))
	if m == nil {
		t.Fatal("no csrf field")
	}
	form := url.Values{"username": {username}, "password": {password}, "decision": {"approve"}, "csrf": {m[1]}}
	res, err := noRedirect.PostForm(base+"/auth/authorize?"+q.Encode(), form)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// oauthApp is a public client of tenant A and the authorization request for it.
type oauthApp struct {
	base, id, redirect, verifier string
	query                        url.Values
}

func newOAuthApp(t *testing.T, base string) *oauthApp {
	t.Helper()
	redirect := "http://127.0.0.1:5602/cb"
	id := call(t, "POST", base+"/oauth-clients", env.adminA, map[string]any{"name": t.Name(), "redirect_uris": []string{redirect}}).expect(t, 201).str("id")
	verifier, challenge := pkcePair()
	return &oauthApp{base: base, id: id, redirect: redirect, verifier: verifier, query: url.Values{
		"response_type": {"code"}, "client_id": {id}, "redirect_uri": {redirect}, "scope": {"projects:read"},
		"state": {"state-12345678"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"},
	}}
}

// grant signs the user in and exchanges the code: the access and refresh tokens.
func (a *oauthApp) grant(t *testing.T, username, password string) (access, refresh string) {
	t.Helper()
	res, body := signIn(t, a.base, a.query, username, password)
	loc, _ := url.Parse(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || loc.Query().Get("code") == "" {
		t.Fatalf("sign-in as %s: %d %s %s", username, res.StatusCode, res.Header.Get("Location"), body)
	}
	tok := call(t, "POST", a.base+"/auth/token", "", map[string]any{"grant_type": "authorization_code", "code": loc.Query().Get("code"),
		"redirect_uri": a.redirect, "client_id": a.id, "code_verifier": a.verifier}).expect(t, 200)
	return tok.str("access_token"), tok.str("refresh_token")
}

func (a *oauthApp) refresh(t *testing.T, token string) *response {
	t.Helper()
	return call(t, "POST", a.base+"/auth/token", "", map[string]any{"grant_type": "refresh_token", "refresh_token": token, "client_id": a.id})
}

func newUser(t *testing.T, prefix string) string {
	t.Helper()
	name := prefix + "-" + strings.ToLower(ids.New(ids.User)[4:12])
	if _, err := env.store.CreateUser(context.Background(), env.tenantA, name, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	return name
}

// Deleting a user ends their sessions at once (issue 17.4): the access token is refused
// and the refresh token no longer refreshes.
func TestDeletedUserSessionsEnd(t *testing.T) {
	app := newOAuthApp(t, env.url)
	name := newUser(t, "deleted")
	access, refresh := app.grant(t, name, "correct horse battery")
	call(t, "GET", "/v1/projects", access, nil).expect(t, 200)
	ctx := context.Background()
	u, err := env.store.UserByUsername(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.store.DeleteUser(ctx, name); err != nil {
		t.Fatal(err)
	}
	call(t, "GET", "/v1/projects", access, nil).expect(t, 401, "unauthenticated")
	app.refresh(t, refresh).expect(t, 400, "invalid_grant")
	// The maintenance sweep then deletes the dead tokens.
	env.server.maintainOnce(ctx)
	var left int
	if err := env.store.DB().QueryRowContext(ctx, env.store.Rebind(`SELECT COUNT(*) FROM oauth_tokens WHERE subject = ?`), u.ID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d tokens of the deleted user left after the sweep (%v)", left, err)
	}
}

// Disabling a user ends their sessions and refuses their sign-in; enabling lets them sign
// in again without reviving the old sessions (issue 17.4).
func TestDisabledUser(t *testing.T) {
	ctx := context.Background()
	app := newOAuthApp(t, env.url)
	name := newUser(t, "disabled")
	access, refresh := app.grant(t, name, "correct horse battery")
	// A code issued before disabling is not exchanged after it.
	res, _ := signIn(t, env.url, app.query, name, "correct horse battery")
	loc, _ := url.Parse(res.Header.Get("Location"))
	if err := env.store.DisableUser(ctx, name); err != nil {
		t.Fatal(err)
	}
	call(t, "GET", "/v1/projects", access, nil).expect(t, 401, "unauthenticated")
	app.refresh(t, refresh).expect(t, 400, "invalid_grant")
	call(t, "POST", "/v1/auth/token", "", map[string]any{"grant_type": "authorization_code", "code": loc.Query().Get("code"),
		"redirect_uri": app.redirect, "client_id": app.id, "code_verifier": app.verifier}).expect(t, 400, "invalid_grant")
	res, body := signIn(t, env.url, app.query, name, "correct horse battery")
	if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Location") != "" || !strings.Contains(body, "disabled") {
		t.Fatalf("disabled user signing in: %d %q", res.StatusCode, res.Header.Get("Location"))
	}

	if err := env.store.EnableUser(ctx, name); err != nil {
		t.Fatal(err)
	}
	call(t, "GET", "/v1/projects", access, nil).expect(t, 401, "unauthenticated")
	app.refresh(t, refresh).expect(t, 400, "invalid_grant")
	access, _ = app.grant(t, name, "correct horse battery")
	call(t, "GET", "/v1/projects", access, nil).expect(t, 200)
}

// A session ends 90 days after the sign-in however often it is refreshed (issue 17.4):
// rotation keeps the grant's absolute end instead of moving it forward.
func TestSessionAbsoluteLifetime(t *testing.T) {
	clock := &testClock{now: time.Now()}
	base := clockedServer(t, clock)
	app := newOAuthApp(t, base)
	name := newUser(t, "lifetime")
	_, refresh := app.grant(t, name, "correct horse battery")
	for range 3 { // refreshed every 29 days: within the idle window each time
		clock.advance(29 * 24 * time.Hour)
		r := app.refresh(t, refresh).expect(t, 200)
		refresh = r.str("refresh_token")
		call(t, "GET", base+"/projects", r.str("access_token"), nil).expect(t, 200)
	}
	clock.advance(3 * 24 * time.Hour) // 90 days after signing in
	app.refresh(t, refresh).expect(t, 400, "invalid_grant")
}

// The session of a sign-in at the end of its absolute lifetime: its access token too.
func TestSessionAbsoluteLifetimeEndsAccessToken(t *testing.T) {
	clock := &testClock{now: time.Now()}
	base := clockedServer(t, clock)
	app := newOAuthApp(t, base)
	access, _ := app.grant(t, newUser(t, "lifetime-access"), "correct horse battery")
	call(t, "GET", base+"/projects", access, nil).expect(t, 200)
	clock.advance(90 * 24 * time.Hour)
	call(t, "GET", base+"/projects", access, nil).expect(t, 401, "unauthenticated")
}

// After 5 failed sign-ins in a row a username is locked, even for the right password,
// for 30 seconds doubling with each further failure; an unknown username is throttled
// the same way and answered alike (issue 17, login throttling).
func TestSignInThrottle(t *testing.T) {
	clock := &testClock{now: time.Now()}
	base := clockedServer(t, clock)
	app := newOAuthApp(t, base)
	name := newUser(t, "throttled")
	ghost := "ghost-" + strings.ToLower(ids.New(ids.User)[4:12])

	throttled := map[string]string{}
	for _, user := range []string{name, ghost} {
		for i := 1; i <= signin.LoginFreeFailures; i++ {
			if res, _ := signIn(t, base, app.query, user, "wrong password"); res.StatusCode != http.StatusUnauthorized {
				t.Fatalf("%s, failure %d: %d", user, i, res.StatusCode)
			}
		}
		res, body := signIn(t, base, app.query, user, "correct horse battery")
		if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "30" || res.Header.Get("Location") != "" {
			t.Fatalf("%s after %d failures: %d Retry-After %q Location %q", user, signin.LoginFreeFailures, res.StatusCode,
				res.Header.Get("Retry-After"), res.Header.Get("Location"))
		}
		throttled[user] = strings.ReplaceAll(body, user, "USER")
	}
	if throttled[name] != throttled[ghost] {
		t.Fatalf("the throttled answers tell the accounts apart:\n%s\n%s", throttled[name], throttled[ghost])
	}

	clock.advance(29 * time.Second)
	if res, _ := signIn(t, base, app.query, name, "correct horse battery"); res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" {
		t.Fatalf("within the lock: %d Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	clock.advance(time.Second)
	// The lock has passed: a further failure locks for twice as long.
	for user, want := range map[string]string{name: "60", ghost: "60"} {
		if res, _ := signIn(t, base, app.query, user, "wrong password"); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s after the lock: %d", user, res.StatusCode)
		}
		if res, _ := signIn(t, base, app.query, user, "correct horse battery"); res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != want {
			t.Fatalf("%s after a 6th failure: %d Retry-After %q, want %s", user, res.StatusCode, res.Header.Get("Retry-After"), want)
		}
	}
	clock.advance(time.Minute)
	app.grant(t, name, "correct horse battery")
	// Success cleared the count.
	if res, _ := signIn(t, base, app.query, name, "wrong password"); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("after success: %d", res.StatusCode)
	}
	app.grant(t, name, "correct horse battery")
}

// Near the end of the absolute lifetime a refresh hands out tokens that expire at the end,
// and says so in expires_in, instead of the usual 24 hours.
func TestSessionExpiryCappedAtAbsoluteEnd(t *testing.T) {
	// The facade's clock runs 89.5 days behind: the grant's end is 12 hours away in the
	// time the token library counts expiries in.
	clock := &testClock{now: time.Now().Add(-(oauth.SessionLifespan - 12*time.Hour))}
	base := clockedServer(t, clock)
	app := newOAuthApp(t, base)
	_, refresh := app.grant(t, newUser(t, "lifetime-cap"), "correct horse battery")
	r := app.refresh(t, refresh).expect(t, 200)
	if in := r.JSON["expires_in"].(float64); in > (12 * time.Hour).Seconds() {
		t.Fatalf("expires_in %v reaches past the end of the session", in)
	}
}
