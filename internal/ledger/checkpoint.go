package ledger

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// checkpointOrigin starts the first line of every checkpoint; the project id follows,
// so a checkpoint of one project can never pass for another's.
const checkpointOrigin = "disco ledger "

// Checkpoint is a signed tree head of one project.
type Checkpoint struct {
	ProjectID string
	Size      int64
	RootHash  tlog.Hash
}

// text is the note body: "disco ledger <project>\n<size>\n<base64 root>\n", the shape of
// a transparency-log checkpoint.
func (c Checkpoint) text() string {
	return fmt.Sprintf("%s%s\n%d\n%s\n", checkpointOrigin, c.ProjectID, c.Size, c.RootHash)
}

// signCheckpoint returns the signed note text for c.
func signCheckpoint(c Checkpoint, signer note.Signer) (string, error) {
	b, err := note.Sign(&note.Note{Text: c.text()}, signer)
	if err != nil {
		return "", fmt.Errorf("ledger: sign checkpoint: %w", err)
	}
	return string(b), nil
}

// OpenCheckpoint verifies a signed checkpoint with verifier and returns what it states.
func OpenCheckpoint(signed string, verifier note.Verifier) (Checkpoint, error) {
	n, err := note.Open([]byte(signed), note.VerifierList(verifier))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("ledger: checkpoint signature: %w", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) != 4 || lines[3] != "" || !strings.HasPrefix(lines[0], checkpointOrigin) {
		return Checkpoint{}, errors.New("ledger: malformed checkpoint")
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 {
		return Checkpoint{}, errors.New("ledger: malformed checkpoint size")
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		return Checkpoint{}, errors.New("ledger: malformed checkpoint root")
	}
	return Checkpoint{ProjectID: strings.TrimPrefix(lines[0], checkpointOrigin), Size: size, RootHash: root}, nil
}

// encodeHashes renders proof hashes as standard base64.
func encodeHashes(hs []tlog.Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = base64.StdEncoding.EncodeToString(h[:])
	}
	return out
}
