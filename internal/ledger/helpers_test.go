package ledger_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/ledger/ledgertest"
	"github.com/discolab/disco/internal/store"
	"github.com/discolab/disco/internal/store/storetest"
)

// forEachDialect runs fn once per available dialect with a fresh store and ledger.
func forEachDialect(t *testing.T, fn func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key)) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		key, err := ledger.LoadOrCreateKey(filepath.Join(t.TempDir(), "ledger.key"))
		if err != nil {
			t.Fatal(err)
		}
		l, err := ledger.New(st, key.Signer)
		if err != nil {
			t.Fatal(err)
		}
		fn(t, st, l, key)
	})
}

// appendN appends n entries to the project, alternating between two claims.
func appendN(t *testing.T, l *ledger.Ledger, tenant, project string, n int) []ledger.Entry {
	t.Helper()
	out := make([]ledger.Entry, n)
	for i := range out {
		e, err := l.Append(context.Background(), ledger.Entry{
			TenantID: tenant, ProjectID: project, EventType: ledger.ClaimCreated,
			ClaimID: fmt.Sprintf("clm_%d", i%2), RunID: "run_1", Actor: "usr_1",
			Details: map[string]any{"claim_type": "law", "initial_tier": "explore", "truth_dial_score": 0.5 + float64(i)/1000, "n": i},
		})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		out[i] = e
	}
	return out
}

// tamper runs stmt with the ledger's append-only triggers out of the way, in one
// transaction: an attacker with direct database access.
func tamper(t *testing.T, st *store.Store, stmt string, args ...any) {
	t.Helper()
	if err := ledgertest.Exec(context.Background(), st, stmt, args...); err != nil {
		t.Fatalf("tamper %q: %v", stmt, err)
	}
}
