package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

func TestTamperingIsDetected(t *testing.T) {
	cases := []struct {
		name     string
		stmt     string
		args     func(es []ledger.Entry) []any
		firstBad int64
		// the entry index whose Get must fail
		getBad int
	}{
		{
			name:     "details changed",
			stmt:     `UPDATE ledger_entries SET details = '{"claim_type":"law","initial_tier":"publish"}' WHERE id = ?`,
			args:     func(es []ledger.Entry) []any { return []any{es[4].ID} },
			firstBad: 4, getBad: 4,
		},
		{
			name:     "actor changed",
			stmt:     `UPDATE ledger_entries SET actor = 'usr_mallory' WHERE id = ?`,
			args:     func(es []ledger.Entry) []any { return []any{es[4].ID} },
			firstBad: 4, getBad: 4,
		},
		{
			name:     "hash replaced",
			stmt:     `UPDATE ledger_entries SET hash = ? WHERE id = ?`,
			args:     func(es []ledger.Entry) []any { return []any{strings.Repeat("ab", 32), es[4].ID} },
			firstBad: 4, getBad: 4,
		},
		{
			name:     "entry deleted from the middle",
			stmt:     `DELETE FROM ledger_entries WHERE id = ?`,
			args:     func(es []ledger.Entry) []any { return []any{es[4].ID} },
			firstBad: 4, getBad: 5,
		},
		{
			name:     "last entry deleted",
			stmt:     `DELETE FROM ledger_entries WHERE id = ?`,
			args:     func(es []ledger.Entry) []any { return []any{es[9].ID} },
			firstBad: 9, getBad: 8,
		},
		{
			name:     "merkle leaf replaced",
			stmt:     `UPDATE ledger_tree_hashes SET hash = ? WHERE project_id = 'proj_1' AND idx = ?`,
			args:     func(es []ledger.Entry) []any { return []any{make([]byte, 32), tlog.StoredHashIndex(0, 6)} },
			firstBad: 6, getBad: 6,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
				ctx := context.Background()
				es := appendN(t, l, "ten_a", "proj_1", 10)
				tamper(t, st, c.stmt, c.args(es)...)

				v, err := l.Verify(ctx, "ten_a", "proj_1")
				if err != nil {
					t.Fatal(err)
				}
				if v.Valid || v.FirstBadIndex == nil || *v.FirstBadIndex != c.firstBad || v.Reason == "" || v.Checkpoint != "" {
					t.Fatalf("Verify = %+v (first bad %v), want invalid at %d without a checkpoint", v, deref(v.FirstBadIndex), c.firstBad)
				}

				_, err = l.Get(ctx, "ten_a", "proj_1", es[c.getBad].ID)
				if !errors.Is(err, ledger.ErrIntegrity) {
					t.Fatalf("Get of entry %d: %v, want ErrIntegrity", c.getBad, err)
				}
				var ie *ledger.IntegrityError
				if !errors.As(err, &ie) || ie.ProjectID != "proj_1" {
					t.Fatalf("error %v is not an IntegrityError for proj_1", err)
				}
				if _, err := l.List(ctx, "ten_a", "proj_1", ledger.ListQuery{}); !errors.Is(err, ledger.ErrIntegrity) {
					t.Fatalf("List over the tampered range: %v, want ErrIntegrity", err)
				}
				if _, err := l.Proof(ctx, "ten_a", "proj_1", es[c.getBad].ID); !errors.Is(err, ledger.ErrIntegrity) {
					t.Fatalf("Proof of entry %d: %v, want ErrIntegrity", c.getBad, err)
				}
				// Entries well away from the damage still read.
				if _, err := l.Get(ctx, "ten_a", "proj_1", es[1].ID); err != nil {
					t.Fatalf("Get of an untouched entry: %v", err)
				}
				if _, err := l.List(ctx, "ten_a", "proj_1", ledger.ListQuery{Limit: 2}); err != nil {
					t.Fatalf("List of an untouched range: %v", err)
				}
			})
		})
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestLedgerTablesRefuseUpdateAndDelete(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		ctx := context.Background()
		es := appendN(t, l, "ten_a", "proj_1", 3)
		for _, stmt := range []string{
			`UPDATE ledger_entries SET actor = 'usr_mallory' WHERE id = ?`,
			`DELETE FROM ledger_entries WHERE id = ?`,
			`UPDATE ledger_tree_hashes SET idx = idx WHERE project_id = ?`,
			`DELETE FROM ledger_tree_hashes WHERE project_id = ?`,
		} {
			arg := es[1].ID
			if strings.Contains(stmt, "tree_hashes") {
				arg = "proj_1"
			}
			_, err := st.DB().ExecContext(ctx, st.Rebind(stmt), arg)
			if err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("%s: err = %v, want refusal by the append-only trigger", stmt, err)
			}
		}
		if st.Dialect() == store.Postgres {
			if _, err := st.DB().ExecContext(ctx, `TRUNCATE ledger_entries`); err == nil || !strings.Contains(err.Error(), "append-only") {
				t.Errorf("TRUNCATE: err = %v, want refusal", err)
			}
		}
		if v, err := l.Verify(ctx, "ten_a", "proj_1"); err != nil || !v.Valid {
			t.Fatalf("ledger damaged by refused statements: %+v, %v", v, err)
		}
	})
}
