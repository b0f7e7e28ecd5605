package apiserver

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// Bootstrap makes sure the tenant has an admin user and creates a new admin API key with
// every scope, returning its plaintext. `disco dev` calls it at startup and prints the
// key once. The admin user's password exists only when the user is created here; it is
// logged once through opts.Logger then (use BootstrapUser to get it programmatically).
func Bootstrap(ctx context.Context, opts Options, tenantID string) (string, error) {
	username, password, created, err := BootstrapUser(ctx, opts.Store, tenantID)
	if err != nil {
		return "", err
	}
	if created {
		opts.Logger.Info("created the tenant's admin user; the password is shown only now",
			"tenant_id", tenantID, "username", username, "password", password)
	}
	_, key, err := opts.Store.CreateAPIKey(ctx, store.NewAPIKey{
		TenantID:  tenantID,
		Name:      "admin (bootstrap)",
		Scopes:    append([]string(nil), auth.All...),
		CreatedBy: "system",
	})
	if err != nil {
		return "", fmt.Errorf("apiserver: bootstrap API key: %w", err)
	}
	return key, nil
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
