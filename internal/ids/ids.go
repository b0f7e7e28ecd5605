// Package ids makes and checks the public identifiers of disco resources.
//
// An id is "<prefix>_<26 lowercase base32 characters>" (130 random bits). Kubernetes object
// names must be DNS labels, so the object name of a resource is its id with "_" replaced by
// "-"; ToName and FromName convert between the two.
package ids

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"strings"
)

// Prefixes of every resource kind.
const (
	Project    = "proj"
	Campaign   = "camp"
	Run        = "run"
	Claim      = "clm"
	Dataset    = "ds"
	Ledger     = "led"
	Event      = "evt"
	Request    = "req"
	User       = "usr"
	Tenant     = "ten"
	Webhook    = "whk"
	Artifact   = "art"
	APIKey     = "key"
	Client     = "cli"
	Delivery   = "dlv"
	suffixSize = 26
)

var encoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// New returns a fresh random id with the given prefix.
func New(prefix string) string {
	var b [17]byte // 136 bits; 26 base32 characters carry 130 of them
	if _, err := rand.Read(b[:]); err != nil {
		panic("ids: crypto/rand failed: " + err.Error())
	}
	return prefix + "_" + encoding.EncodeToString(b[:])[:suffixSize]
}

// Valid reports whether id is a well-formed id with the given prefix.
func Valid(prefix, id string) bool {
	rest, ok := strings.CutPrefix(id, prefix+"_")
	if !ok || len(rest) != suffixSize {
		return false
	}
	for _, c := range rest {
		base32 := c >= 'a' && c <= 'z' || c >= '2' && c <= '7'
		if !base32 {
			return false
		}
	}
	return true
}

// ToName converts an id to its Kubernetes object name.
func ToName(id string) string { return strings.Replace(id, "_", "-", 1) }

// FromName converts a Kubernetes object name back to the id.
func FromName(name string) string { return strings.Replace(name, "-", "_", 1) }

// Derive returns a deterministic id with the given prefix from its parts: the same parts
// always give the same id. Used where a restart must recreate an object, not duplicate it.
func Derive(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return prefix + "_" + encoding.EncodeToString(h.Sum(nil))[:suffixSize]
}
