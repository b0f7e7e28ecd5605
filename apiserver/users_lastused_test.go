package apiserver

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/discolab/disco/apiserver/auth"
)

// A key's last use shows in the key resource once it has authenticated a request, and a
// second use within the minute does not move it (issue 15).
func TestAPIKeyLastUsedAt(t *testing.T) {
	key := newKey(t, env.tenantA, []string{auth.ProjectsRead})
	id := keyIDOf(t, key)
	got := call(t, "GET", "/v1/api-keys/"+id, env.adminA, nil).expect(t, 200)
	if v, ok := got.JSON["last_used_at"]; !ok || v != nil {
		t.Fatalf("an unused key: last_used_at = %v (present %v), want null", v, ok)
	}
	before := time.Now().Add(-time.Second)
	call(t, "GET", "/v1/projects", key, nil).expect(t, 200)
	var first string
	eventually(t, func() error {
		first = call(t, "GET", "/v1/api-keys/"+id, env.adminA, nil).expect(t, 200).str("last_used_at")
		if first == "" {
			return fmt.Errorf("last_used_at not yet set")
		}
		return nil
	})
	at, err := time.Parse(time.RFC3339Nano, first)
	if err != nil || at.Before(before) || at.After(time.Now().Add(time.Second)) || at.Location() != time.UTC {
		t.Fatalf("last_used_at %q (%v), want an RFC 3339 UTC time of the use", first, err)
	}
	// The list shows it too.
	found := false
	for next := "/v1/api-keys?limit=100"; next != "" && !found; {
		page := call(t, "GET", next, env.adminA, nil).expect(t, 200)
		for _, it := range page.JSON["data"].([]any) {
			if m := it.(map[string]any); m["id"] == id {
				found = m["last_used_at"] == first
			}
		}
		next = ""
		if c := page.str("next_cursor"); c != "" {
			next = "/v1/api-keys?limit=100&cursor=" + url.QueryEscape(c)
		}
	}
	if !found {
		t.Fatalf("the key list does not show last_used_at %s", first)
	}
	call(t, "GET", "/v1/projects", key, nil).expect(t, 200)
	env.server.authn.WaitForUses()
	if again := call(t, "GET", "/v1/api-keys/"+id, env.adminA, nil).expect(t, 200).str("last_used_at"); again != first {
		t.Fatalf("a second use within the minute moved last_used_at from %s to %s", first, again)
	}
}

