package store_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

func TestOpenMigratesAndIsIdempotent(t *testing.T) {
	ctx := context.Background()
	dsns := map[string]func(t *testing.T) string{
		store.SQLite:   func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "sub", "disco.db") },
		store.Postgres: func(t *testing.T) string { return storetest.PostgresDSN(t) },
	}
	for dialect, mk := range dsns {
		t.Run(dialect, func(t *testing.T) {
			dsn := mk(t)
			// Several processes starting at once must not race on the migrations.
			var wg sync.WaitGroup
			errs := make([]error, 4)
			stores := make([]*store.Store, 4)
			for i := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					stores[i], errs[i] = store.Open(ctx, dsn)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("concurrent open %d: %v", i, err)
				}
				defer stores[i].Close()
			}
			st := stores[0]
			if st.Dialect() != dialect {
				t.Fatalf("dialect = %q, want %q", st.Dialect(), dialect)
			}
			v, err := st.SchemaVersion(ctx)
			if err != nil || v < 2 {
				t.Fatalf("schema version = %d, %v; want >= 2", v, err)
			}
			var applied int
			if err := st.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM schema_migrations").Scan(&applied); err != nil {
				t.Fatal(err)
			}
			if applied != v {
				t.Fatalf("%d rows in schema_migrations for version %d: a migration ran twice or was skipped", applied, v)
			}
			// Reopening applies nothing new.
			again, err := store.Open(ctx, dsn)
			if err != nil {
				t.Fatalf("reopen: %v", err)
			}
			defer again.Close()
			if v2, _ := again.SchemaVersion(ctx); v2 != v {
				t.Fatalf("version after reopen = %d, want %d", v2, v)
			}
		})
	}
}

func TestSQLiteDSNForms(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, dsn := range []string{
		"sqlite://" + filepath.Join(dir, "a.db"),
		"file:" + filepath.Join(dir, "b.db"),
		filepath.Join(dir, "c.db"),
	} {
		st, err := store.Open(ctx, dsn)
		if err != nil {
			t.Fatalf("open %q: %v", dsn, err)
		}
		var mode string
		if err := st.DB().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Errorf("%q: journal_mode = %q, %v; want wal", dsn, mode, err)
		}
		var fk int
		if err := st.DB().QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
			t.Errorf("%q: foreign_keys = %d, %v; want 1", dsn, fk, err)
		}
		st.Close()
	}
}

func TestRebind(t *testing.T) {
	st := storetest.OpenSQLite(t)
	q := "SELECT * FROM t WHERE a = ? AND b = '?' AND c = ?"
	if got := st.Rebind(q); got != q {
		t.Errorf("sqlite rebind changed the query: %q", got)
	}
	if testing.Short() {
		return
	}
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		if st.Dialect() != store.Postgres {
			return
		}
		want := "SELECT * FROM t WHERE a = $1 AND b = '?' AND c = $2"
		if got := st.Rebind(q); got != want {
			t.Errorf("postgres rebind = %q, want %q", got, want)
		}
	})
}
