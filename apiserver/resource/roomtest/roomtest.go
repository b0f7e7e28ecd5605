// Package roomtest holds what the rooms' unit tests share, so their services and
// handlers are tested without HTTP: a context carrying a caller, and the check of an
// envelope error.
package roomtest

import (
	"context"
	"testing"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
)

// Caller returns a context whose caller is an API key of tenant (its objects in
// namespace) with scopes, restricted to projects when any are given.
func Caller(tenant, namespace string, scopes []string, projects ...string) context.Context {
	return auth.WithCaller(context.Background(), &auth.Caller{
		Principal: &auth.Principal{Kind: auth.KindAPIKey, TenantID: tenant, Actor: "key_test", CredentialID: "key_test",
			Scopes: scopes, ProjectIDs: projects},
		Tenant: &auth.Tenant{ID: tenant, Namespace: namespace},
	})
}

// WantError fails the test unless err is an envelope error with status and code, and
// returns it.
func WantError(t testing.TB, err error, status int, code string) *apierror.Error {
	t.Helper()
	e := apierror.Of(err)
	if e == nil || e.GetStatus() != status || e.Body.Code != code {
		t.Fatalf("got %v, want %d %s", err, status, code)
	}
	return e
}