// The users room lists, reads, disables, enables and deletes the tenant's users; a
// disabled user's sessions stop at once; other tenants' users are 404; keys without the
// credential scope, or restricted to projects, are refused (issue 15).
func TestUsersRoom(t *testing.T) {
	ctx := context.Background()
	name := newUser(t, "room")
	u, err := env.store.UserByUsername(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	path := "/v1/users/" + u.ID

	got := call(t, "GET", path, env.adminA, nil).expect(t, 200)
	if got.str("username") != name || got.str("status") != "active" || got.str("created_at") == "" {
		t.Fatalf("get user: %s", got.Raw)
	}
	for _, field := range []string{"password_hash", "password", "hash", "disabled_at"} {
		if _, ok := got.JSON[field]; ok {
			t.Errorf("the user resource carries %s: %s", field, got.Raw)
		}
	}
	if !listIDs(t, "/v1/users", env.adminA)[u.ID] {
		t.Fatal("the tenant's user list lacks the user")
	}

	// Another tenant: 404 for every operation, and not in its list.
	call(t, "GET", path, env.adminB, nil).expect(t, 404, "not_found")
	call(t, "POST", path+"/disable", env.adminB, nil).expect(t, 404, "not_found")
	call(t, "POST", path+"/enable", env.adminB, nil).expect(t, 404, "not_found")
	call(t, "DELETE", path, env.adminB, nil).expect(t, 404, "not_found")
	if listIDs(t, "/v1/users", env.adminB)[u.ID] {
		t.Fatal("tenant B lists tenant A's user")
	}
	call(t, "GET", "/v1/users/not-a-user-id", env.adminA, nil).expect(t, 404, "not_found")

	// Without the credential scope, or restricted to a project: refused.
	reader := newKey(t, env.tenantA, []string{auth.ProjectsRead, auth.ProjectsWrite})
	call(t, "GET", "/v1/users", reader, nil).expect(t, 403, "insufficient_scope")
	call(t, "POST", path+"/disable", reader, nil).expect(t, 403, "insufficient_scope")
	project := mustProject(t, env.adminA, nil)
	restricted := newKey(t, env.tenantA, nil, project)
	call(t, "POST", path+"/disable", restricted, nil).expect(t, 403, "forbidden")
	call(t, "GET", "/v1/users", restricted, nil).expect(t, 403, "forbidden")
	if u2, _ := env.store.UserByID(ctx, u.ID); u2.Disabled() {
		t.Fatal("a refused disable disabled the user")
	}

	// Disabling ends the user's session at once; enabling does not revive it.
	app := newOAuthApp(t, env.url)
	access, _ := app.grant(t, name, "correct horse battery")
	call(t, "GET", "/v1/projects", access, nil).expect(t, 200)
	dis := call(t, "POST", path+"/disable", env.adminA, nil).expect(t, 200)
	if dis.str("status") != "disabled" || dis.str("disabled_at") == "" {
		t.Fatalf("disable answered %s", dis.Raw)
	}
	call(t, "GET", "/v1/projects", access, nil).expect(t, 401, "unauthenticated")
	if l := call(t, "GET", "/v1/users?status=disabled&limit=100", env.adminA, nil).expect(t, 200); !containsID(l, u.ID) {
		t.Fatalf("status=disabled does not list the disabled user: %s", l.Raw)
	}
	if l := call(t, "GET", "/v1/users?status=active&limit=100", env.adminA, nil).expect(t, 200); containsID(l, u.ID) {
		t.Fatalf("status=active lists the disabled user: %s", l.Raw)
	}
	en := call(t, "POST", path+"/enable", env.adminA, nil).expect(t, 200)
	if en.str("status") != "active" {
		t.Fatalf("enable answered %s", en.Raw)
	}
	call(t, "GET", "/v1/projects", access, nil).expect(t, 401, "unauthenticated")

	call(t, "DELETE", path, env.adminA, nil).expect(t, http.StatusNoContent)
	call(t, "GET", path, env.adminA, nil).expect(t, 404, "not_found")
}

// A signed-in user cannot disable or delete themselves, which would lock them out with
// nobody signed in to undo it.
func TestUserCannotDisableThemselves(t *testing.T) {
	ctx := context.Background()
	name := newUser(t, "self")
	u, err := env.store.UserByUsername(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	app := newOAuthApp(t, env.url)
	app.query.Set("scope", auth.APIKeysWrite)
	access, _ := app.grant(t, name, "correct horse battery")
	call(t, "GET", "/v1/users/"+u.ID, access, nil).expect(t, 200)
	call(t, "POST", "/v1/users/"+u.ID+"/disable", access, nil).expect(t, 409, "conflict")
	call(t, "DELETE", "/v1/users/"+u.ID, access, nil).expect(t, 409, "conflict")
	if u2, _ := env.store.UserByID(ctx, u.ID); u2.Disabled() {
		t.Fatal("the user disabled themselves")
	}
}

// The users list pages with the API's signed cursors.
func TestUsersListPages(t *testing.T) {
	for range 3 {
		newUser(t, "page")
	}
	first := call(t, "GET", "/v1/users?limit=2&sort=username", env.adminA, nil).expect(t, 200)
	if len(first.JSON["data"].([]any)) != 2 || first.JSON["has_more"] != true || first.str("next_cursor") == "" {
		t.Fatalf("first page: %s", first.Raw)
	}
	call(t, "GET", "/v1/users?limit=2&sort=username&cursor="+url.QueryEscape(first.str("next_cursor")), env.adminA, nil).expect(t, 200)
	call(t, "GET", "/v1/users?limit=2&sort=username&cursor=forged", env.adminA, nil).expect(t, 400, "invalid_cursor")
	// A cursor of one list does not continue another.
	call(t, "GET", "/v1/users?limit=2&sort=username&status=active&cursor="+url.QueryEscape(first.str("next_cursor")), env.adminA, nil).expect(t, 400, "invalid_cursor")
}

func containsID(r *response, id string) bool {
	for _, it := range r.JSON["data"].([]any) {
		if it.(map[string]any)["id"] == id {
			return true
		}
	}
	return false
}
