package ledger

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/mod/sumdb/note"
)

// KeyName names the checkpoint signing key in every signed note.
const KeyName = "disco-ledger"

// Key signs ledger checkpoints. VerifierKey is the public half in note's text form
// ("disco-ledger+<hash>+<base64>"), safe to publish so anyone can check checkpoints.
type Key struct {
	Signer      note.Signer
	Verifier    note.Verifier
	VerifierKey string
}

// LoadOrCreateKey reads the note signer key at path, creating a fresh ed25519 key there
// (mode 0600, directory 0700) on first use. Concurrent first uses agree on one key: the
// file is created exclusively and the loser reads the winner's key.
func LoadOrCreateKey(path string) (*Key, error) {
	if b, err := os.ReadFile(path); err == nil {
		return ParseKey(strings.TrimSpace(string(b)))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("ledger: read signing key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("ledger: create key directory: %w", err)
	}
	skey, _, err := note.GenerateKey(rand.Reader, KeyName)
	if err != nil {
		return nil, fmt.Errorf("ledger: generate signing key: %w", err)
	}
	// Write to a temporary file and link it into place: the key appears complete or
	// not at all, and link fails if another process got there first.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".ledger-key-*")
	if err != nil {
		return nil, fmt.Errorf("ledger: write signing key: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("ledger: write signing key: %w", err)
	}
	if _, err := tmp.WriteString(skey + "\n"); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("ledger: write signing key: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return nil, fmt.Errorf("ledger: write signing key: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("ledger: write signing key: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("ledger: install signing key: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ledger: read signing key: %w", err)
	}
	return ParseKey(strings.TrimSpace(string(b)))
}

// ParseKey builds a Key from a note signer key ("PRIVATE+KEY+name+hash+base64").
func ParseKey(skey string) (*Key, error) {
	signer, err := note.NewSigner(skey)
	if err != nil {
		return nil, fmt.Errorf("ledger: signing key: %w", err)
	}
	// NewSigner has checked the format; derive the public key from the seed. The
	// base64 key may itself contain "+", so split off only the four leading fields.
	fields := strings.SplitN(skey, "+", 5)
	raw, err := base64.StdEncoding.DecodeString(fields[4])
	if err != nil || len(raw) != 1+ed25519.SeedSize {
		return nil, errors.New("ledger: signing key is not an ed25519 note key")
	}
	pub := ed25519.NewKeyFromSeed(raw[1:]).Public().(ed25519.PublicKey)
	vkey, err := note.NewEd25519VerifierKey(signer.Name(), pub)
	if err != nil {
		return nil, fmt.Errorf("ledger: verifier key: %w", err)
	}
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		return nil, fmt.Errorf("ledger: verifier key: %w", err)
	}
	return &Key{Signer: publishedSigner{Signer: signer, vkey: vkey}, Verifier: verifier, VerifierKey: vkey}, nil
}

// PublishedSigner is a note signer that names its public verifier key. The Signer of a
// Key is one; a ledger built on it publishes that key (Ledger.VerifierKey), so clients
// can check checkpoints (issue 17).
type PublishedSigner interface {
	note.Signer
	VerifierKey() string
}

type publishedSigner struct {
	note.Signer
	vkey string
}

func (s publishedSigner) VerifierKey() string { return s.vkey }
