package ledger

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// ConsistencyProof shows that the project's tree of OldSize leaves is a prefix of its
// current tree of NewSize leaves: nothing recorded before OldSize was changed since.
// A client holding an older checkpoint uses it to detect a rewritten ledger, even one
// rewritten consistently (entries, chain and tree together). Hashes are standard base64.
type ConsistencyProof struct {
	OldSize     int64    `json:"old_size"`
	NewSize     int64    `json:"new_size"`
	OldRootHash string   `json:"old_root_hash"`
	NewRootHash string   `json:"new_root_hash"`
	Hashes      []string `json:"hashes"`
	Checkpoint  string   `json:"checkpoint"` // signed note for the new tree head
}

// ConsistencyProof proves the current tree of the tenant's project extends its tree of
// oldSize leaves (1 <= oldSize <= current size).
func (l *Ledger) ConsistencyProof(ctx context.Context, tenantID, projectID string, oldSize int64) (ConsistencyProof, error) {
	var size int64
	err := l.st.DB().QueryRowContext(ctx, l.st.Rebind(`SELECT size FROM ledger_heads WHERE tenant_id = ? AND project_id = ?`),
		tenantID, projectID).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return ConsistencyProof{}, ErrNotFound
	}
	if err != nil {
		return ConsistencyProof{}, fmt.Errorf("ledger: read head: %w", err)
	}
	if oldSize < 1 || oldSize > size {
		return ConsistencyProof{}, fmt.Errorf("ledger: old size %d outside 1..%d", oldSize, size)
	}
	reader := treeReader{ctx: ctx, q: l.st.DB(), st: l.st, projectID: projectID}
	oldRoot, err := tlog.TreeHash(oldSize, reader)
	if err != nil {
		return ConsistencyProof{}, integrityOr(err, projectID, oldSize-1)
	}
	newRoot, err := tlog.TreeHash(size, reader)
	if err != nil {
		return ConsistencyProof{}, integrityOr(err, projectID, size-1)
	}
	proof, err := tlog.ProveTree(size, oldSize, reader)
	if err != nil {
		return ConsistencyProof{}, integrityOr(err, projectID, oldSize-1)
	}
	checkpoint, err := signCheckpoint(Checkpoint{ProjectID: projectID, Size: size, RootHash: newRoot}, l.signer)
	if err != nil {
		return ConsistencyProof{}, err
	}
	return ConsistencyProof{
		OldSize: oldSize, NewSize: size, OldRootHash: oldRoot.String(), NewRootHash: newRoot.String(),
		Hashes: encodeHashes(proof), Checkpoint: checkpoint,
	}, nil
}

// VerifyConsistency checks p against the root the client trusted for the old size
// (from a checkpoint it verified earlier). It fails if the ledger was rewritten.
func VerifyConsistency(p ConsistencyProof, trustedOldRoot string) error {
	oldRoot, err := tlog.ParseHash(trustedOldRoot)
	if err != nil {
		return fmt.Errorf("ledger: trusted root: %w", err)
	}
	newRoot, err := tlog.ParseHash(p.NewRootHash)
	if err != nil {
		return fmt.Errorf("ledger: proof root: %w", err)
	}
	proof := make(tlog.TreeProof, len(p.Hashes))
	for i, s := range p.Hashes {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) != tlog.HashSize {
			return fmt.Errorf("ledger: proof hash %d is malformed", i)
		}
		proof[i] = tlog.Hash(b)
	}
	if err := tlog.CheckTree(proof, p.NewSize, newRoot, p.OldSize, oldRoot); err != nil {
		return fmt.Errorf("ledger: consistency proof does not verify: %w", err)
	}
	return nil
}
