package store

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Migrations live in migrations/<dialect>/NNNN_name.sql, one file per version and
// dialect. To extend the schema add the next number to both directories; a test checks
// that the two dialects list the same versions. Applied migrations are never edited.
//
//go:embed migrations
var migrationFiles embed.FS

// migration is one versioned schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// migrationLockKey is the PostgreSQL advisory lock that serialises concurrent Opens
// (several replicas starting at once). Any constant works; this one spells "disco".
const migrationLockKey = 0x646973636f

// loadMigrations returns the migrations for dialect in version order.
func loadMigrations(dialect string) ([]migration, error) {
	dir := path.Join("migrations", dialect)
	entries, err := fs.ReadDir(migrationFiles, dir)
	if err != nil {
		return nil, fmt.Errorf("store: read migrations: %w", err)
	}
	var out []migration
	seen := map[int]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("store: migration file %s/%s is not named NNNN_name.sql", dir, e.Name())
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("store: migrations %s and %s share version %d", prev, e.Name(), v)
		}
		seen[v] = e.Name()
		body, err := fs.ReadFile(migrationFiles, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(body)})
	}
	slices.SortFunc(out, func(a, b migration) int { return cmp.Compare(a.version, b.version) })
	return out, nil
}

// migrate applies every pending migration, each in its own transaction together with
// its schema_migrations row, so a crash leaves the schema at a clean version.
func (s *Store) migrate(ctx context.Context) error {
	migrations, err := loadMigrations(s.dialect)
	if err != nil {
		return err
	}
	for _, m := range migrations {
		if err := s.applyMigration(ctx, m); err != nil {
			return fmt.Errorf("store: migration %04d_%s: %w", m.version, m.name, err)
		}
	}
	return nil
}

func (s *Store) applyMigration(ctx context.Context, m migration) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	// Take the database-wide write lock before looking at schema_migrations, so two
	// processes starting together cannot both decide a version is pending.
	begin := "BEGIN"
	if s.dialect == SQLite {
		begin = "BEGIN IMMEDIATE"
	}
	if _, err := conn.ExecContext(ctx, begin); err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			_, _ = conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") // best effort on an error path
		}
	}()
	if s.dialect == Postgres {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", migrationLockKey); err != nil {
			return err
		}
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at BIGINT NOT NULL
	)`); err != nil {
		return err
	}
	var exists int
	err = conn.QueryRowContext(ctx, s.Rebind("SELECT 1 FROM schema_migrations WHERE version = ?"), m.version).Scan(&exists)
	switch {
	case err == nil:
		return nil // already applied; the deferred rollback releases the lock
	case err != sql.ErrNoRows:
		return err
	}
	// No arguments: both drivers then accept several statements in one Exec.
	if _, err := conn.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, s.Rebind("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"),
		m.version, m.name, millis(s.Now())); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "COMMIT"); err != nil {
		return err
	}
	committed = true
	return nil
}

// SchemaVersion returns the highest applied migration version.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_migrations").Scan(&v); err != nil {
		return 0, err
	}
	return int(v.Int64), nil
}
