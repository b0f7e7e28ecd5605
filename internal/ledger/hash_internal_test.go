package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"
)

// The hashed encoding is part of the ledger format: entries written today must verify
// forever. This pins it to a hand-written canonical JSON text.
func TestEntryHashIsThePinnedCanonicalEncoding(t *testing.T) {
	e := Entry{
		ID: "led_aaaaaaaaaaaaaaaaaaaaaaaaaa", TenantID: "ten_t", ProjectID: "proj_p", TreeIndex: 3,
		EventType: ClaimPromoted, ClaimID: "clm_c", RunID: "", Actor: "usr_u",
		Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 678_000_000, time.FixedZone("CET", 3600)),
		PrevHash:  GenesisHash,
	}
	details := []byte(`{"from_tier":"explore","to_tier":"validate"}`)
	canonical := `{"id":"led_aaaaaaaaaaaaaaaaaaaaaaaaaa","tenant_id":"ten_t","project_id":"proj_p","tree_index":3,` +
		`"event_type":"claim_promoted","claim_id":"clm_c","run_id":"",` +
		`"details":{"from_tier":"explore","to_tier":"validate"},"actor":"usr_u",` +
		`"timestamp":"2025-01-02T02:04:05.678Z","prev_hash":"` + GenesisHash + `"}`
	want := sha256.Sum256([]byte(canonical))
	got := entryHash(e, details)
	if got != want {
		t.Fatalf("entryHash = %s, want sha256 of\n%s\n= %s", hex.EncodeToString(got[:]), canonical, hex.EncodeToString(want[:]))
	}
	e.Actor = "usr_v"
	if entryHash(e, details) == want {
		t.Fatal("changing the actor did not change the hash")
	}
}
