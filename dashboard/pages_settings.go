package dashboard

import (
	"net/http"
	"strings"

	"github.com/discolab/disco/dashboard/api"
)

// scopes is every scope an API key may carry (apiserver/auth.All, as the contract names
// them); the API refuses scopes beyond the creator's own.
var scopes = []string{"projects:read", "projects:write", "datasets:read", "datasets:write", "runs:read", "runs:write",
	"claims:read", "claims:write", "ledger:read", "webhooks:write", "api_keys:write", "governance:write"}

func (d *Dashboard) keys(c *call) error { return c.showKeys(http.StatusOK, nil, nil) }

func (c *call) showKeys(status int, fe *formError, created *api.APIKey) error {
	var l api.List[api.APIKey]
	if err := c.get("/api-keys", listQuery(c.r, "status"), &l); err != nil {
		return err
	}
	return c.show(status, "keys.html", &page{Title: "API keys", Section: "keys", Data: map[string]any{
		"List": l.Data, "Pager": pagerOf(c.r, l), "Scopes": scopes, "Form": fe, "Created": created,
		"Status": c.r.URL.Query().Get("status"),
	}})
}

// createKey creates a key; its secret is shown once, on the page that answers the form
// (never in an address, and the page is not cached).
func (d *Dashboard) createKey(c *call) error {
	if err := c.form(); err != nil {
		return err
	}
	f := c.r.PostForm
	in := map[string]any{"name": strings.TrimSpace(f.Get("name")), "scopes": nonNilStrings(f["scopes"])}
	if pids := f["project_ids"]; len(pids) > 0 {
		in["project_ids"] = pids
	}
	var k api.APIKey
	if err := c.send(http.MethodPost, "/api-keys", in, &k); err != nil {
		if apiRefusal(err) {
			return c.showKeys(api.StatusOf(err), formErrorOf(err, f, "name", "scopes", "project_ids"), nil)
		}
		return err
	}
	return c.showKeys(http.StatusCreated, nil, &k)
}

func (d *Dashboard) rollKey(c *call) error {
	ids, err := c.ids("kid")
	if err != nil {
		return err
	}
	var k api.APIKey
	if err := c.send(http.MethodPost, "/api-keys/"+ids[0]+"/roll", map[string]any{}, &k); err != nil {
		if apiRefusal(err) {
			return c.showKeys(api.StatusOf(err), &formError{Top: messageOf(err)}, nil)
		}
		return err
	}
	return c.showKeys(http.StatusOK, nil, &k)
}

func (d *Dashboard) revokeKey(c *call) error {
	ids, err := c.ids("kid")
	if err != nil {
		return err
	}
	if err := c.send(http.MethodDelete, "/api-keys/"+ids[0], nil, nil); err != nil {
		if apiRefusal(err) {
			return c.showKeys(api.StatusOf(err), &formError{Top: messageOf(err)}, nil)
		}
		return err
	}
	return c.seeOther("/settings/keys")
}

// users lists the tenant's users with their state (issue 15).
func (d *Dashboard) users(c *call) error { return c.showUsers(http.StatusOK, nil) }

func (c *call) showUsers(status int, fe *formError) error {
	var l api.List[api.User]
	if err := c.get("/users", listQuery(c.r, "status"), &l); err != nil {
		return err
	}
	return c.show(status, "users.html", &page{Title: "Users", Section: "users", Data: map[string]any{
		"List": l.Data, "Pager": pagerOf(c.r, l), "Form": fe, "Status": c.r.URL.Query().Get("status"),
	}})
}

// changeUser disables or enables a user through the API, which ends a disabled user's
// sessions, dashboard sessions included.
func (d *Dashboard) changeUser(c *call) error {
	ids, err := c.ids("uid")
	if err != nil {
		return err
	}
	change := c.r.PathValue("change")
	if change != "disable" && change != "enable" {
		return errNotFound
	}
	if err := c.send(http.MethodPost, "/users/"+ids[0]+"/"+change, map[string]any{}, nil); err != nil {
		if apiRefusal(err) {
			return c.showUsers(api.StatusOf(err), &formError{Top: messageOf(err)})
		}
		return err
	}
	return c.seeOther("/settings/users")
}
