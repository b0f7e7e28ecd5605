package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/ledger/ledgertest"
	"github.com/discolab/disco/internal/store"
)

// emptyTreeRoot is base64(SHA-256("")), the RFC 6962 root of the empty tree.
const emptyTreeRoot = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="

func TestCheckpointIsC2SPSignedNote(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		ctx := context.Background()
		if l.VerifierKey() != key.VerifierKey || !strings.HasPrefix(l.VerifierKey(), ledger.KeyName+"+") {
			t.Fatalf("published verifier key %q, want the key's %q", l.VerifierKey(), key.VerifierKey)
		}
		appendN(t, l, "ten_a", "proj_1", 3)
		cp, signed, err := l.Checkpoint(ctx, "ten_a", "proj_1")
		if err != nil {
			t.Fatal(err)
		}
		v, err := l.Verify(ctx, "ten_a", "proj_1")
		if err != nil || !v.Valid {
			t.Fatalf("Verify: %+v %v", v, err)
		}
		// C2SP tlog-checkpoint: origin, size, base64 root, blank line, signature lines.
		lines := strings.Split(signed, "\n")
		if len(lines) != 6 || lines[0] != "disco-ledger/proj_1" || lines[1] != "3" || lines[2] != v.RootHash ||
			lines[3] != "" || !strings.HasPrefix(lines[4], "— "+ledger.KeyName+" ") || lines[5] != "" {
			t.Fatalf("checkpoint is not a C2SP checkpoint:\n%s", signed)
		}
		if cp.Size != 3 || cp.RootHash.String() != v.RootHash || cp.ProjectID != "proj_1" {
			t.Fatalf("Checkpoint = %+v, Verify root %s", cp, v.RootHash)
		}
		// Anyone holding the published key can open it.
		verifier, err := note.NewVerifier(l.VerifierKey())
		if err != nil {
			t.Fatal(err)
		}
		if got, err := ledger.OpenCheckpoint(signed, verifier); err != nil || got != cp {
			t.Fatalf("OpenCheckpoint = %+v, %v", got, err)
		}
		if got, err := ledger.OpenCheckpoint(v.Checkpoint, verifier); err != nil || got != cp {
			t.Fatalf("Verify's checkpoint opens as %+v, %v", got, err)
		}
		// A changed size, or another key, does not open.
		forged := strings.Replace(signed, "\n3\n", "\n2\n", 1)
		if _, err := ledger.OpenCheckpoint(forged, verifier); err == nil {
			t.Fatal("a checkpoint with a changed size opened")
		}
		other, err := ledger.ParseKey(mustSignerKey(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ledger.OpenCheckpoint(signed, other.Verifier); err == nil || !strings.Contains(err.Error(), "no valid signature by "+ledger.KeyName) {
			t.Fatalf("checkpoint opened with another key: %v", err)
		}

		// A project without entries has the empty tree's checkpoint (RFC 6962 root).
		empty, signedEmpty, err := l.Checkpoint(ctx, "ten_a", "proj_empty")
		if err != nil || empty.Size != 0 || empty.RootHash.String() != emptyTreeRoot || !strings.HasPrefix(signedEmpty, "disco-ledger/proj_empty\n0\n"+emptyTreeRoot+"\n\n") {
			t.Fatalf("empty checkpoint %+v %q %v", empty, signedEmpty, err)
		}
		if ev, err := l.Verify(ctx, "ten_a", "proj_empty"); err != nil || ev.RootHash != emptyTreeRoot {
			t.Fatalf("Verify of an empty ledger: %+v %v", ev, err)
		}
		// Another tenant sees no entries of the project.
		if c, _, err := l.Checkpoint(ctx, "ten_b", "proj_1"); err != nil || c.Size != 0 {
			t.Fatalf("another tenant's checkpoint: %+v %v", c, err)
		}
	})
}

