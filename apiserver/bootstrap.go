package apiserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/oauth"
	"github.com/discolab/disco/apiserver/oauthclients"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// Marks of the keys Bootstrap mints, which it alone manages.
const (
	bootstrapKeyName = "admin (bootstrap)"
	bootstrapActor   = "system"
)

// Bootstrap makes sure the tenant has an admin user and an admin API key with every
// scope, and returns the key's plaintext. previous is the plaintext of the key an earlier
// call returned, which the caller kept (the store keeps only its SHA-256): `disco dev`
// passes the key of its credentials.json, so restarts keep the key. It is reused while it
// is active and still holds every scope of auth.All; "" (`disco bootstrap admin-key`, which
// rotates the key) or any other key mints a new one. Either way every other key Bootstrap
// minted for the tenant is revoked, so starts do not pile up full-scope keys that never
// expire (issue 17). The admin user's password exists only when the user is created here;
// it is logged once through opts.Logger then (use BootstrapUser to get it programmatically).
func Bootstrap(ctx context.Context, opts Options, tenantID, previous string) (string, error) {
	username, password, created, err := BootstrapUser(ctx, opts.Store, tenantID)
	if err != nil {
		return "", err
	}
	if created {
		opts.Logger.Info("created the tenant's admin user; the password is shown only now",
			"tenant_id", tenantID, "username", username, "password", password)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	key, id := reusableBootstrapKey(ctx, opts.Store, tenantID, previous, now())
	if key == "" {
		k, plain, err := opts.Store.CreateAPIKey(ctx, store.NewAPIKey{
			TenantID:  tenantID,
			Name:      bootstrapKeyName,
			Scopes:    slices.Clone(auth.All),
			CreatedBy: bootstrapActor,
		})
		if err != nil {
			return "", fmt.Errorf("apiserver: bootstrap API key: %w", err)
		}
		key, id = plain, k.ID
	}
	if err := revokeBootstrapKeys(ctx, opts.Store, tenantID, id); err != nil {
		return "", fmt.Errorf("apiserver: revoke earlier bootstrap API keys: %w", err)
	}
	return key, nil
}

// reusableBootstrapKey returns plain and its id when it is still a usable admin key of
// the tenant at now: minted by Bootstrap for this tenant, active, not rolled,
// unrestricted, and holding every scope. Anything else gives "": the caller mints a new
// key.
func reusableBootstrapKey(ctx context.Context, st *store.Store, tenantID, plain string, now time.Time) (string, string) {
	if !store.ValidAPIKeyFormat(plain) {
		return "", ""
	}
	k, err := st.APIKeyByHash(ctx, store.HashAPIKey(plain))
	if err != nil || !isBootstrapKey(k, tenantID) || !k.ActiveAt(now) || k.ReplacedBy != "" || len(k.ProjectIDs) > 0 {
		return "", ""
	}
	for _, sc := range auth.All {
		if !slices.Contains(k.Scopes, sc) {
			return "", ""
		}
	}
	return plain, k.ID
}

func isBootstrapKey(k store.APIKey, tenantID string) bool {
	return k.TenantID == tenantID && k.Name == bootstrapKeyName && k.CreatedBy == bootstrapActor
}

// revokeBootstrapKeys revokes the tenant's bootstrap keys other than keep. Rolled ones
// are left to end with their grace period, which whoever rolled them chose.
func revokeBootstrapKeys(ctx context.Context, st *store.Store, tenantID, keep string) error {
	stale, err := resource.StoreAll(ctx, tenantID, st.ListAPIKeys, func(k store.APIKey) string { return k.ID }, func(k store.APIKey) bool {
		return k.ID != keep && isBootstrapKey(k, tenantID) && k.RevokedAt == nil && k.ReplacedBy == ""
	})
	if err != nil {
		return err
	}
	for _, k := range stale {
		if err := st.RevokeAPIKey(ctx, tenantID, k.ID); err != nil {
			return err
		}
	}
	return nil
}

// BootstrapUser ensures the tenant has an admin user. It returns the username, and the
// generated password when it created the user (created true); an existing user keeps its
// password, which is never readable. Usernames are global, so a second tenant's admin is
// "admin-<tenant object name>".
func BootstrapUser(ctx context.Context, st *store.Store, tenantID string) (username, password string, created bool, err error) {
	if !ids.Valid(ids.Tenant, tenantID) {
		return "", "", false, fmt.Errorf("apiserver: bootstrap: %q is not a tenant id", tenantID)
	}
	for _, name := range []string{"admin", "admin-" + ids.ToName(tenantID)} {
		u, err := st.UserByUsername(ctx, name)
		switch {
		case err == nil && u.TenantID == tenantID:
			return name, "", false, nil
		case err == nil:
			continue // taken by another tenant
		case !errors.Is(err, store.ErrNotFound):
			return "", "", false, err
		}
		password = randomPassword()
		if _, err := st.CreateUser(ctx, tenantID, name, password); err != nil {
			if errors.Is(err, store.ErrConflict) {
				continue
			}
			return "", "", false, err
		}
		return name, password, true, nil
	}
	return "", "", false, fmt.Errorf("apiserver: bootstrap: no free admin username for tenant %s", tenantID)
}

func randomPassword() string {
	const alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

// CreateOAuthClient registers an OAuth client for a tenant, e.g. the SDK's public client
// at `disco dev` start-up. It returns the client id, and the secret of a confidential
// client.
func CreateOAuthClient(ctx context.Context, opts Options, spec OAuthClientSpec) (id, secret string, err error) {
	st, err := oauth.NewStorage(ctx, opts.Store, opts.Now)
	if err != nil {
		return "", "", err
	}
	return oauthclients.Create(ctx, st, spec)
}

// OAuthClientSpec describes an OAuth client to register (oauthclients.Spec).
type OAuthClientSpec = oauthclients.Spec
