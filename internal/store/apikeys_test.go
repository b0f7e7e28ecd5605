package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

func TestAPIKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		expires := time.Now().Add(48 * time.Hour)
		k, plaintext, err := st.CreateAPIKey(ctx, store.NewAPIKey{
			TenantID: "ten_a", Name: "ci", Scopes: []string{"runs:write", "claims:read"},
			ProjectIDs: []string{"proj_x"}, CreatedBy: "usr_1", ExpiresAt: &expires,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !ids.Valid(ids.APIKey, k.ID) || !store.ValidAPIKeyFormat(plaintext) {
			t.Fatalf("id %q / key %q malformed", k.ID, plaintext)
		}
		if k.Hash != store.HashAPIKey(plaintext) || k.Prefix != plaintext[:12] {
			t.Fatalf("hash/prefix do not derive from the plaintext: %+v", k)
		}
		got, err := st.APIKeyByHash(ctx, store.HashAPIKey(plaintext))
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != k.ID || !slices.Equal(got.Scopes, k.Scopes) || !slices.Equal(got.ProjectIDs, []string{"proj_x"}) ||
			got.ExpiresAt == nil || !got.ExpiresAt.Equal(expires.Truncate(time.Millisecond)) {
			t.Fatalf("APIKeyByHash = %+v, want %+v", got, k)
		}
		if !got.ActiveAt(time.Now()) || got.ActiveAt(expires.Add(time.Second)) {
			t.Error("ActiveAt ignores expiry")
		}
		if !got.AllowsProject("proj_x") || got.AllowsProject("proj_y") {
			t.Error("AllowsProject ignores the project restriction")
		}
		if _, err := st.APIKeyByHash(ctx, store.HashAPIKey("disco_key_nope")); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown hash: %v, want ErrNotFound", err)
		}

		if err := st.RevokeAPIKey(ctx, "ten_b", k.ID); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("revoke from another tenant: %v, want ErrNotFound", err)
		}
		if err := st.RevokeAPIKey(ctx, "ten_a", k.ID); err != nil {
			t.Fatal(err)
		}
		revoked, _ := st.APIKeyByID(ctx, "ten_a", k.ID)
		if revoked.RevokedAt == nil || revoked.ActiveAt(time.Now().Add(time.Millisecond)) {
			t.Errorf("revoked key still active: %+v", revoked)
		}
		if _, _, err := st.RollAPIKey(ctx, "ten_a", k.ID, "usr_1", time.Hour); !errors.Is(err, store.ErrConflict) {
			t.Errorf("roll of a revoked key: %v, want ErrConflict", err)
		}
	})
}

func TestRollAPIKeyKeepsOldKeyForGrace(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		old, _, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: "ten_a", Name: "deploy", Scopes: []string{"runs:write"}, CreatedBy: "usr_1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.RollAPIKey(ctx, "ten_other", old.ID, "usr_1", time.Hour); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("roll from another tenant: %v, want ErrNotFound", err)
		}
		fresh, plaintext, err := st.RollAPIKey(ctx, "ten_a", old.ID, "usr_2", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if fresh.ID == old.ID || fresh.Hash == old.Hash || fresh.Name != "deploy" || !slices.Equal(fresh.Scopes, old.Scopes) {
			t.Fatalf("rolled key %+v does not carry the old key's settings", fresh)
		}
		if got, err := st.APIKeyByHash(ctx, store.HashAPIKey(plaintext)); err != nil || got.ID != fresh.ID {
			t.Fatalf("new key not found by its hash: %v", err)
		}
		rolled, err := st.APIKeyByID(ctx, "ten_a", old.ID)
		if err != nil {
			t.Fatal(err)
		}
		if rolled.ReplacedBy != fresh.ID || rolled.GraceUntil == nil {
			t.Fatalf("old key not marked as replaced: %+v", rolled)
		}
		if !rolled.ActiveAt(time.Now()) {
			t.Error("old key stopped working inside its grace period")
		}
		if rolled.ActiveAt(rolled.GraceUntil.Add(time.Millisecond)) {
			t.Error("old key still works after its grace period")
		}
		if _, _, err := st.RollAPIKey(ctx, "ten_a", old.ID, "usr_1", time.Hour); !errors.Is(err, store.ErrConflict) {
			t.Errorf("second roll of the same key: %v, want ErrConflict", err)
		}
	})
}

func TestListAPIKeysPages(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		var want []string
		for range 5 {
			k, _, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: "ten_a", Name: "k"})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, k.ID)
		}
		if _, _, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: "ten_b", Name: "other"}); err != nil {
			t.Fatal(err)
		}
		var got []string
		after := ""
		for {
			page, err := st.ListAPIKeys(ctx, "ten_a", 2, after)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > 2 {
				t.Fatalf("page of %d with limit 2", len(page))
			}
			for _, k := range page {
				got = append(got, k.ID)
			}
			if len(page) < 2 {
				break
			}
			after = page[len(page)-1].ID
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("paged through %v, want %v (each tenant key once, no other tenant's)", got, want)
		}
	})
}