func TestParseCheckpoint(t *testing.T) {
	root := "Ck1aVnEPbxkzMR3VJaXS6DZ9UkOfDqTvvzFx7iCDzXw="
	good := map[string]ledger.Checkpoint{
		"disco-ledger/proj_1\n5\n" + root + "\n":                 {ProjectID: "proj_1", Size: 5},
		"disco ledger proj_1\n5\n" + root + "\n":                 {ProjectID: "proj_1", Size: 5}, // before issue 17
		"disco-ledger/proj_1\n5\n" + root + "\nsome extension\n": {ProjectID: "proj_1", Size: 5},
	}
	for text, want := range good {
		got, err := ledger.ParseCheckpoint(text)
		if err != nil || got.ProjectID != want.ProjectID || got.Size != want.Size || got.RootHash.String() != root {
			t.Errorf("ParseCheckpoint(%q) = %+v, %v", text, got, err)
		}
	}
	for _, bad := range []string{
		"",
		"disco-ledger/proj_1\n5\n" + root,                 // no final newline
		"disco-ledger/proj_1\n5\n",                        // no root
		"example.com/log\n5\n" + root + "\n",              // another log
		"disco-ledger/\n5\n" + root + "\n",                // no project
		"disco-ledger/proj 1\n5\n" + root + "\n",          // space in the origin
		"disco-ledger/proj_1\n05\n" + root + "\n",         // leading zero
		"disco-ledger/proj_1\n-1\n" + root + "\n",         // negative
		"disco-ledger/proj_1\n5\nnot-base64\n",            // root
		"disco-ledger/proj_1\n5\n" + root + "\n\nx\n",     // empty extension line
		"disco-ledger/proj_1\n+5\n" + root + "\n",         // sign
		"disco-ledger/proj_1\n99999999999999999999\nx=\n", // overflow
	} {
		if c, err := ledger.ParseCheckpoint(bad); err == nil {
			t.Errorf("ParseCheckpoint(%q) accepted: %+v", bad, c)
		}
	}
}

// TestOldCheckpointCatchesConsistentRewrite is issue 17's attack: someone with database
// access rewrites or truncates the ledger and recomputes chain, tree and head. Verify
// cannot tell and signs a fresh checkpoint; a client that kept an older checkpoint can.
func TestOldCheckpointCatchesConsistentRewrite(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, st *store.Store, l *ledger.Ledger)
		want   error // nil: the change is a legitimate append
	}{
		{"legitimate append passes", func(t *testing.T, st *store.Store, l *ledger.Ledger) {
			appendN(t, l, "ten_a", "proj_1", 3)
		}, nil},
		{"details of entry 2 rewritten", func(t *testing.T, st *store.Store, l *ledger.Ledger) {
			err := ledgertest.Rewrite(context.Background(), st, "proj_1", 2, func(e *ledger.Entry) {
				if e.TreeIndex == 2 {
					e.Details["truth_dial_score"] = 0.99
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		}, ledger.ErrRewritten},
		{"rewritten and grown past the old size", func(t *testing.T, st *store.Store, l *ledger.Ledger) {
			if err := ledgertest.Rewrite(context.Background(), st, "proj_1", 5, func(e *ledger.Entry) { e.Actor = "usr_mallory" }); err != nil {
				t.Fatal(err)
			}
			appendN(t, l, "ten_a", "proj_1", 2)
		}, ledger.ErrRewritten},
		{"last two entries truncated", func(t *testing.T, st *store.Store, l *ledger.Ledger) {
			if err := ledgertest.Truncate(context.Background(), st, "proj_1", 4); err != nil {
				t.Fatal(err)
			}
		}, ledger.ErrTruncated},
		{"truncated and grown again", func(t *testing.T, st *store.Store, l *ledger.Ledger) {
			if err := ledgertest.Truncate(context.Background(), st, "proj_1", 3); err != nil {
				t.Fatal(err)
			}
			appendN(t, l, "ten_a", "proj_1", 5)
		}, ledger.ErrRewritten},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
				ctx := context.Background()
				appendN(t, l, "ten_a", "proj_1", 6)
				_, keptNote, err := l.Checkpoint(ctx, "ten_a", "proj_1")
				if err != nil {
					t.Fatal(err)
				}
				kept, err := ledger.OpenCheckpoint(keptNote, key.Verifier)
				if err != nil {
					t.Fatal(err)
				}

				c.change(t, st, l)

				// Verify alone is not enough: it recomputes the changed ledger, finds it
				// self-consistent, and signs it.
				v, err := l.Verify(ctx, "ten_a", "proj_1")
				if err != nil || !v.Valid || v.Checkpoint == "" {
					t.Fatalf("Verify after the change: %+v %v, want valid with a checkpoint", v, err)
				}
				now, err := ledger.OpenCheckpoint(v.Checkpoint, key.Verifier)
				if err != nil {
					t.Fatal(err)
				}
				var hashes []string
				if now.Size >= kept.Size {
					p, err := l.ConsistencyProof(ctx, "ten_a", "proj_1", kept.Size, now.Size)
					if err != nil {
						t.Fatal(err)
					}
					if p.NewSize != now.Size || p.NewRootHash != now.RootHash.String() {
						t.Fatalf("proof %+v is not to the verified head %+v", p, now)
					}
					hashes = p.Hashes
				} else if _, err := l.ConsistencyProof(ctx, "ten_a", "proj_1", kept.Size, 0); !errors.Is(err, ledger.ErrSizeOutOfRange) {
					t.Fatalf("proof from beyond the ledger: %v, want ErrSizeOutOfRange", err)
				}

				err = ledger.CheckConsistency(kept, now, hashes)
				switch {
				case c.want == nil && err != nil:
					t.Fatalf("a legitimate append failed the check: %v", err)
				case c.want != nil && !errors.Is(err, c.want):
					t.Fatalf("CheckConsistency = %v, want %v", err, c.want)
				}
				t.Logf("kept %d entries, now %d: %v", kept.Size, now.Size, err)
			})
		})
	}
}

