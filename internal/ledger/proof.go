package ledger

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

// InclusionProof shows that an entry is leaf LeafIndex of the project's tree of
// TreeSize leaves with root RootHash. Hashes are standard base64, in tlog's
// RecordProof order. Checkpoint is the signed note for that tree head.
type InclusionProof struct {
	EntryID    string   `json:"entry_id"`
	EntryHash  string   `json:"entry_hash"`
	LeafIndex  int64    `json:"leaf_index"`
	TreeSize   int64    `json:"tree_size"`
	RootHash   string   `json:"root_hash"`
	Hashes     []string `json:"hashes"`
	Checkpoint string   `json:"checkpoint"`
}

// Proof returns an inclusion proof of the entry against the project's current tree
// head, in O(log n) reads of the stored tree. The entry is checked as in Get first.
func (l *Ledger) Proof(ctx context.Context, tenantID, projectID, id string) (InclusionProof, error) {
	e, err := l.Get(ctx, tenantID, projectID, id)
	if err != nil {
		return InclusionProof{}, err
	}
	size, err := l.headSize(ctx, tenantID, projectID)
	if err != nil {
		return InclusionProof{}, err
	}
	// Hashes of a tree of size n never change once written, so later appends cannot
	// disturb a proof against the size read here.
	reader := treeReader{ctx: ctx, q: l.st.DB(), st: l.st, projectID: projectID}
	root, err := tlog.TreeHash(size, reader)
	if err != nil {
		return InclusionProof{}, integrityOr(err, projectID, e.TreeIndex)
	}
	proof, err := tlog.ProveRecord(size, e.TreeIndex, reader)
	if err != nil {
		return InclusionProof{}, integrityOr(err, projectID, e.TreeIndex)
	}
	checkpoint, err := l.sign(Checkpoint{ProjectID: projectID, Size: size, RootHash: root})
	if err != nil {
		return InclusionProof{}, err
	}
	p := InclusionProof{
		EntryID: e.ID, EntryHash: e.Hash, LeafIndex: e.TreeIndex, TreeSize: size,
		RootHash: root.String(), Hashes: encodeHashes(proof), Checkpoint: checkpoint,
	}
	// Never hand out a proof that does not verify: that would mean the stored tree
	// disagrees with itself.
	if err := VerifyInclusion(p, e.Hash); err != nil {
		return InclusionProof{}, &IntegrityError{ProjectID: projectID, Index: e.TreeIndex, Reason: "stored merkle tree does not prove the entry"}
	}
	return p, nil
}

// VerifyInclusion checks that the entry whose hex hash is entryHash is leaf
// p.LeafIndex of the tree of p.TreeSize leaves with root p.RootHash. It does not check
// p.Checkpoint's signature: use OpenCheckpoint and compare its root for that.
func VerifyInclusion(p InclusionProof, entryHash string) error {
	leaf, err := LeafHash(entryHash)
	if err != nil {
		return err
	}
	root, err := tlog.ParseHash(p.RootHash)
	if err != nil {
		return fmt.Errorf("ledger: proof root: %w", err)
	}
	proof, err := decodeHashes(p.Hashes)
	if err != nil {
		return err
	}
	if err := tlog.CheckRecord(proof, p.TreeSize, root, p.LeafIndex, leaf); err != nil {
		return fmt.Errorf("ledger: inclusion proof does not verify: %w", err)
	}
	return nil
}

// integrityOr reports a missing or malformed stored hash as an integrity failure.
func integrityOr(err error, projectID string, idx int64) error {
	if errors.Is(err, ErrIntegrity) {
		return &IntegrityError{ProjectID: projectID, Index: idx, Reason: "stored merkle tree is incomplete"}
	}
	return err
}
