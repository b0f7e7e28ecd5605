package ledger

import (
	"context"
	"errors"
	"fmt"

	"golang.org/x/mod/sumdb/tlog"
)

var (
	// ErrSizeOutOfRange: a consistency proof was asked between sizes the ledger does not
	// have (1 <= old size <= new size <= current size).
	ErrSizeOutOfRange = errors.New("ledger: tree size out of range")
	// ErrTruncated: the ledger is now shorter than a checkpoint a client kept.
	ErrTruncated = errors.New("ledger: the ledger lost entries since the kept checkpoint")
	// ErrRewritten: the ledger's tree no longer extends a checkpoint a client kept.
	ErrRewritten = errors.New("ledger: the ledger was rewritten since the kept checkpoint")
)

// ConsistencyProof shows that the project's tree of OldSize leaves is a prefix of its
// tree of NewSize leaves: nothing recorded before OldSize was changed since.
// A client holding an older checkpoint uses it to detect a rewritten ledger, even one
// rewritten consistently (entries, chain and tree together). Hashes are standard base64,
// in RFC 6962 section 2.1.2 order. OldRootHash is what the server now has for the old
// size: a client compares against the root of the checkpoint it kept, never this one.
type ConsistencyProof struct {
	OldSize     int64    `json:"old_size"`
	NewSize     int64    `json:"new_size"`
	OldRootHash string   `json:"old_root_hash"`
	NewRootHash string   `json:"new_root_hash"`
	Hashes      []string `json:"hashes"`
	Checkpoint  string   `json:"checkpoint"` // signed note for the new tree head
}

// ConsistencyProof proves the tenant's project tree of newSize leaves extends its tree of
// oldSize leaves (1 <= oldSize <= newSize <= current size; newSize 0 means the current
// size). Sizes outside that range give an error wrapping ErrSizeOutOfRange.
func (l *Ledger) ConsistencyProof(ctx context.Context, tenantID, projectID string, oldSize, newSize int64) (ConsistencyProof, error) {
	size, err := l.headSize(ctx, tenantID, projectID)
	if err != nil {
		return ConsistencyProof{}, err
	}
	if newSize == 0 {
		newSize = size
	}
	if newSize < 1 || newSize > size {
		return ConsistencyProof{}, fmt.Errorf("%w: new size %d outside 1..%d", ErrSizeOutOfRange, newSize, size)
	}
	if oldSize < 1 || oldSize > newSize {
		return ConsistencyProof{}, fmt.Errorf("%w: old size %d outside 1..%d", ErrSizeOutOfRange, oldSize, newSize)
	}
	// Stored hashes of a tree of size n never change once written (tlog), so appends
	// racing with this read cannot disturb a proof between sizes read here.
	reader := treeReader{ctx: ctx, q: l.st.DB(), st: l.st, projectID: projectID}
	oldRoot, err := treeRoot(oldSize, reader)
	if err != nil {
		return ConsistencyProof{}, integrityOr(err, projectID, oldSize-1)
	}
	newRoot, err := treeRoot(newSize, reader)
	if err != nil {
		return ConsistencyProof{}, integrityOr(err, projectID, newSize-1)
	}
	proof, err := tlog.ProveTree(newSize, oldSize, reader)
	if err != nil {
		return ConsistencyProof{}, integrityOr(err, projectID, oldSize-1)
	}
	checkpoint, err := l.sign(Checkpoint{ProjectID: projectID, Size: newSize, RootHash: newRoot})
	if err != nil {
		return ConsistencyProof{}, err
	}
	return ConsistencyProof{
		OldSize: oldSize, NewSize: newSize, OldRootHash: oldRoot.String(), NewRootHash: newRoot.String(),
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
	return CheckConsistency(Checkpoint{Size: p.OldSize, RootHash: oldRoot}, Checkpoint{Size: p.NewSize, RootHash: newRoot}, p.Hashes)
}

// CheckConsistency checks that newer's tree extends kept's: it is not smaller, and the
// proof (hashes as served by ConsistencyProof from kept.Size to newer.Size) links the two
// roots (RFC 6962 section 2.1.2, tlog.CheckTree). Both checkpoints must already be opened
// with the ledger's verifier key. A failure wraps ErrTruncated or ErrRewritten and says
// what differs.
func CheckConsistency(kept, newer Checkpoint, proof []string) error {
	if kept.ProjectID != newer.ProjectID {
		return fmt.Errorf("ledger: the checkpoints are of different ledgers (%q and %q)", kept.ProjectID, newer.ProjectID)
	}
	switch {
	case newer.Size < kept.Size:
		return fmt.Errorf("%w: it now has %d entries, the kept checkpoint has %d (entries %d to %d are gone)",
			ErrTruncated, newer.Size, kept.Size, newer.Size, kept.Size-1)
	case kept.Size == 0:
		return nil // every tree extends the empty tree
	case newer.Size == kept.Size:
		if newer.RootHash != kept.RootHash {
			return fmt.Errorf("%w: at %d entries the root hash is now %s, the kept checkpoint has %s",
				ErrRewritten, kept.Size, newer.RootHash, kept.RootHash)
		}
		return nil
	}
	hashes, err := decodeHashes(proof)
	if err != nil {
		return err
	}
	if err := tlog.CheckTree(hashes, newer.Size, newer.RootHash, kept.Size, kept.RootHash); err != nil {
		return fmt.Errorf("%w: the tree of %d entries (root %s) does not extend the kept tree of %d entries (root %s); "+
			"some of the first %d entries were changed or removed", ErrRewritten, newer.Size, newer.RootHash, kept.Size, kept.RootHash, kept.Size)
	}
	return nil
}
