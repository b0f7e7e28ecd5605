// Package storetest opens throwaway stores for tests: SQLite in a temporary directory
// always, and PostgreSQL when DISCO_TEST_POSTGRES_DSN names a database, each test then
// getting its own schema so tests never see each other's rows.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/discolab/disco/internal/store"
)

// PostgresEnv is the environment variable holding the test database DSN.
const PostgresEnv = "DISCO_TEST_POSTGRES_DSN"

// Each runs fn as a subtest named after the dialect, once per available dialect, each
// with a fresh migrated store that is closed (and on PostgreSQL dropped) afterwards.
func Each(t *testing.T, fn func(t *testing.T, st *store.Store)) {
	t.Helper()
	t.Run(store.SQLite, func(t *testing.T) { fn(t, OpenSQLite(t)) })
	t.Run(store.Postgres, func(t *testing.T) { fn(t, OpenPostgres(t)) })
}

// OpenSQLite returns a migrated store in a fresh file under t.TempDir().
func OpenSQLite(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), "sqlite://"+filepath.Join(t.TempDir(), "disco.db"))
	if err != nil {
		t.Fatalf("open sqlite store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// OpenPostgres returns a migrated store in a fresh schema of the database named by
// DISCO_TEST_POSTGRES_DSN, or skips the test when it is unset.
func OpenPostgres(t testing.TB) *store.Store {
	t.Helper()
	dsn := PostgresDSN(t)
	st, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open postgres store: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// PostgresDSN creates an empty schema in the test database and returns a DSN whose
// search_path points at it; the schema is dropped when the test ends. It skips the
// test when DISCO_TEST_POSTGRES_DSN is unset.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(PostgresEnv)
	if base == "" {
		t.Skip(PostgresEnv + " is not set")
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { admin.Close() })
	var b [6]byte
	rand.Read(b[:])
	schema := "disco_test_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP SCHEMA " + schema + " CASCADE"); err != nil {
			t.Errorf("drop test schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", PostgresEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
