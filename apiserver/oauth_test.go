package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func pkcePair() (verifier, challenge string) {
	verifier = "v3rifier-" + strings.Repeat("abcdefgh", 6)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// authorize runs the login page and returns the redirect the server answers with.
func authorize(t *testing.T, query url.Values, username, password, decision string) *http.Response {
	t.Helper()
	base := strings.TrimSuffix(env.url, "/v1")
	res, err := http.Get(base + "/v1/auth/authorize?" + query.Encode())
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("authorize page %d: %s", res.StatusCode, page)
	}
	if res.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(string(page), "projects:read") {
		t.Fatalf("page %v %s", res.Header, page)
	}
	m := csrfField.FindStringSubmatch(string(page))
	if m == nil {
		t.Fatal("no csrf field")
	}
	form := url.Values{"username": {username}, "password": {password}, "decision": {decision}, "csrf": {m[1]}}
	res, err = noRedirect.PostForm(base+"/v1/auth/authorize?"+query.Encode(), form)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestOAuthCodeFlow(t *testing.T) {
	ctx := context.Background()
	if _, err := env.store.CreateUser(ctx, env.tenantA, "alice", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	redirect := "http://127.0.0.1:5555/callback"
	cl := call(t, "POST", "/v1/oauth-clients", env.adminA, map[string]any{"name": "SDK", "redirect_uris": []string{redirect}}).expect(t, 201)
	clientID := cl.str("id")
	if cl.JSON["public"] != true || cl.str("client_secret") != "" {
		t.Fatalf("client %s", cl.Raw)
	}
	verifier, challenge := pkcePair()
	q := url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect},
		"scope": {"projects:read claims:read"}, "state": {"state-123456"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"},
	}

	// Wrong password: the page again, 401.
	res := authorize(t, q, "alice", "wrong", "approve")
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatalf("wrong password: %d", res.StatusCode)
	}
	// Denied: redirected with access_denied.
	res = authorize(t, q, "alice", "correct horse battery", "deny")
	res.Body.Close()
	if loc, _ := url.Parse(res.Header.Get("Location")); res.StatusCode/100 != 3 || loc.Query().Get("error") != "access_denied" {
		t.Fatalf("deny: %d %s", res.StatusCode, res.Header.Get("Location"))
	}

	res = authorize(t, q, "alice", "correct horse battery", "approve")
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	code := loc.Query().Get("code")
	if res.StatusCode/100 != 3 || !strings.HasPrefix(loc.String(), redirect) || loc.Query().Get("state") != "state-123456" || code == "" {
		t.Fatalf("approve: %d %s", res.StatusCode, loc)
	}

	// Wrong verifier, then the right one (JSON body).
	exchange := map[string]any{"grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": clientID, "code_verifier": verifier}
	bad := map[string]any{"grant_type": "authorization_code", "code": code, "redirect_uri": redirect, "client_id": clientID, "code_verifier": strings.Repeat("x", 50)}
	call(t, "POST", "/v1/auth/token", "", bad).expect(t, 400, "invalid_grant")
	// A failed PKCE check burns nothing it should not: use a fresh code for the real exchange.
	res = authorize(t, q, "alice", "correct horse battery", "approve")
	res.Body.Close()
	loc, _ = url.Parse(res.Header.Get("Location"))
	exchange["code"] = loc.Query().Get("code")
	tok := call(t, "POST", "/v1/auth/token", "", exchange).expect(t, 200)
	access, refresh := tok.str("access_token"), tok.str("refresh_token")
	if !strings.HasPrefix(access, "disco_session_") || !strings.HasPrefix(refresh, "disco_refresh_") || tok.str("token_type") != "Bearer" ||
		tok.JSON["expires_in"] != 86400.0 || tok.str("tenant_id") != env.tenantA || tok.str("scope") != "projects:read claims:read" {
		t.Fatalf("token %s", tok.Raw)
	}
	if tok.Header.Get("Cache-Control") != "no-store" {
		t.Fatal("token response is cacheable")
	}
	// The session acts as the user, with the granted scopes only.
	call(t, "GET", "/v1/projects", access, nil).expect(t, 200)
	call(t, "POST", "/v1/projects", access, map[string]any{"name": "x"}).expect(t, 403, "insufficient_scope")
	// A code works once; presenting it again revokes what it gave.
	call(t, "POST", "/v1/auth/token", "", exchange).expect(t, 400, "invalid_grant")
	call(t, "GET", "/v1/projects", access, nil).expect(t, 401)
	newGrant := func() *response {
		res := authorize(t, q, "alice", "correct horse battery", "approve")
		res.Body.Close()
		loc, _ := url.Parse(res.Header.Get("Location"))
		exchange["code"] = loc.Query().Get("code")
		return call(t, "POST", "/v1/auth/token", "", exchange).expect(t, 200)
	}
	tok = newGrant()
	access, refresh = tok.str("access_token"), tok.str("refresh_token")

	// Refresh with a form body: rotation.
	base := strings.TrimSuffix(env.url, "/v1")
	form := func(v url.Values) *response {
		req, _ := http.NewRequest("POST", base+"/v1/auth/token", strings.NewReader(v.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		raw, _ := io.ReadAll(res.Body)
		r := &response{Status: res.StatusCode, Header: res.Header, Raw: raw}
		_ = jsonUnmarshal(raw, &r.JSON)
		return r
	}
	ref := form(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}).expect(t, 200)
	access2, refresh2 := ref.str("access_token"), ref.str("refresh_token")
	if access2 == access || refresh2 == refresh || ref.str("tenant_id") != env.tenantA {
		t.Fatalf("refresh %s", ref.Raw)
	}
	call(t, "GET", "/v1/projects", access, nil).expect(t, 401)
	call(t, "GET", "/v1/projects", access2, nil).expect(t, 200)
	// Reuse of the old refresh token revokes the whole grant.
	form(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}}).expect(t, 400, "invalid_grant")
	call(t, "GET", "/v1/projects", access2, nil).expect(t, 401)
	form(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh2}, "client_id": {clientID}}).expect(t, 400, "invalid_grant")

	// Bad requests.
	call(t, "POST", "/v1/auth/token", "", map[string]any{"grant_type": "password", "client_id": clientID}).expect(t, 400, "unsupported_grant_type")
	call(t, "POST", "/v1/auth/token", "", `{"grant_type": `).expect(t, 400, "malformed_request")
	call(t, "POST", "/v1/auth/token", "", []byte("x"), "Content-Type", "text/plain").expect(t, 415)
	wrongRedirect := url.Values{}
	for k, v := range q {
		wrongRedirect[k] = v
	}
	wrongRedirect.Set("redirect_uri", "http://127.0.0.1:5556/callback")
	call(t, "GET", "/v1/auth/authorize?"+wrongRedirect.Encode(), "", nil).expect(t, 400, "invalid_request")
	plain := url.Values{}
	for k, v := range q {
		plain[k] = v
	}
	plain.Set("code_challenge_method", "plain")
	if r := call(t, "GET", "/v1/auth/authorize?"+plain.Encode(), "", nil); r.Status == 200 {
		t.Fatal("plain PKCE accepted")
	}
	noPKCE := url.Values{}
	for k, v := range q {
		if !strings.HasPrefix(k, "code_challenge") {
			noPKCE[k] = v
		}
	}
	if r := call(t, "GET", "/v1/auth/authorize?"+noPKCE.Encode(), "", nil); r.Status == 200 {
		t.Fatal("authorization without PKCE accepted")
	}
	call(t, "GET", "/v1/auth/authorize?client_id=cli_nope&response_type=code", "", nil).expect(t, 401)

	// Revocation.
	tok = newGrant()
	call(t, "POST", "/v1/auth/revoke", "", map[string]any{"token": tok.str("refresh_token"), "client_id": clientID}).expect(t, 200)
	call(t, "GET", "/v1/projects", tok.str("access_token"), nil).expect(t, 401)
	// A user of another tenant cannot approve this tenant's client.
	if _, err := env.store.CreateUser(ctx, env.tenantB, "bob", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	res = authorize(t, q, "bob", "correct horse battery", "approve")
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatalf("cross-tenant login: %d", res.StatusCode)
	}
}

