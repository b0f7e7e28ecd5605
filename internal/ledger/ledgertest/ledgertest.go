// Package ledgertest plays an attacker with write access to the ledger's database (issue
// 17): changes made behind the service, with the append-only triggers out of the way.
// Tests use it to show which changes verification catches and which only a client
// holding an older checkpoint can catch.
package ledgertest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

// ledgerTables carry the append-only triggers.
var ledgerTables = []string{"ledger_entries", "ledger_tree_hashes"}

// WithoutTriggers runs fn in one transaction with the ledger tables' append-only
// triggers disabled, and restores them before committing.
func WithoutTriggers(ctx context.Context, st *store.Store, fn func(tx *sql.Tx) error) error {
	return st.WithTx(ctx, func(tx *sql.Tx) error {
		if st.Dialect() == store.Postgres {
			for _, table := range ledgerTables {
				if _, err := tx.ExecContext(ctx, "ALTER TABLE "+table+" DISABLE TRIGGER USER"); err != nil {
					return err
				}
			}
			if err := fn(tx); err != nil {
				return err
			}
			for _, table := range ledgerTables {
				if _, err := tx.ExecContext(ctx, "ALTER TABLE "+table+" ENABLE TRIGGER USER"); err != nil {
					return err
				}
			}
			return nil
		}
		rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name LIKE 'ledger_%'`)
		if err != nil {
			return err
		}
		triggers := map[string]string{}
		for rows.Next() {
			var name, def string
			if err := rows.Scan(&name, &def); err != nil {
				rows.Close()
				return err
			}
			triggers[name] = def
		}
		rows.Close()
		for name := range triggers {
			if _, err := tx.ExecContext(ctx, "DROP TRIGGER "+name); err != nil {
				return err
			}
		}
		if err := fn(tx); err != nil {
			return err
		}
		for _, def := range triggers {
			if _, err := tx.ExecContext(ctx, def); err != nil {
				return err
			}
		}
		return nil
	})
}

// Exec runs one statement (with ? placeholders) behind the triggers' back.
func Exec(ctx context.Context, st *store.Store, stmt string, args ...any) error {
	return WithoutTriggers(ctx, st, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, st.Rebind(stmt), args...)
		return err
	})
}

// Truncate keeps the project's first n entries and drops the rest, with their tree
// hashes, and points the head at entry n-1: the ledger stays internally consistent, so
// Verify accepts it.
func Truncate(ctx context.Context, st *store.Store, projectID string, n int64) error {
	return WithoutTriggers(ctx, st, func(tx *sql.Tx) error {
		last := ledger.GenesisHash
		if n > 0 {
			if err := tx.QueryRowContext(ctx, st.Rebind(`SELECT hash FROM ledger_entries WHERE project_id = ? AND tree_index = ?`),
				projectID, n-1).Scan(&last); err != nil {
				return fmt.Errorf("ledgertest: entry %d: %w", n-1, err)
			}
		}
		for _, q := range []struct {
			stmt string
			args []any
		}{
			{`DELETE FROM ledger_entries WHERE project_id = ? AND tree_index >= ?`, []any{projectID, n}},
			// tlog stores the hashes of a tree of n leaves at indexes 0..StoredHashCount(n)-1.
			{`DELETE FROM ledger_tree_hashes WHERE project_id = ? AND idx >= ?`, []any{projectID, tlog.StoredHashCount(n)}},
			{`UPDATE ledger_heads SET size = ?, last_hash = ? WHERE project_id = ?`, []any{n, last, projectID}},
		} {
			if _, err := tx.ExecContext(ctx, st.Rebind(q.stmt), q.args...); err != nil {
				return fmt.Errorf("ledgertest: truncate: %w", err)
			}
		}
		return nil
	})
}

// Appender is a ledger on st that appends as the service's own code does, with no access
// to the service's signing key: the checkpoints it signs, with a throwaway key, are never
// used. It stands for the controllers appending to a running stack's database, or for an
// attacker with write access to it.
func Appender(st *store.Store) (*ledger.Ledger, error) {
	skey, _, err := note.GenerateKey(rand.Reader, "ledgertest")
	if err != nil {
		return nil, err
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, err
	}
	return ledger.New(st, signer)
}

// Rewrite replaces the project's entries from index from on with the same events, each
// passed through edit first, appended again by the ledger's own code: every hash, chain
// link, tree hash and the head are recomputed, so Verify accepts the result and signs a
// fresh checkpoint for it. The rewritten entries get new ids and timestamps.
func Rewrite(ctx context.Context, st *store.Store, projectID string, from int64, edit func(e *ledger.Entry)) error {
	var tenantID string
	if err := st.DB().QueryRowContext(ctx, st.Rebind(`SELECT tenant_id FROM ledger_heads WHERE project_id = ?`), projectID).
		Scan(&tenantID); err != nil {
		return fmt.Errorf("ledgertest: head of %s: %w", projectID, err)
	}
	l, err := Appender(st)
	if err != nil {
		return err
	}
	var tail []ledger.Entry
	for after := from - 1; ; {
		page, err := l.List(ctx, tenantID, projectID, ledger.ListQuery{After: &after, Limit: store.MaxPageSize})
		if err != nil {
			return fmt.Errorf("ledgertest: read entries: %w", err)
		}
		if len(page) == 0 {
			break
		}
		tail = append(tail, page...)
		after = page[len(page)-1].TreeIndex
	}
	if err := Truncate(ctx, st, projectID, from); err != nil {
		return err
	}
	for _, e := range tail {
		edit(&e)
		if _, err := l.Append(ctx, ledger.Entry{
			TenantID: tenantID, ProjectID: projectID, EventType: e.EventType, ClaimID: e.ClaimID, RunID: e.RunID,
			Details: e.Details, Actor: e.Actor,
		}); err != nil {
			return fmt.Errorf("ledgertest: append again: %w", err)
		}
	}
	return nil
}
