package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"strings"
)

// API keys look like "disco_key_" + 30 random base62 characters + a 6-character base62
// CRC32 (IEEE) of those 30 characters. The checksum lets the facade reject mistyped or
// made-up keys without a database lookup, and lets secret scanners recognise real keys.
const (
	APIKeyPrefix     = "disco_key_"
	apiKeyRandomLen  = 30
	apiKeyChecksum   = 6
	apiKeyLen        = len(APIKeyPrefix) + apiKeyRandomLen + apiKeyChecksum
	apiKeyDisplayLen = 12
	base62Alphabet   = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
)

// GenerateAPIKey returns a new random key and the hash to store for it.
func GenerateAPIKey() (plaintext, hash string) {
	var b strings.Builder
	b.Grow(apiKeyLen)
	b.WriteString(APIKeyPrefix)
	random := make([]byte, apiKeyRandomLen)
	max := big.NewInt(int64(len(base62Alphabet)))
	for i := range random {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("store: crypto/rand failed: " + err.Error())
		}
		random[i] = base62Alphabet[n.Int64()]
	}
	b.Write(random)
	b.WriteString(apiKeyChecksumOf(random))
	plaintext = b.String()
	return plaintext, HashAPIKey(plaintext)
}

// ValidAPIKeyFormat reports whether s has the prefix, length, alphabet and checksum of
// a key made by GenerateAPIKey.
func ValidAPIKeyFormat(s string) bool {
	if len(s) != apiKeyLen || !strings.HasPrefix(s, APIKeyPrefix) {
		return false
	}
	body := s[len(APIKeyPrefix):]
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(base62Alphabet, body[i]) < 0 {
			return false
		}
	}
	random, sum := body[:apiKeyRandomLen], body[apiKeyRandomLen:]
	return apiKeyChecksumOf([]byte(random)) == sum
}

// HashAPIKey is the lowercase hex SHA-256 of a key: the only form that is stored.
func HashAPIKey(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// APIKeyDisplayPrefix is the part of a key that may be shown again after creation.
func APIKeyDisplayPrefix(plaintext string) string {
	if len(plaintext) < apiKeyDisplayLen {
		return plaintext
	}
	return plaintext[:apiKeyDisplayLen]
}

// apiKeyChecksumOf encodes the CRC32 of random as exactly six base62 digits
// (62^6 > 2^32, so every checksum fits), most significant first.
func apiKeyChecksumOf(random []byte) string {
	n := uint64(crc32.ChecksumIEEE(random))
	var out [apiKeyChecksum]byte
	for i := apiKeyChecksum - 1; i >= 0; i-- {
		out[i] = base62Alphabet[n%62]
		n /= 62
	}
	return string(out[:])
}
