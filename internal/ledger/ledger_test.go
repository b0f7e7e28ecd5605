package ledger_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"reflect"
	"sync"
	"testing"

	"golang.org/x/mod/sumdb/tlog"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/store"
)

func TestAppendBuildsChainAndTree(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		ctx := context.Background()
		const n = 37 // not a power of two: exercises uneven subtrees
		entries := appendN(t, l, "ten_a", "proj_1", n)
		other := appendN(t, l, "ten_a", "proj_2", 3) // a second project has its own chain
		prev := ledger.GenesisHash
		for i, e := range entries {
			if !ids.Valid(ids.Ledger, e.ID) || e.TreeIndex != int64(i) || e.PrevHash != prev || len(e.Hash) != 64 {
				t.Fatalf("entry %d: id %s index %d prev %s hash %s; want chained after %s", i, e.ID, e.TreeIndex, e.PrevHash, e.Hash, prev)
			}
			if e.Timestamp.IsZero() || e.Timestamp.Location().String() != "UTC" || e.Timestamp.Nanosecond()%1e6 != 0 {
				t.Fatalf("entry %d timestamp %v is not UTC milliseconds", i, e.Timestamp)
			}
			prev = e.Hash
		}
		if other[0].TreeIndex != 0 || other[0].PrevHash != ledger.GenesisHash {
			t.Fatalf("second project does not start its own chain: %+v", other[0])
		}

		v, err := l.Verify(ctx, "ten_a", "proj_1")
		if err != nil {
			t.Fatal(err)
		}
		if !v.Valid || v.Size != n || v.FirstBadIndex != nil {
			t.Fatalf("Verify = %+v, want valid size %d", v, n)
		}
		cp, err := ledger.OpenCheckpoint(v.Checkpoint, key.Verifier)
		if err != nil {
			t.Fatalf("checkpoint does not verify: %v\n%s", err, v.Checkpoint)
		}
		if cp.ProjectID != "proj_1" || cp.Size != n || cp.RootHash.String() != v.RootHash {
			t.Fatalf("checkpoint states %+v, verification %+v", cp, v)
		}
		// The root is the Merkle tree of the entry hashes, computable by anyone.
		var leaves []tlog.Hash
		for _, e := range entries {
			raw, _ := hex.DecodeString(e.Hash)
			leaves = append(leaves, tlog.RecordHash(raw))
		}
		if got := merkleRoot(leaves); got != cp.RootHash {
			t.Fatalf("root %s, independently computed %s", cp.RootHash, got)
		}

		for _, e := range entries {
			p, err := l.Proof(ctx, "ten_a", "proj_1", e.ID)
			if err != nil {
				t.Fatalf("proof of %d: %v", e.TreeIndex, err)
			}
			if p.LeafIndex != e.TreeIndex || p.TreeSize != n || p.RootHash != v.RootHash {
				t.Fatalf("proof %+v does not match the tree head", p)
			}
			if err := ledger.VerifyInclusion(p, e.Hash); err != nil {
				t.Fatalf("proof of %d: %v", e.TreeIndex, err)
			}
			proof := make(tlog.RecordProof, len(p.Hashes))
			for i, s := range p.Hashes {
				b, _ := base64.StdEncoding.DecodeString(s)
				proof[i] = tlog.Hash(b)
			}
			raw, _ := hex.DecodeString(e.Hash)
			if err := tlog.CheckRecord(proof, p.TreeSize, cp.RootHash, p.LeafIndex, tlog.RecordHash(raw)); err != nil {
				t.Fatalf("tlog.CheckRecord of %d: %v", e.TreeIndex, err)
			}
			if err := ledger.VerifyInclusion(p, entries[(e.TreeIndex+1)%n].Hash); err == nil {
				t.Fatalf("proof of %d also proves another entry", e.TreeIndex)
			}
		}
	})
}

// merkleRoot is RFC 6962's tree hash, written out independently of tlog.TreeHash.
func merkleRoot(leaves []tlog.Hash) tlog.Hash {
	if len(leaves) == 1 {
		return leaves[0]
	}
	k := 1
	for k*2 < len(leaves) {
		k *= 2
	}
	return tlog.NodeHash(merkleRoot(leaves[:k]), merkleRoot(leaves[k:]))
}