func TestCheckConsistencyEdges(t *testing.T) {
	forEachDialect(t, func(t *testing.T, st *store.Store, l *ledger.Ledger, key *ledger.Key) {
		ctx := context.Background()
		empty, _, err := l.Checkpoint(ctx, "ten_a", "proj_1")
		if err != nil {
			t.Fatal(err)
		}
		appendN(t, l, "ten_a", "proj_1", 4)
		four, _, err := l.Checkpoint(ctx, "ten_a", "proj_1")
		if err != nil {
			t.Fatal(err)
		}
		if err := ledger.CheckConsistency(empty, four, nil); err != nil {
			t.Errorf("from the empty tree: %v", err)
		}
		if err := ledger.CheckConsistency(four, four, nil); err != nil {
			t.Errorf("same checkpoint: %v", err)
		}
		changed := four
		changed.RootHash[0] ^= 1
		if err := ledger.CheckConsistency(four, changed, nil); !errors.Is(err, ledger.ErrRewritten) {
			t.Errorf("same size, other root: %v", err)
		}
		appendN(t, l, "ten_a", "proj_1", 3)
		seven, _, err := l.Checkpoint(ctx, "ten_a", "proj_1")
		if err != nil {
			t.Fatal(err)
		}
		p, err := l.ConsistencyProof(ctx, "ten_a", "proj_1", 4, 0)
		if err != nil {
			t.Fatal(err)
		}
		if err := ledger.CheckConsistency(four, seven, p.Hashes); err != nil {
			t.Fatalf("honest growth: %v", err)
		}
		if err := ledger.CheckConsistency(four, seven, append([]string{"x"}, p.Hashes[1:]...)); err == nil {
			t.Error("malformed proof hash accepted")
		}
		if err := ledger.CheckConsistency(four, seven, p.Hashes[1:]); !errors.Is(err, ledger.ErrRewritten) {
			t.Errorf("short proof: %v", err)
		}
		other := seven
		other.ProjectID = "proj_2"
		if err := ledger.CheckConsistency(four, other, p.Hashes); err == nil {
			t.Error("checkpoints of two projects compared")
		}
		if _, err := l.ConsistencyProof(ctx, "ten_a", "proj_1", 5, 4); !errors.Is(err, ledger.ErrSizeOutOfRange) {
			t.Errorf("old size above new size: %v", err)
		}
		if _, err := l.ConsistencyProof(ctx, "ten_a", "proj_1", 1, 8); !errors.Is(err, ledger.ErrSizeOutOfRange) {
			t.Errorf("new size beyond the ledger: %v", err)
		}
	})
}

func mustSignerKey(t *testing.T) string {
	t.Helper()
	skey, _, err := note.GenerateKey(nil, ledger.KeyName)
	if err != nil {
		t.Fatal(err)
	}
	return skey
}
