package resource

import (
	"net/http"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/discolab/disco/apiserver/apierror"
)

// ETag is the strong entity tag (RFC 9110, section 8.8.3) of an object's current
// version: its resourceVersion, which the API server changes on every write.
func ETag(obj client.Object) string { return `"` + obj.GetResourceVersion() + `"` }

// IfMatch is a parsed If-Match header (RFC 9110, section 13.1.1).
type IfMatch struct {
	any  bool     // "*": any current version
	tags []string // opaque tags of strong entity tags; weak ones never match
}

// ParseIfMatch reads If-Match: "*" or a comma-separated list of entity tags. It returns
// nil for an absent header.
func ParseIfMatch(h string) (*IfMatch, error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return nil, nil
	}
	if h == "*" {
		return &IfMatch{any: true}, nil
	}
	bad := apierror.Invalid("header.If-Match", `must be "*" or a list of entity tags such as "123", as sent in ETag`)
	m := &IfMatch{}
	for rest := h; ; {
		rest = strings.TrimLeft(rest, " \t")
		weak := strings.HasPrefix(rest, "W/")
		rest = strings.TrimPrefix(rest, "W/")
		if !strings.HasPrefix(rest, `"`) {
			return nil, bad
		}
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return nil, bad
		}
		tag := rest[1 : 1+end]
		if strings.ContainsFunc(tag, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
			return nil, bad
		}
		if !weak {
			m.tags = append(m.tags, tag)
		}
		rest = strings.TrimLeft(rest[2+end:], " \t")
		if rest == "" {
			return m, nil
		}
		if !strings.HasPrefix(rest, ",") {
			return nil, bad
		}
		rest = rest[1:]
	}
}

// Matches applies the strong comparison of RFC 9110, section 8.8.3.2.
func (m *IfMatch) Matches(obj client.Object) bool {
	return m == nil || m.any || slices.Contains(m.tags, obj.GetResourceVersion())
}

// PreconditionFailed answers a write whose If-Match named another version than current
// (nil when unknown): 412 precondition_failed (RFC 9110, section 13.1.1).
func PreconditionFailed(kind, id string, current client.Object) error {
	e := apierror.New(http.StatusPreconditionFailed, apierror.CodePreconditionFailed,
		"the %s has changed since the version named in If-Match; read it again and reapply your change", kind).
		With("resource", kind).With("id", id)
	if current != nil {
		e = e.With("etag", ETag(current))
	}
	return e
}

// Any reports whether the header was "*", which any current version matches.
func (m *IfMatch) Any() bool { return m != nil && m.any }