func TestGetListCount(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		ctx := context.Background()
		entries := appendN(t, l, "ten_a", "proj_1", 9)

		got, err := l.Get(ctx, "ten_a", "proj_1", entries[4].ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, entries[4]) {
			t.Fatalf("Get = %+v\nAppend returned %+v", got, entries[4])
		}
		if got.Details["n"] != float64(4) || got.Details["claim_type"] != "law" {
			t.Fatalf("details = %v", got.Details)
		}
		for _, c := range []struct{ tenant, project string }{{"ten_b", "proj_1"}, {"ten_a", "proj_2"}} {
			if _, err := l.Get(ctx, c.tenant, c.project, entries[4].ID); !errors.Is(err, ledger.ErrNotFound) {
				t.Errorf("Get from %s/%s: %v, want ErrNotFound", c.tenant, c.project, err)
			}
		}

		page1, err := l.List(ctx, "ten_a", "proj_1", ledger.ListQuery{Limit: 4})
		if err != nil || len(page1) != 4 || page1[0].TreeIndex != 0 || page1[3].TreeIndex != 3 {
			t.Fatalf("first page: %v, %v", indexes(page1), err)
		}
		after := page1[3].TreeIndex
		page2, err := l.List(ctx, "ten_a", "proj_1", ledger.ListQuery{Limit: 4, After: &after})
		if err != nil || len(page2) != 4 || page2[0].TreeIndex != 4 {
			t.Fatalf("second page: %v, %v", indexes(page2), err)
		}
		desc, err := l.List(ctx, "ten_a", "proj_1", ledger.ListQuery{Desc: true, Limit: 3})
		if err != nil || !reflect.DeepEqual(indexes(desc), []int64{8, 7, 6}) {
			t.Fatalf("descending: %v, %v", indexes(desc), err)
		}
		claim1, err := l.List(ctx, "ten_a", "proj_1", ledger.ListQuery{ClaimID: "clm_1"})
		if err != nil || !reflect.DeepEqual(indexes(claim1), []int64{1, 3, 5, 7}) {
			t.Fatalf("claim filter: %v, %v", indexes(claim1), err)
		}
		if other, err := l.List(ctx, "ten_b", "proj_1", ledger.ListQuery{}); err != nil || len(other) != 0 {
			t.Fatalf("another tenant lists %d entries, %v", len(other), err)
		}

		for claim, want := range map[string]int{"": 9, "clm_0": 5, "clm_1": 4, "clm_9": 0} {
			if n, err := l.Count(ctx, "ten_a", "proj_1", claim); err != nil || n != want {
				t.Errorf("Count(%q) = %d, %v; want %d", claim, n, err, want)
			}
		}
		if n, _ := l.Count(ctx, "ten_b", "proj_1", ""); n != 0 {
			t.Errorf("another tenant counts %d entries", n)
		}
		if _, err := l.Append(ctx, ledger.Entry{TenantID: "ten_b", ProjectID: "proj_1", EventType: ledger.PolicyEvaluated}); err == nil {
			t.Error("another tenant appended to this project's chain")
		}
	})
}

func indexes(es []ledger.Entry) []int64 {
	out := []int64{}
	for _, e := range es {
		out = append(out, e.TreeIndex)
	}
	return out
}

func TestConcurrentAppendsKeepOneChain(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		ctx := context.Background()
		const workers, each = 20, 3
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					_, err := l.Append(ctx, ledger.Entry{TenantID: "ten_a", ProjectID: "proj_1", EventType: ledger.PolicyEvaluated,
						Details: map[string]any{"worker": w, "i": i}})
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		all, err := l.List(ctx, "ten_a", "proj_1", ledger.ListQuery{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != workers*each {
			t.Fatalf("%d entries, want %d", len(all), workers*each)
		}
		prevs := map[string]bool{}
		for i, e := range all {
			if e.TreeIndex != int64(i) {
				t.Fatalf("index %d at position %d", e.TreeIndex, i)
			}
			if prevs[e.PrevHash] {
				t.Fatalf("two entries share prev_hash %s", e.PrevHash)
			}
			prevs[e.PrevHash] = true
		}
		if v, err := l.Verify(ctx, "ten_a", "proj_1"); err != nil || !v.Valid || v.Size != workers*each {
			t.Fatalf("Verify after concurrent appends = %+v, %v", v, err)
		}
	})
}

func TestEmptyLedgerVerifies(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		v, err := l.Verify(context.Background(), "ten_a", "proj_none")
		if err != nil || !v.Valid || v.Size != 0 || v.Checkpoint == "" {
			t.Fatalf("empty ledger: %+v, %v", v, err)
		}
	})
}
