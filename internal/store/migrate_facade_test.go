package store_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// facadeTablesBefore is what the REST facade created itself before migration 5 (the
// settings table of apiserver/settings.go and the OAuth tables of apiserver/oauth), as
// it ran them at start-up.
var facadeTablesBefore = []string{
	`CREATE TABLE IF NOT EXISTS apiserver_settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
)`,
	`CREATE TABLE IF NOT EXISTS oauth_clients (
    id            TEXT PRIMARY KEY,
    tenant_id     TEXT NOT NULL,
    name          TEXT NOT NULL,
    redirect_uris TEXT NOT NULL,
    scopes        TEXT NOT NULL,
    public        INTEGER NOT NULL,
    secret_hash   TEXT NOT NULL,
    created_by    TEXT NOT NULL,
    created_at    BIGINT NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS oauth_clients_tenant ON oauth_clients (tenant_id, created_at, id)`,
	`CREATE TABLE IF NOT EXISTS oauth_tokens (
    signature  TEXT PRIMARY KEY,
    kind       TEXT NOT NULL,
    request_id TEXT NOT NULL,
    active     INTEGER NOT NULL,
    client_id  TEXT NOT NULL,
    subject    TEXT NOT NULL,
    data       TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS oauth_tokens_request ON oauth_tokens (kind, request_id)`,
	`CREATE INDEX IF NOT EXISTS oauth_tokens_expiry ON oauth_tokens (expires_at)`,
}

// TestFacadeTablesMigrateFromTheFacadesOwn: a database at version 4 whose facade tables
// the facade created itself, with rows in them, opens at version 5 with its rows kept;
// a new database gets the same tables from the migration (issue 16).
func TestFacadeTablesMigrateFromTheFacadesOwn(t *testing.T) {
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
			exec := func(q string, args ...any) {
				t.Helper()
				if _, err := st.DB().ExecContext(ctx, st.Rebind(q), args...); err != nil {
					t.Fatalf("%s: %v", strings.Fields(q)[0:3], err)
				}
			}
			// A new database: the migration made the tables.
			exec(`INSERT INTO apiserver_settings (name, value) VALUES (?, ?)`, "probe", "1")
			exec(`DELETE FROM apiserver_settings`)

			// Back to version 4, with the tables as the facade made them.
			for _, table := range []string{"apiserver_settings", "oauth_clients", "oauth_tokens"} {
				exec(`DROP TABLE ` + table)
			}
			exec(`ALTER TABLE api_keys DROP COLUMN last_used_at`) // undo 6 and 7 too
			exec(`DROP TABLE webhook_attempts`)
			exec(`DELETE FROM schema_migrations WHERE version >= 5`)
			for _, stmt := range facadeTablesBefore {
				exec(stmt)
			}
			exec(`INSERT INTO apiserver_settings (name, value) VALUES (?, ?)`, "cursor_hmac_key", "00ff")
			exec(`INSERT INTO oauth_clients (id, tenant_id, name, redirect_uris, scopes, public, secret_hash, created_by, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, "oc_1", "ten_1", "sdk", `["http://127.0.0.1/cb"]`, `["runs:read"]`, 1, "", "usr_1", 1)
			exec(`INSERT INTO oauth_tokens (signature, kind, request_id, active, client_id, subject, data, expires_at, created_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, "sig", "access", "req_1", 1, "oc_1", "usr_1", "{}", 2, 1)
			if v, err := st.SchemaVersion(ctx); err != nil || v != 4 {
				t.Fatalf("set up at version %d (%v), want 4", v, err)
			}
			st.Close()

			st, err = store.Open(ctx, dsn)
			if err != nil {
				t.Fatalf("a database with the facade's own tables does not migrate: %v", err)
			}
			defer st.Close()
			if v, err := st.SchemaVersion(ctx); err != nil || v < 5 {
				t.Fatalf("version %d (%v) after migrating, want at least 5", v, err)
			}
			var value string
			var clients, tokens int
			if err := st.DB().QueryRowContext(ctx, st.Rebind(`SELECT value FROM apiserver_settings WHERE name = ?`), "cursor_hmac_key").Scan(&value); err != nil || value != "00ff" {
				t.Fatalf("setting %q (%v): the cursor key was lost", value, err)
			}
			if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM oauth_clients`).Scan(&clients); err != nil || clients != 1 {
				t.Fatalf("%d oauth clients (%v), want 1", clients, err)
			}
			if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM oauth_tokens`).Scan(&tokens); err != nil || tokens != 1 {
				t.Fatalf("%d oauth tokens (%v), want 1", tokens, err)
			}
		})
	}
}
