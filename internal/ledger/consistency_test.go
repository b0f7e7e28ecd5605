package ledger_test

import (
	"context"
	"errors"
	"testing"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

func TestConsistencyProofLinksOldCheckpoint(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		ctx := context.Background()
		appendN(t, l, "ten_a", "proj_1", 5)
		old, err := l.Verify(ctx, "ten_a", "proj_1")
		if err != nil || !old.Valid {
			t.Fatalf("Verify: %+v, %v", old, err)
		}
		appendN(t, l, "ten_a", "proj_1", 7)

		p, err := l.ConsistencyProof(ctx, "ten_a", "proj_1", old.Size, 0)
		if err != nil {
			t.Fatal(err)
		}
		if p.OldSize != 5 || p.NewSize != 12 || p.OldRootHash != old.RootHash {
			t.Fatalf("proof %+v does not start from the old checkpoint %+v", p, old)
		}
		if err := ledger.VerifyConsistency(p, old.RootHash); err != nil {
			t.Fatal(err)
		}
		cp, err := ledger.OpenCheckpoint(p.Checkpoint, key.Verifier)
		if err != nil || cp.Size != 12 || cp.RootHash.String() != p.NewRootHash {
			t.Fatalf("new checkpoint %+v, %v", cp, err)
		}
		// A client whose old root differs (the ledger was rewritten) is told so.
		appendN(t, l, "ten_a", "proj_2", 5)
		foreign, _ := l.Verify(ctx, "ten_a", "proj_2")
		if err := ledger.VerifyConsistency(p, foreign.RootHash); err == nil {
			t.Fatal("proof accepted against a root it does not extend")
		}

		for _, bad := range []int64{0, 13} {
			if _, err := l.ConsistencyProof(ctx, "ten_a", "proj_1", bad, 0); err == nil {
				t.Errorf("old size %d accepted", bad)
			}
		}
		if _, err := l.ConsistencyProof(ctx, "ten_b", "proj_1", 1, 0); !errors.Is(err, ledger.ErrNotFound) {
			t.Errorf("another tenant: %v, want ErrNotFound", err)
		}
	})
}
