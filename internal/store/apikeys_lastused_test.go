package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// A key's last use is written at most once per APIKeyUseResolution, never moves back, and
// shows in every read of the key (issue 15).
func TestTouchAPIKeyWritesOncePerResolution(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		k, _, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: "ten_a", Name: "ci", Scopes: []string{"runs:read"}, CreatedBy: "usr_1"})
		if err != nil {
			t.Fatal(err)
		}
		if k.LastUsedAt != nil {
			t.Fatalf("a new key has a last use: %v", k.LastUsedAt)
		}
		lastUsed := func() *time.Time {
			t.Helper()
			got, err := st.APIKeyByID(ctx, "ten_a", k.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got.LastUsedAt
		}
		if lastUsed() != nil {
			t.Fatal("an unused key reads back with a last use")
		}
		t0 := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
		steps := []struct {
			at      time.Time
			written bool
			want    time.Time
		}{
			{t0, true, t0},                   // the first use
			{t0.Add(time.Second), false, t0}, // within the minute: no write
			{t0.Add(store.APIKeyUseResolution - time.Millisecond), false, t0},
			{t0.Add(store.APIKeyUseResolution), true, t0.Add(store.APIKeyUseResolution)},
			{t0, false, t0.Add(store.APIKeyUseResolution)}, // an older use never moves it back
			{t0.Add(time.Hour), true, t0.Add(time.Hour)},
		}
		for i, s := range steps {
			written, err := st.TouchAPIKey(ctx, k.ID, s.at)
			if err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if written != s.written {
				t.Errorf("step %d: use at %s wrote = %v, want %v", i, s.at, written, s.written)
			}
			if got := lastUsed(); got == nil || !got.Equal(s.want) {
				t.Errorf("step %d: last used %v, want %s", i, got, s.want)
			}
		}
		byHash, err := st.APIKeyByHash(ctx, k.Hash)
		if err != nil || byHash.LastUsedAt == nil || !byHash.LastUsedAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("APIKeyByHash last used %v (%v)", byHash.LastUsedAt, err)
		}
		page, err := st.ListAPIKeys(ctx, "ten_a", 10, "")
		if err != nil || len(page) != 1 || page[0].LastUsedAt == nil || !page[0].LastUsedAt.Equal(t0.Add(time.Hour)) {
			t.Errorf("ListAPIKeys = %+v (%v), want the last use", page, err)
		}
		if written, err := st.TouchAPIKey(ctx, "key_unknown", t0); err != nil || written {
			t.Errorf("touching an unknown key: written %v, %v", written, err)
		}
	})
}

// Migration 6 adds last_used_at to a database at version 5 and keeps its keys, which
// read back unused.
func TestAPIKeyLastUsedMigration(t *testing.T) {
	dsns := map[string]func(t *testing.T) string{
		store.SQLite:   func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "disco.db") },
		store.Postgres: func(t *testing.T) string { return storetest.PostgresDSN(t) },
	}
	for _, dialect := range []string{store.SQLite, store.Postgres} {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			dsn := dsns[dialect](t)
			st, err := store.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			k, _, err := st.CreateAPIKey(ctx, store.NewAPIKey{TenantID: "ten_a", Name: "old", Scopes: []string{"runs:read"}, CreatedBy: "usr_1"})
			if err != nil {
				t.Fatal(err)
			}
			// Back to before migration 6: the column gone, the version unrecorded.
			for _, q := range []string{`ALTER TABLE api_keys DROP COLUMN last_used_at`, `DELETE FROM schema_migrations WHERE version = 6`} {
				if _, err := st.DB().ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			st.Close()

			st, err = store.Open(ctx, dsn)
			if err != nil {
				t.Fatalf("migration 6 does not apply: %v", err)
			}
			defer st.Close()
			var applied int
			if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = 6`).Scan(&applied); err != nil || applied != 1 {
				t.Fatalf("migration 6 recorded %d times (%v)", applied, err)
			}
			got, err := st.APIKeyByID(ctx, "ten_a", k.ID)
			if err != nil || got.Name != "old" || got.LastUsedAt != nil {
				t.Fatalf("the key after migrating: %+v, %v", got, err)
			}
			if written, err := st.TouchAPIKey(ctx, k.ID, time.Now()); err != nil || !written {
				t.Fatalf("first use after migrating: written %v, %v", written, err)
			}
		})
	}
}