func TestMaintainAndClientList(t *testing.T) {
	env.server.maintainOnce(context.Background())
	l := call(t, "GET", "/v1/oauth-clients?limit=1", env.adminA, nil).expect(t, 200)
	if l.JSON["object"] != "list" {
		t.Fatalf("list %s", l.Raw)
	}
	call(t, "DELETE", "/v1/oauth-clients/cli_aaaaaaaaaaaaaaaaaaaaaaaaaa", env.adminA, nil).expect(t, 404)
	call(t, "POST", "/v1/oauth-clients", env.adminA, map[string]any{"name": "bad", "redirect_uris": []string{"http://example.com/cb"}}).expect(t, 400, "validation_error")
}

func TestExpiredSession(t *testing.T) {
	ctx := context.Background()
	if _, err := env.store.CreateUser(ctx, env.tenantA, "erin", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	redirect := "http://127.0.0.1:5557/cb"
	clientID := call(t, "POST", "/v1/oauth-clients", env.adminA, map[string]any{"name": "exp", "redirect_uris": []string{redirect}}).expect(t, 201).str("id")
	verifier, challenge := pkcePair()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "scope": {"projects:read"},
		"state": {"state-abcdefgh"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	res := authorize(t, q, "erin", "correct horse battery", "approve")
	res.Body.Close()
	loc, _ := url.Parse(res.Header.Get("Location"))
	tok := call(t, "POST", "/v1/auth/token", "", map[string]any{"grant_type": "authorization_code", "code": loc.Query().Get("code"),
		"redirect_uri": redirect, "client_id": clientID, "code_verifier": verifier}).expect(t, 200)
	access := tok.str("access_token")
	call(t, "GET", "/v1/projects", access, nil).expect(t, 200)

	// Age the stored session past its 24 hours.
	db := env.store.DB()
	rows, err := db.QueryContext(ctx, env.store.Rebind(`SELECT signature, data FROM oauth_tokens WHERE kind = 'access' AND client_id = ?`), clientID)
	if err != nil {
		t.Fatal(err)
	}
	updates := map[string]string{}
	for rows.Next() {
		var sig, data string
		if err := rows.Scan(&sig, &data); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatal(err)
		}
		sess := m["session"].(map[string]any)
		sess["expires_at"].(map[string]any)["access_token"] = "2001-01-01T00:00:00Z"
		m["requested_at"] = "2001-01-01T00:00:00Z"
		b, _ := json.Marshal(m)
		updates[sig] = string(b)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if len(updates) == 0 {
		t.Fatal("no stored access token to age")
	}
	for sig, data := range updates {
		if _, err := db.ExecContext(ctx, env.store.Rebind(`UPDATE oauth_tokens SET data = ? WHERE signature = ?`), data, sig); err != nil {
			t.Fatal(err)
		}
	}
	r := call(t, "GET", "/v1/projects", access, nil)
	checkEnvelope(t, r, 401, "unauthenticated")
	if r.errDetails()["reason"] != "expired" {
		t.Fatalf("reason %v", r.errDetails()["reason"])
	}
}
