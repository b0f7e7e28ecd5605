package apikeys

import (
	"context"
	"testing"
	"time"

	"github.com/discolab/disco/apiserver/apierror"
	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/apiserver/resource"
	"github.com/discolab/disco/apiserver/resource/roomtest"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// The key handlers are called without HTTP, over a SQLite store: a caller manages only
// keys no stronger than itself, and a revoked or rolled key leaves the authenticator's
// cache at once.

const (
	tenantA = "ten_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	tenantB = "ten_bbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestKeysAreManagedOnlyByCallersAsStrong(t *testing.T) {
	st := storetest.OpenSQLite(t)
	var forgotten []string
	h := &handlers{Deps{
		Kit:    resource.NewKit(resource.Kit{Now: time.Now, BaseURL: "/v1"}),
		Store:  st,
		Forget: func(id string) { forgotten = append(forgotten, id) },
	}}
	ctx := context.Background()
	admin, _, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: tenantA, Name: "admin", Scopes: auth.All, CreatedBy: "usr_a"})
	if err != nil {
		t.Fatal(err)
	}
	reader := roomtest.Caller(tenantA, "ns", []string{auth.ProjectsRead, auth.APIKeysWrite})

	_, err = h.createAPIKey(reader, &struct{ Body apiKeyCreate }{Body: apiKeyCreate{Name: "w", Scopes: []string{auth.RunsWrite}}})
	roomtest.WantError(t, err, 403, apierror.CodeInsufficientScope)
	made, err := h.createAPIKey(reader, &struct{ Body apiKeyCreate }{Body: apiKeyCreate{Name: "r"}})
	if err != nil || len(made.Body.Scopes) != 2 {
		t.Fatalf("a key with the creator's scopes: %+v, %v", made, err)
	}

	// The admin key is stronger than reader, and tenant B's callers do not see tenant A's keys.
	_, err = h.getAPIKey(reader, &APIKeyPath{KeyID: admin.ID})
	roomtest.WantError(t, err, 404, apierror.CodeNotFound)
	_, err = h.revokeAPIKey(reader, &APIKeyPath{KeyID: admin.ID})
	roomtest.WantError(t, err, 404, apierror.CodeNotFound)
	_, err = h.revokeAPIKey(roomtest.Caller(tenantB, "ns", auth.All), &APIKeyPath{KeyID: made.Body.ID})
	roomtest.WantError(t, err, 404, apierror.CodeNotFound)
	if len(forgotten) != 0 {
		t.Fatalf("refused revocations forgot %v", forgotten)
	}

	rolled, err := h.rollAPIKey(reader, &struct {
		APIKeyPath
		Body *struct {
			GracePeriodSeconds *int `json:"grace_period_seconds,omitempty" minimum:"0" maximum:"604800" doc:"How long the old key keeps working; default 86400."`
		}
	}{APIKeyPath: APIKeyPath{KeyID: made.Body.ID}})
	if err != nil || rolled.Body.ID == made.Body.ID {
		t.Fatalf("roll: %+v, %v", rolled, err)
	}
	if _, err := h.revokeAPIKey(reader, &APIKeyPath{KeyID: rolled.Body.ID}); err != nil {
		t.Fatal(err)
	}
	if len(forgotten) != 2 || forgotten[0] != made.Body.ID || forgotten[1] != rolled.Body.ID {
		t.Fatalf("forgotten %v, want the rolled and the revoked key", forgotten)
	}
}
