package apiserver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/mod/sumdb/note"

	"github.com/discolab/disco/apiserver/auth"
	"github.com/discolab/disco/internal/ledger"
	"github.com/discolab/disco/internal/ledger/ledgertest"
)

func appendLedger(t *testing.T, tenantID, projectID string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := env.ledger.Append(context.Background(), ledger.Entry{
			TenantID: tenantID, ProjectID: projectID, EventType: ledger.ClaimCreated, ClaimID: fmt.Sprintf("clm_%d", i),
			Details: map[string]any{"claim_type": "law", "initial_tier": "explore", "truth_dial_score": 0.5},
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// openFromREST opens a signed checkpoint with the verifier key the facade publishes.
func openFromREST(t *testing.T, signed string) ledger.Checkpoint {
	t.Helper()
	vk := call(t, "GET", "/v1/ledger/verifier-key", "", nil).expect(t, 200)
	v, err := note.NewVerifier(vk.str("verifier_key"))
	if err != nil {
		t.Fatalf("published verifier key %q: %v", vk.str("verifier_key"), err)
	}
	cp, err := ledger.OpenCheckpoint(signed, v)
	if err != nil {
		t.Fatalf("checkpoint does not open with the published key: %v\n%s", err, signed)
	}
	return cp
}

// TestLedgerTransparencyOverREST is issue 17 over HTTP: the published key, the text
// checkpoint, consistency proofs between chosen sizes, and a consistent rewrite and a
// truncation that /verify accepts but a client holding an older checkpoint catches.
func TestLedgerTransparencyOverREST(t *testing.T) {
	key := env.adminA
	pid := mustProject(t, key, map[string]any{"name": "transparency"})
	appendLedger(t, env.tenantA, pid, 5)
	base := "/v1/projects/" + pid + "/ledger"

	// The verifier key is public.
	vk := call(t, "GET", "/v1/ledger/verifier-key", "", nil).expect(t, 200)
	if vk.str("verifier_key") != env.ledger.VerifierKey() || vk.str("key_name") != ledger.KeyName || vk.str("origin") != "disco-ledger/{project_id}" {
		t.Fatalf("verifier key %s", vk.Raw)
	}

	// The checkpoint is the signed note itself, as text.
	cpr := call(t, "GET", base+"/checkpoint", key, nil).expect(t, 200)
	if ct := cpr.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Fatalf("checkpoint Content-Type %q", ct)
	}
	keptNote := string(cpr.Raw)
	kept := openFromREST(t, keptNote)
	v := call(t, "GET", base+"/verify", key, nil).expect(t, 200)
	if kept.ProjectID != pid || kept.Size != 5 || kept.RootHash.String() != v.str("root_hash") || !strings.HasPrefix(keptNote, "disco-ledger/"+pid+"\n5\n") {
		t.Fatalf("checkpoint %+v, verify %s", kept, v.Raw)
	}
	if got := openFromREST(t, v.str("checkpoint")); got != kept {
		t.Fatalf("verify's checkpoint %+v differs from %+v", got, kept)
	}

	// Scopes and tenants: ledger:read suffices, other keys and tenants do not.
	call(t, "GET", base+"/checkpoint", newKey(t, env.tenantA, []string{auth.LedgerRead}), nil).expect(t, 200)
	call(t, "GET", base+"/checkpoint", newKey(t, env.tenantA, []string{auth.ProjectsRead}), nil).expect(t, 403, "insufficient_scope")
	call(t, "GET", base+"/checkpoint", "", nil).expect(t, 401)
	call(t, "GET", base+"/checkpoint", env.adminB, nil).expect(t, 404)

	// A legitimate append: the proof between the two heads links the kept root.
	appendLedger(t, env.tenantA, pid, 3)
	p := call(t, "GET", base+"/consistency?old_size=5&new_size=8", key, nil).expect(t, 200)
	now := openFromREST(t, p.str("checkpoint"))
	if err := ledger.CheckConsistency(kept, now, strSlice(p.JSON["hashes"])); err != nil || now.Size != 8 {
		t.Fatalf("honest growth to %+v: %v", now, err)
	}
	for _, q := range []struct{ query, field string }{
		{"old_size=5&new_size=9", "query.new_size"},
		{"old_size=6&new_size=5", "query.old_size"},
		{"old_size=9", "query.old_size"},
		{"old_size=0", "query.old_size"},
		{"old_size=2&new_size=0", "query.new_size"},
	} {
		r := call(t, "GET", base+"/consistency?"+q.query, key, nil).expect(t, 400)
		if !strings.Contains(string(r.Raw), q.field) {
			t.Errorf("consistency?%s: %s, want the field %s named", q.query, r.Raw, q.field)
		}
	}

	// Someone with database access rewrites entry 2's details and recomputes everything.
	err := ledgertest.Rewrite(context.Background(), env.store, pid, 2, func(e *ledger.Entry) {
		if e.TreeIndex == 2 {
			e.Details["truth_dial_score"] = 0.99
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	v = call(t, "GET", base+"/verify", key, nil).expect(t, 200)
	if v.JSON["valid"] != true || v.str("checkpoint") == "" {
		t.Fatalf("verify after a consistent rewrite: %s, want valid (verify alone cannot tell)", v.Raw)
	}
	now = openFromREST(t, v.str("checkpoint"))
	p = call(t, "GET", fmt.Sprintf("%s/consistency?old_size=%d&new_size=%d", base, kept.Size, now.Size), key, nil).expect(t, 200)
	if err := ledger.CheckConsistency(kept, now, strSlice(p.JSON["hashes"])); !errors.Is(err, ledger.ErrRewritten) {
		t.Fatalf("a client holding the old checkpoint: %v, want ErrRewritten", err)
	}

	// A truncation: verify still valid; the ledger is now shorter than the kept checkpoint.
	if err := ledgertest.Truncate(context.Background(), env.store, pid, 3); err != nil {
		t.Fatal(err)
	}
	v = call(t, "GET", base+"/verify", key, nil).expect(t, 200)
	now = openFromREST(t, v.str("checkpoint"))
	if v.JSON["valid"] != true || now.Size != 3 {
		t.Fatalf("verify after truncation: %s", v.Raw)
	}
	call(t, "GET", base+"/consistency?old_size=5", key, nil).expect(t, 400)
	if err := ledger.CheckConsistency(kept, now, nil); !errors.Is(err, ledger.ErrTruncated) {
		t.Fatalf("a client holding the old checkpoint: %v, want ErrTruncated", err)
	}
}

func TestLedgerCheckpointOfEmptyLedger(t *testing.T) {
	pid := mustProject(t, env.adminA, map[string]any{"name": "empty ledger"})
	r := call(t, "GET", "/v1/projects/"+pid+"/ledger/checkpoint", env.adminA, nil).expect(t, 200)
	cp := openFromREST(t, string(r.Raw))
	// RFC 6962: the empty tree's root is SHA-256 of the empty string.
	if cp.Size != 0 || cp.RootHash.String() != "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" {
		t.Fatalf("empty checkpoint %+v", cp)
	}
	call(t, "GET", "/v1/projects/proj_aaaaaaaaaaaaaaaaaaaaaaaaaa/ledger/checkpoint", env.adminA, nil).expect(t, 404)
}

func strSlice(v any) []string {
	items, _ := v.([]any)
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it.(string)
	}
	return out
}
