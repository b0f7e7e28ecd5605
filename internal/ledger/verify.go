package ledger

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// Verification is the result of recomputing a project's whole ledger.
type Verification struct {
	Valid         bool   `json:"valid"`
	Size          int64  `json:"size"`
	RootHash      string `json:"root_hash"`            // base64 Merkle root of the recomputed tree
	Checkpoint    string `json:"checkpoint,omitempty"` // signed note, only when Valid
	FirstBadIndex *int64 `json:"first_bad_index,omitempty"`
	Reason        string `json:"reason,omitempty"`
}

// Verify recomputes every entry hash and chain link of the tenant's project from the
// stored content, rebuilds the Merkle tree from those hashes and compares it with the
// stored tree and head. A valid ledger gets a freshly signed checkpoint; an invalid one
// names the first bad index and why. Errors are reserved for failures to read.
func (l *Ledger) Verify(ctx context.Context, tenantID, projectID string) (Verification, error) {
	db := l.st.DB()
	var (
		size     int64
		lastHash string
	)
	err := db.QueryRowContext(ctx, l.st.Rebind(`SELECT size, last_hash FROM ledger_heads WHERE tenant_id = ? AND project_id = ?`),
		tenantID, projectID).Scan(&size, &lastHash)
	if errors.Is(err, sql.ErrNoRows) {
		size, lastHash = 0, GenesisHash // an empty ledger is trivially valid
	} else if err != nil {
		return Verification{}, fmt.Errorf("ledger: read head: %w", err)
	}

	rows, err := db.QueryContext(ctx, l.st.Rebind(`SELECT `+entryColumns+` FROM ledger_entries
		WHERE tenant_id = ? AND project_id = ? ORDER BY tree_index`), tenantID, projectID)
	if err != nil {
		return Verification{}, fmt.Errorf("ledger: read entries: %w", err)
	}
	entries, err := scanEntries(rows)
	if err != nil {
		return Verification{}, err
	}

	stored, err := l.storedTree(ctx, projectID)
	if err != nil {
		return Verification{}, err
	}

	invalid := func(idx int64, reason string) (Verification, error) {
		return Verification{Valid: false, Size: size, FirstBadIndex: &idx, Reason: reason}, nil
	}
	var tree memoryTree
	prev := GenesisHash
	for i := range entries {
		e := &entries[i]
		idx := int64(i)
		if e.TreeIndex != idx {
			return invalid(idx, "entry missing from the chain")
		}
		if reason := e.selfCheck(); reason != "" {
			return invalid(idx, reason)
		}
		// The leaf check comes before the link check so that an entry rewritten
		// together with its hash is reported at its own index, not its successor's.
		if leaf, _ := LeafHash(e.Hash); stored[tlog.StoredHashIndex(0, idx)] != leaf {
			return invalid(idx, "entry is not the stored merkle leaf")
		}
		if e.PrevHash != prev {
			return invalid(idx, "prev_hash does not match the preceding entry")
		}
		raw, _ := hex.DecodeString(e.Hash) // selfCheck proved it is our hex sha256
		if err := tree.add(idx, raw); err != nil {
			return Verification{}, err
		}
		prev = e.Hash
	}
	n := int64(len(entries))
	if n != size {
		return invalid(min(n, size), fmt.Sprintf("head records %d entries, %d are stored", size, n))
	}
	if prev != lastHash {
		return invalid(max(n-1, 0), "head does not point at the last entry")
	}

	root, err := treeRoot(n, &tree)
	if err != nil {
		return Verification{}, err
	}
	if storedRoot, err := treeRoot(n, stored); err != nil || storedRoot != root {
		return invalid(firstDifference(tree, stored), "stored merkle tree does not match the entries")
	}
	v := Verification{Valid: true, Size: n, RootHash: root.String()}
	if v.Checkpoint, err = l.sign(Checkpoint{ProjectID: projectID, Size: n, RootHash: root}); err != nil {
		return Verification{}, err
	}
	return v, nil
}

// storedHashes is a project's whole stored tree, read at once for Verify.
type storedHashes map[int64]tlog.Hash

func (m storedHashes) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, idx := range indexes {
		h, ok := m[idx]
		if !ok {
			return nil, fmt.Errorf("%w: tree hash %d is missing", ErrIntegrity, idx)
		}
		out[i] = h
	}
	return out, nil
}

func (l *Ledger) storedTree(ctx context.Context, projectID string) (storedHashes, error) {
	rows, err := l.st.DB().QueryContext(ctx, l.st.Rebind(`SELECT idx, hash FROM ledger_tree_hashes WHERE project_id = ?`), projectID)
	if err != nil {
		return nil, fmt.Errorf("ledger: read tree: %w", err)
	}
	defer rows.Close()
	out := storedHashes{}
	for rows.Next() {
		var (
			idx int64
			b   []byte
		)
		if err := rows.Scan(&idx, &b); err != nil {
			return nil, fmt.Errorf("ledger: read tree: %w", err)
		}
		if len(b) == tlog.HashSize { // a malformed hash stays missing and fails the checks
			out[idx] = tlog.Hash(b)
		}
	}
	return out, rows.Err()
}

// firstDifference returns the first leaf under the first stored tree node that differs
// from the recomputed tree.
func firstDifference(tree memoryTree, stored storedHashes) int64 {
	for i, h := range tree {
		if got, ok := stored[int64(i)]; !ok || got != h {
			level, n := tlog.SplitStoredHashIndex(int64(i))
			return n << level
		}
	}
	return 0
}
