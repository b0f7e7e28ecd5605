package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// checkpointOrigin starts the origin line of every checkpoint; the project id follows.
// Each project's ledger is its own log, so a checkpoint of one project can never pass
// for another's. C2SP tlog-checkpoint: the origin SHOULD be a schema-less URL without
// spaces or "+".
const checkpointOrigin = "disco-ledger/"

// legacyCheckpointOrigin is the origin prefix of checkpoints signed before issue 17 (the
// C2SP origin form). They still open, so a client that kept one can check from it.
const legacyCheckpointOrigin = "disco ledger "

// Origin is the checkpoint origin of a project's ledger.
func Origin(projectID string) string { return checkpointOrigin + projectID }

// emptyRoot is the root hash of the empty tree, SHA-256 of the empty string (RFC 6962
// section 2.1). tlog.TreeHash answers the zero hash for it, so roots go through treeRoot.
var emptyRoot = tlog.Hash(sha256.Sum256(nil))

// treeRoot is the RFC 6962 root of the first n leaves of r.
func treeRoot(n int64, r tlog.HashReader) (tlog.Hash, error) {
	if n == 0 {
		return emptyRoot, nil
	}
	return tlog.TreeHash(n, r)
}

// Checkpoint is a signed tree head of one project.
type Checkpoint struct {
	ProjectID string
	Size      int64
	RootHash  tlog.Hash
}

// text is the note body in the C2SP tlog-checkpoint form: origin, tree size, base64
// root hash, each on its own line.
func (c Checkpoint) text() string {
	return fmt.Sprintf("%s\n%d\n%s\n", Origin(c.ProjectID), c.Size, c.RootHash)
}

// sign returns the signed note text for c (C2SP signed-note), signed by the ledger's key.
func (l *Ledger) sign(c Checkpoint) (string, error) {
	b, err := note.Sign(&note.Note{Text: c.text()}, l.signer)
	if err != nil {
		return "", fmt.Errorf("ledger: sign checkpoint: %w", err)
	}
	return string(b), nil
}

// Checkpoint returns the signed checkpoint of the tenant's project at its current size,
// the root computed from the stored tree in O(log n) reads. A project without entries has
// the empty tree's checkpoint. Verify recomputes the tree from the entries instead.
func (l *Ledger) Checkpoint(ctx context.Context, tenantID, projectID string) (Checkpoint, string, error) {
	size, err := l.headSize(ctx, tenantID, projectID)
	if errors.Is(err, ErrNotFound) {
		size, err = 0, nil
	}
	if err != nil {
		return Checkpoint{}, "", err
	}
	root, err := treeRoot(size, treeReader{ctx: ctx, q: l.st.DB(), st: l.st, projectID: projectID})
	if err != nil {
		return Checkpoint{}, "", integrityOr(err, projectID, size-1)
	}
	c := Checkpoint{ProjectID: projectID, Size: size, RootHash: root}
	signed, err := l.sign(c)
	return c, signed, err
}

// headSize reads the number of entries of the tenant's project; ErrNotFound when the
// project has none.
func (l *Ledger) headSize(ctx context.Context, tenantID, projectID string) (int64, error) {
	var size int64
	err := l.st.DB().QueryRowContext(ctx, l.st.Rebind(`SELECT size FROM ledger_heads WHERE tenant_id = ? AND project_id = ?`),
		tenantID, projectID).Scan(&size)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("ledger: read head: %w", err)
	}
	return size, nil
}

// OpenCheckpoint verifies a signed checkpoint with verifier and returns what it states.
// Other signatures on the note (a witness's cosignature) are ignored.
func OpenCheckpoint(signed string, verifier note.Verifier) (Checkpoint, error) {
	n, err := note.Open([]byte(signed), note.VerifierList(verifier))
	if err != nil {
		var unverified *note.UnverifiedNoteError
		if errors.As(err, &unverified) {
			return Checkpoint{}, fmt.Errorf("ledger: the checkpoint carries no valid signature by %s+%08x",
				verifier.Name(), verifier.KeyHash())
		}
		return Checkpoint{}, fmt.Errorf("ledger: checkpoint signature: %w", err)
	}
	return ParseCheckpoint(n.Text)
}

// ParseCheckpoint reads a checkpoint's note text without checking any signature. C2SP
// tlog-checkpoint: origin, decimal size without leading zeroes, base64 root hash, then
// optional non-empty extension lines, which are ignored.
func ParseCheckpoint(text string) (Checkpoint, error) {
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return Checkpoint{}, errors.New("ledger: malformed checkpoint: want origin, size and root hash lines")
	}
	var project string
	switch {
	case strings.HasPrefix(lines[0], checkpointOrigin):
		project = strings.TrimPrefix(lines[0], checkpointOrigin)
	case strings.HasPrefix(lines[0], legacyCheckpointOrigin):
		project = strings.TrimPrefix(lines[0], legacyCheckpointOrigin)
	}
	if project == "" || strings.ContainsAny(project, " +") {
		return Checkpoint{}, fmt.Errorf("ledger: malformed checkpoint: origin %q is not a disco ledger's", lines[0])
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return Checkpoint{}, errors.New("ledger: malformed checkpoint size")
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		return Checkpoint{}, errors.New("ledger: malformed checkpoint root")
	}
	for _, ext := range lines[3 : len(lines)-1] {
		if ext == "" {
			return Checkpoint{}, errors.New("ledger: malformed checkpoint: empty extension line")
		}
	}
	return Checkpoint{ProjectID: project, Size: size, RootHash: root}, nil
}

// encodeHashes renders proof hashes as standard base64.
func encodeHashes(hs []tlog.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = base64.StdEncoding.EncodeToString(h[:])
	}
	return out
}

// decodeHashes parses standard base64 proof hashes.
func decodeHashes(hs []string) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(hs))
	for i, s := range hs {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) != tlog.HashSize {
			return nil, fmt.Errorf("ledger: proof hash %d is malformed", i)
		}
		out[i] = tlog.Hash(b)
	}
	return out, nil
}

// VerifierKey is the note verifier key of the checkpoint signer ("<name>+<hash>+<base64
// key>"), to publish so anyone can check checkpoints; "" when the signer is not a
// PublishedSigner.
func (l *Ledger) VerifierKey() string {
	if p, ok := l.signer.(PublishedSigner); ok {
		return p.VerifierKey()
	}
	return ""
}
