package app

import (
	"context"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	discov1 "github.com/discolab/disco/api/v1alpha1"
	"github.com/discolab/disco/apiserver"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/dashboard"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/tenancy"
)

// dashboardClientName names the dashboard's OAuth client in each tenant.
const dashboardClientName = "disco dashboard"

// withDashboard serves the dashboard at the root of the facade's origin beside the REST
// API: the dashboard's own paths go to it, every other path (/v1, the aggregated API,
// the probes) to api, unchanged. The dashboard calls api in-process with the signed-in
// user's session token. tenant, when set, is the only tenant users sign in to (disco dev);
// tenantExists decides for which tenants the dashboard's OAuth client may be registered.
func withDashboard(ctx context.Context, api http.Handler, opts apiserver.Options, tenant, ledgerKeyPath string,
	tenantExists func(context.Context, string) bool) (http.Handler, error) {
	key, err := dashboardCookieKey(ledgerKeyPath)
	if err != nil {
		return nil, err
	}
	redirect, err := dashboard.RedirectURI(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	st, err := oauth.NewStorage(ctx, opts.Store, opts.Now)
	if err != nil {
		return nil, err
	}
	clients := &dashboardClients{opts: opts, storage: st, redirect: redirect, exists: tenantExists, ids: map[string]string{}}
	d, err := dashboard.New(dashboard.Options{API: api, BaseURL: opts.BaseURL, CookieKey: key, ClientFor: clients.ensure,
		Tenant: tenant, Logger: opts.Logger.WithName("dashboard"), Now: opts.Now})
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dashboard.Serves(r.URL.Path) {
			d.ServeHTTP(w, r)
			return
		}
		api.ServeHTTP(w, r)
	}), nil
}

// dashboardCookieKey derives the dashboard's cookie key from the ledger signing key file,
// which every facade replica already holds (HKDF-SHA256, RFC 5869, with a label of its own,
// so the derived key tells nothing about the signing key).
func dashboardCookieKey(ledgerKeyPath string) ([]byte, error) {
	seed, err := os.ReadFile(ledgerKeyPath)
	if err != nil {
		return nil, fmt.Errorf("dashboard: read the ledger key for the cookie key: %w", err)
	}
	return hkdf.Key(sha256.New, []byte(strings.TrimSpace(string(seed))), nil, "disco dashboard cookie key v1", 32)
}

// dashboardClients registers the dashboard as a public OAuth client (PKCE S256) in a
// tenant the first time someone signs in to it, and finds it again after a restart.
type dashboardClients struct {
	opts     apiserver.Options
	storage  *oauth.Storage
	redirect string
	exists   func(context.Context, string) bool
	mu       sync.Mutex
	ids      map[string]string
}

func (c *dashboardClients) ensure(ctx context.Context, tenantID string) (string, error) {
	if !ids.Valid(ids.Tenant, tenantID) || !c.exists(ctx, tenantID) {
		return "", errors.New("no such tenant")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if id, ok := c.ids[tenantID]; ok {
		return id, nil
	}
	list, err := c.storage.Clients(ctx, tenantID)
	if err != nil {
		return "", err
	}
	for _, cl := range list {
		if cl.Name == dashboardClientName && cl.Public && slices.Contains(cl.RedirectURIs, c.redirect) {
			c.ids[tenantID] = cl.ID
			return cl.ID, nil
		}
	}
	id, _, err := apiserver.CreateOAuthClient(ctx, c.opts, apiserver.OAuthClientSpec{
		TenantID: tenantID, Name: dashboardClientName, RedirectURIs: []string{c.redirect}, Public: true, CreatedBy: "system",
	})
	if err != nil {
		return "", err
	}
	c.ids[tenantID] = id
	return id, nil
}

// tenantIn tells whether a Tenant object exists, for the cluster's facade.
func tenantIn(reader client.Reader) func(context.Context, string) bool {
	return func(ctx context.Context, tenantID string) bool {
		return tenancy.Get(ctx, reader, tenantID, &discov1.Tenant{}) == nil
	}
}

// devDashboardUser returns the username and password `disco dev` prints for the
// dashboard: the tenant's admin user (apiserver.BootstrapUser), whose password is kept in
// credentials.json. An admin user whose password is not there any more (a data dir of an
// older disco) is made again with a new one.
func devDashboardUser(ctx context.Context, st *store.Store, tenantID, dir string) (string, string, error) {
	var prev credentials
	if raw, err := os.ReadFile(filepath.Join(dir, "credentials.json")); err == nil {
		_ = json.Unmarshal(raw, &prev)
	}
	if prev.DashboardUser != "" && prev.DashboardPassword != "" {
		if u, ok, err := st.VerifyPassword(ctx, prev.DashboardUser, prev.DashboardPassword); err == nil && ok && u.TenantID == tenantID {
			return prev.DashboardUser, prev.DashboardPassword, nil
		}
	}
	username, password, created, err := apiserver.BootstrapUser(ctx, st, tenantID)
	if err != nil {
		return "", "", err
	}
	if !created {
		if err := st.DeleteUser(ctx, username); err != nil {
			return "", "", err
		}
		if username, password, _, err = apiserver.BootstrapUser(ctx, st, tenantID); err != nil {
			return "", "", err
		}
	}
	return username, password, nil
}
