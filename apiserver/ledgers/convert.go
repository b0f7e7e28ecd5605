package ledgers

import (
	"time"

	"github.com/discolab/disco/internal/ledger"
)

type LedgerEntry struct {
	ID        string         `json:"id" example:"led_abcdefghijklmnopqrstuvwxyz"`
	ProjectID string         `json:"project_id"`
	EventType string         `json:"event_type" doc:"claim_created, claim_promoted, claim_demoted, negative_control_evaluated, policy_evaluated, policy_changed (governance settings, details before and after), truth_dial_score_changed."`
	ClaimID   string         `json:"claim_id,omitempty"`
	RunID     string         `json:"run_id,omitempty"`
	Details   map[string]any `json:"details"`
	Actor     string         `json:"actor" doc:"system, or the user or API key that acted."`
	Timestamp time.Time      `json:"timestamp"`
	Hash      string         `json:"hash" doc:"Hex SHA-256 of the entry."`
	PrevHash  string         `json:"prev_hash" doc:"Hash of the previous entry of the project (zeros for the first)."`
	TreeIndex int64          `json:"tree_index" doc:"Leaf index in the project's Merkle tree."`
}

func entryOf(e ledger.Entry) LedgerEntry {
	d := e.Details
	if d == nil {
		d = map[string]any{}
	}
	return LedgerEntry{
		ID: e.ID, ProjectID: e.ProjectID, EventType: e.EventType, ClaimID: e.ClaimID, RunID: e.RunID, Details: d,
		Actor: e.Actor, Timestamp: e.Timestamp.UTC(), Hash: e.Hash, PrevHash: e.PrevHash, TreeIndex: e.TreeIndex,
	}
}

type LedgerVerification struct {
	ProjectID     string    `json:"project_id"`
	Valid         bool      `json:"valid"`
	Size          int64     `json:"size" doc:"Number of entries."`
	RootHash      string    `json:"root_hash" doc:"Base64 Merkle root of the recomputed tree."`
	Checkpoint    string    `json:"checkpoint,omitempty" doc:"C2SP checkpoint (signed note, golang.org/x/mod/sumdb/note) for the tree head; only when valid."`
	FirstBadIndex *int64    `json:"first_bad_index,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	VerifiedAt    time.Time `json:"verified_at"`
}

type ledgerNote struct {
	ContentType  string `header:"Content-Type"`
	CacheControl string `header:"Cache-Control"`
	Body         []byte
}

// LedgerVerifierKey is the public half of the checkpoint signing key.
type LedgerVerifierKey struct {
	VerifierKey string `json:"verifier_key" doc:"Note verifier key: <name>+<hex key hash>+<base64 Ed25519 public key>." example:"disco-ledger+1f2e3d4c+AeWdQqTbQc0Yl1hC7VbY3QnZs3Q3rHx2wz0JcQmRZ1jA"`
	KeyName     string `json:"key_name" doc:"Name on the checkpoints' signature lines."`
	Origin      string `json:"origin" doc:"Checkpoint origin line of a project's ledger, with {project_id} standing for the project id." example:"disco-ledger/{project_id}"`
}
