// Package store is the SQL store shared by the REST facade and the controllers: users,
// API keys, idempotency records, webhook registrations and the webhook outbox, plus the
// Evidence Ledger's tables (written only through internal/ledger).
//
// One schema serves two databases: SQLite (modernc.org/sqlite, no cgo) for local mode and
// PostgreSQL (pgx) for clusters. Queries are written once with "?" placeholders and
// rebound for PostgreSQL. Timestamps are stored as BIGINT Unix milliseconds in both
// dialects: the same comparisons work everywhere, ordering is exact, and millisecond
// precision is what the API exposes anyway.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers driver "pgx"
	_ "modernc.org/sqlite"             // registers driver "sqlite"
)

// Dialects reported by (*Store).Dialect.
const (
	SQLite   = "sqlite"
	Postgres = "postgres"
)

// Errors shared by every typed method.
var (
	ErrNotFound = errors.New("store: not found")
	ErrConflict = errors.New("store: conflict")
)

// Store is an open database with its schema migrated to the latest version.
type Store struct {
	db      *sql.DB
	dialect string
	now     func() time.Time // replaced in tests to move the clock
}

// Open connects to dsn and applies any pending migrations.
//
// dsn is "postgres://..." / "postgresql://..." for PostgreSQL; anything else is SQLite:
// "sqlite:///abs/path.db", "sqlite://rel/path.db", "file:path.db?..." or a bare path.
func Open(ctx context.Context, dsn string) (*Store, error) {
	var (
		s   *Store
		err error
	)
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		s, err = openPostgres(dsn)
	} else {
		s, err = openSQLite(dsn)
	}
	if err != nil {
		return nil, err
	}
	if err := s.ping(ctx); err != nil {
		_ = s.db.Close()
		return nil, fmt.Errorf("store: connect: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

func openPostgres(dsn string) (*Store, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open postgres: %w", err)
	}
	db.SetMaxOpenConns(20)
	db.SetMaxIdleConns(5)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return &Store{db: db, dialect: Postgres, now: time.Now}, nil
}

func openSQLite(dsn string) (*Store, error) {
	path, query := sqlitePath(dsn)
	if path == "" {
		return nil, fmt.Errorf("store: empty sqlite path in %q", dsn)
	}
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("store: create database directory: %w", err)
		}
	}
	params := []string{
		"_pragma=busy_timeout(10000)",
		"_pragma=journal_mode(WAL)",
		"_pragma=foreign_keys(1)",
		"_pragma=synchronous(NORMAL)",
		// Transactions that read before they write would fail at once with
		// SQLITE_BUSY_SNAPSHOT if another process wrote in between; taking the write
		// lock at BEGIN makes them wait (busy_timeout) instead.
		"_txlock=immediate",
	}
	if query != "" {
		params = append(params, query)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+strings.Join(params, "&"))
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite: %w", err)
	}
	// SQLite allows one writer at a time. A single connection serialises every
	// transaction inside this process, so no transaction ever fails with SQLITE_BUSY
	// while upgrading a read lock; busy_timeout covers other processes.
	db.SetMaxOpenConns(1)
	db.SetConnMaxIdleTime(0)
	db.SetConnMaxLifetime(0)
	return &Store{db: db, dialect: SQLite, now: time.Now}, nil
}

// sqlitePath splits a SQLite dsn into the file path and any query parameters.
func sqlitePath(dsn string) (path, query string) {
	rest := dsn
	switch {
	case strings.HasPrefix(rest, "sqlite://"):
		rest = strings.TrimPrefix(rest, "sqlite://")
	case strings.HasPrefix(rest, "sqlite:"):
		rest = strings.TrimPrefix(rest, "sqlite:")
	case strings.HasPrefix(rest, "file://"):
		rest = strings.TrimPrefix(rest, "file://")
	case strings.HasPrefix(rest, "file:"):
		rest = strings.TrimPrefix(rest, "file:")
	}
	path, query, _ = strings.Cut(rest, "?")
	return path, query
}

// DB returns the underlying pool, for packages that keep their own tables in this
// database. Write queries with "?" placeholders and pass them through Rebind.
func (s *Store) DB() *sql.DB { return s.db }

// Dialect is SQLite or Postgres.
func (s *Store) Dialect() string { return s.dialect }

// Close closes the pool.
func (s *Store) Close() error { return s.db.Close() }

// Rebind turns the "?" placeholders of query into "$1", "$2", ... on PostgreSQL and
// returns it unchanged on SQLite. Question marks inside quoted strings and identifiers
// are left alone.
func (s *Store) Rebind(query string) string {
	if s.dialect != Postgres {
		return query
	}
	return rebindDollar(query)
}

func rebindDollar(query string) string {
	var b strings.Builder
	b.Grow(len(query) + 16)
	n := 0
	var quote byte // the quote character we are inside, or 0
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// WithTx runs fn in a transaction, committing when fn returns nil and rolling back
// otherwise. On SQLite, fn must not use s.DB() directly: the only connection is
// held by the transaction.
func (s *Store) WithTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // fn's error is the one to report
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// Now is the store's clock in UTC, truncated to the stored millisecond precision.
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// millis converts a time to the stored representation.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis converts a stored value back to a UTC time.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis converts an optional time to a nullable column value.
func nullMillis(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// timePtr converts a nullable column value back to an optional time.
func timePtr(v sql.NullInt64) *time.Time {
	if !v.Valid {
		return nil
	}
	t := fromMillis(v.Int64)
	return &t
}

// SetClock replaces the store's clock; tests use it to step past expiry times.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

// ping opens the first connection. Several processes opening one SQLite file at once can
// meet SQLITE_BUSY while one of them sets WAL mode or migrates, so a busy answer is retried
// for as long as busy_timeout would wait.
func (s *Store) ping(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		err := s.db.PingContext(ctx)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}
