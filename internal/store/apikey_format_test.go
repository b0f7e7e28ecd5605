package store_test

import (
	"strings"
	"testing"

	"github.com/discolab/disco/internal/store"
)

func TestGenerateAPIKeyFormat(t *testing.T) {
	seen := map[string]bool{}
	for range 200 {
		key, hash := store.GenerateAPIKey()
		if !strings.HasPrefix(key, "disco_key_") || len(key) != len("disco_key_")+36 {
			t.Fatalf("key %q does not have the disco_key_ + 36 chars shape", key)
		}
		if !store.ValidAPIKeyFormat(key) {
			t.Fatalf("generated key %q fails its own checksum", key)
		}
		if hash != store.HashAPIKey(key) || len(hash) != 64 {
			t.Fatalf("hash %q is not the sha256 hex of the key", hash)
		}
		if seen[key] {
			t.Fatalf("duplicate key %q", key)
		}
		seen[key] = true
	}
}

func TestValidAPIKeyFormatRejects(t *testing.T) {
	key, _ := store.GenerateAPIKey()
	body := key[len("disco_key_"):]
	flip := func(s string, i int) string {
		c := byte('a')
		if s[i] == 'a' {
			c = 'b'
		}
		return s[:i] + string(c) + s[i+1:]
	}
	bad := map[string]string{
		"empty":            "",
		"wrong prefix":     "disco_kex_" + body,
		"session prefix":   "disco_session_" + body,
		"short":            key[:len(key)-1],
		"long":             key + "A",
		"changed random":   "disco_key_" + flip(body, 3),
		"changed checksum": "disco_key_" + flip(body, 33),
		"non-base62 char":  "disco_key_" + body[:5] + "-" + body[6:],
	}
	for name, s := range bad {
		if store.ValidAPIKeyFormat(s) {
			t.Errorf("%s: %q accepted", name, s)
		}
	}
}

func TestHashAPIKeyKnownValue(t *testing.T) {
	// sha256("abc")
	if got := store.HashAPIKey("abc"); got != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("HashAPIKey(abc) = %s", got)
	}
}
