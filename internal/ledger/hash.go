package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// timestampLayout fixes the timestamp's text in the hashed encoding: UTC, milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z"

// hashedEntry is the canonical form that an entry's hash covers: every field, in this
// order, with details as their stored JSON text. Changing any stored column changes
// the hash. The field order and names are part of the ledger format: never change them.
type hashedEntry struct {
	ID        string          `json:"id"`
	TenantID  string          `json:"tenant_id"`
	ProjectID string          `json:"project_id"`
	TreeIndex int64           `json:"tree_index"`
	EventType string          `json:"event_type"`
	ClaimID   string          `json:"claim_id"`
	RunID     string          `json:"run_id"`
	Details   json.RawMessage `json:"details"`
	Actor     string          `json:"actor"`
	Timestamp string          `json:"timestamp"`
	PrevHash  string          `json:"prev_hash"`
}

// entryHash is the SHA-256 of e's canonical JSON encoding, details being the stored
// JSON text.
func entryHash(e Entry, details []byte) [sha256.Size]byte {
	b, err := json.Marshal(hashedEntry{
		ID: e.ID, TenantID: e.TenantID, ProjectID: e.ProjectID, TreeIndex: e.TreeIndex, EventType: e.EventType,
		ClaimID: e.ClaimID, RunID: e.RunID, Details: details, Actor: e.Actor,
		Timestamp: e.Timestamp.UTC().Format(timestampLayout), PrevHash: e.PrevHash,
	})
	if err != nil {
		// Only invalid details JSON can fail here; hash that text verbatim so the entry
		// simply fails its check instead of crashing the reader.
		return sha256.Sum256(append([]byte("invalid details: "), details...))
	}
	return sha256.Sum256(b)
}

// LeafHash is the Merkle tree leaf of an entry: tlog's record hash of the 32 raw
// bytes of the entry's hash. entryHash is the hex "hash" field.
func LeafHash(entryHash string) (tlog.Hash, error) {
	raw, err := hex.DecodeString(entryHash)
	if err != nil || len(raw) != sha256.Size {
		return tlog.Hash{}, errBadHash
	}
	return tlog.RecordHash(raw), nil
}

// timestampOf rebuilds a stored timestamp.
func timestampOf(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
