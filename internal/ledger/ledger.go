// Package ledger is the Evidence Ledger: an append-only record of governance events per
// project. Every entry carries the SHA-256 of its content and of its predecessor
// (a hash chain), and is a leaf of the project's Merkle tree (golang.org/x/mod/sumdb/tlog),
// whose root is published as a checkpoint signed with an ed25519 note key.
//
// The tables live in the store's database (migration 0002_ledger). Nothing in this
// package updates or deletes a row, and database triggers refuse both, so a changed
// entry can only come from outside the service; Get, List and Verify detect it.
package ledger

import (
	"github.com/discolab/disco/internal/metrics"

	"context"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"

	"github.com/discolab/disco/internal/ids"
	"github.com/discolab/disco/internal/store"
)

// Event types recorded in the ledger.
const (
	ClaimCreated             = "claim_created"
	ClaimPromoted            = "claim_promoted"
	ClaimDemoted             = "claim_demoted"
	NegativeControlEvaluated = "negative_control_evaluated"
	PolicyEvaluated          = "policy_evaluated"
	TruthDialScoreChanged    = "truth_dial_score_changed"
	PolicyChanged            = "policy_changed" // a project's or campaign's governance settings changed
	ClaimDeleted             = "claim_deleted"  // a claim was deleted (its run, project or a user's request)
)

// GenesisHash is the prev_hash of a project's first entry.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// ActorSystem is the actor of entries the service records on its own.
const ActorSystem = "system"

var (
	// ErrNotFound: no such entry in that tenant's project.
	ErrNotFound = errors.New("ledger: entry not found")
	// ErrIntegrity: stored entries do not match their hashes, chain or tree. Errors
	// wrapping it are *IntegrityError values naming the entry.
	ErrIntegrity = errors.New("ledger: integrity check failed")
)

// IntegrityError says which entry failed which check.
type IntegrityError struct {
	ProjectID string
	Index     int64
	Reason    string
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("ledger: integrity check failed for project %s at index %d: %s", e.ProjectID, e.Index, e.Reason)
}

func (e *IntegrityError) Is(target error) bool { return target == ErrIntegrity }

// Entry is one ledger record.
type Entry struct {
	ID        string         `json:"id"`
	ProjectID string         `json:"project_id"`
	TenantID  string         `json:"-"`
	EventType string         `json:"event_type"`
	ClaimID   string         `json:"claim_id,omitempty"`
	RunID     string         `json:"run_id,omitempty"`
	Details   map[string]any `json:"details"`
	Actor     string         `json:"actor"`
	Timestamp time.Time      `json:"timestamp"`
	Hash      string         `json:"hash"`
	PrevHash  string         `json:"prev_hash"`
	TreeIndex int64          `json:"tree_index"`
}

// Ledger appends and reads entries.
type Ledger struct {
	st     *store.Store
	signer note.Signer
}

// New returns a ledger over st's database, signing checkpoints with signer (see
// LoadOrCreateKey).
func New(st *store.Store, signer note.Signer) (*Ledger, error) {
	if st == nil || signer == nil {
		return nil, errors.New("ledger: store and signer are required")
	}
	return &Ledger{st: st, signer: signer}, nil
}

// Append records e and returns it as stored: with its id, timestamp (UTC, millisecond
// precision), prev_hash, hash and tree_index assigned. TenantID, ProjectID and EventType
// are required; Actor defaults to "system". Appends to one project are serialised by a
// lock on the project's head row, so no two entries share an index or predecessor.
func (l *Ledger) Append(ctx context.Context, e Entry) (Entry, error) {
	if e.TenantID == "" || e.ProjectID == "" || e.EventType == "" {
		return Entry{}, errors.New("ledger: tenant, project and event type are required")
	}
	if e.Actor == "" {
		e.Actor = ActorSystem
	}
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	details, err := json.Marshal(e.Details)
	if err != nil {
		return Entry{}, fmt.Errorf("ledger: encode details: %w", err)
	}
	// Return the details as a later Get will decode them, not the caller's values.
	if err := json.Unmarshal(details, &e.Details); err != nil {
		return Entry{}, fmt.Errorf("ledger: decode details: %w", err)
	}
	st := l.st
	err = st.WithTx(ctx, func(tx *sql.Tx) error {
		now := st.Now()
		if _, err := tx.ExecContext(ctx, st.Rebind(`INSERT INTO ledger_heads (project_id, tenant_id, size, last_hash, updated_at)
			VALUES (?, ?, 0, ?, ?) ON CONFLICT (project_id) DO NOTHING`), e.ProjectID, e.TenantID, GenesisHash, now.UnixMilli()); err != nil {
			return fmt.Errorf("ledger: create head: %w", err)
		}
		var (
			headTenant string
			size       int64
			lastHash   string
		)
		lock := ""
		if st.Dialect() == store.Postgres {
			lock = " FOR UPDATE"
		}
		if err := tx.QueryRowContext(ctx, st.Rebind(`SELECT tenant_id, size, last_hash FROM ledger_heads WHERE project_id = ?`+lock), e.ProjectID).
			Scan(&headTenant, &size, &lastHash); err != nil {
			return fmt.Errorf("ledger: lock head: %w", err)
		}
		if headTenant != e.TenantID {
			return fmt.Errorf("ledger: project %s belongs to another tenant", e.ProjectID)
		}
		e.ID = ids.New(ids.Ledger)
		e.Timestamp = now
		e.PrevHash = lastHash
		e.TreeIndex = size
		sum := entryHash(e, details)
		e.Hash = hex.EncodeToString(sum[:])

		hashes, err := tlog.StoredHashes(size, sum[:], treeReader{ctx: ctx, q: tx, st: st, projectID: e.ProjectID})
		if err != nil {
			return fmt.Errorf("ledger: tree hashes: %w", err)
		}
		first := tlog.StoredHashIndex(0, size)
		for i, h := range hashes {
			if _, err := tx.ExecContext(ctx, st.Rebind(`INSERT INTO ledger_tree_hashes (project_id, idx, hash) VALUES (?, ?, ?)`),
				e.ProjectID, first+int64(i), h[:]); err != nil {
				return fmt.Errorf("ledger: store tree hash: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, st.Rebind(`INSERT INTO ledger_entries
			(id, tenant_id, project_id, tree_index, event_type, claim_id, run_id, details, actor, ts, prev_hash, hash)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			e.ID, e.TenantID, e.ProjectID, e.TreeIndex, e.EventType, e.ClaimID, e.RunID, string(details), e.Actor,
			e.Timestamp.UnixMilli(), e.PrevHash, e.Hash); err != nil {
			return fmt.Errorf("ledger: store entry: %w", err)
		}
		if _, err := tx.ExecContext(ctx, st.Rebind(`UPDATE ledger_heads SET size = ?, last_hash = ?, updated_at = ? WHERE project_id = ?`),
			size+1, e.Hash, now.UnixMilli(), e.ProjectID); err != nil {
			return fmt.Errorf("ledger: advance head: %w", err)
		}
		return nil
	})
	if err != nil {
		return Entry{}, err
	}
	metrics.LedgerAppends.WithLabelValues(e.EventType).Inc()
	return e, nil
}
