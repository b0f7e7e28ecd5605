package blob

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxKeyLen is S3's limit, so a key valid here is valid in every backend.
const maxKeyLen = 1024

// ValidateKey refuses keys that could leave the bucket's directory or mean different
// things in different backends: empty, absolute, with "." or ".." segments, empty
// segments ("a//b", trailing "/"), backslashes, control characters or invalid UTF-8.
func ValidateKey(key string) error {
	bad := func(why string) error { return fmt.Errorf("%w %q: %s", ErrInvalidKey, key, why) }
	switch {
	case key == "":
		return bad("empty")
	case len(key) > maxKeyLen:
		return bad("longer than 1024 bytes")
	case !utf8.ValidString(key):
		return bad("not UTF-8")
	case strings.HasPrefix(key, "/"):
		return bad("absolute")
	case strings.Contains(key, `\`):
		return bad("contains a backslash")
	case len(key) >= 2 && key[1] == ':':
		return bad("looks like a drive path")
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return bad("contains a control character")
		}
	}
	for _, seg := range strings.Split(key, "/") {
		switch seg {
		case "":
			return bad("empty path segment")
		case ".", "..":
			return bad("relative path segment")
		}
	}
	return nil
}
