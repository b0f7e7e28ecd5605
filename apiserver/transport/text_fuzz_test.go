package transport

import (
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzTextProblem: whatever a client sends as a name, the validator either refuses it or
// accepts a valid UTF-8 string with no control and no bidi formatting character (issue 17).
// `go test` runs the seeds; `go test -fuzz FuzzTextProblem ./apiserver/transport/` explores.
func FuzzTextProblem(f *testing.F) {
	for _, s := range []string{"signalling", "a\x00b", "invoice\u202Egnp.exe", "\xff\xfe", "tab\there", "line\nbreak", "\u2066isolate\u2069", "\u061C", "日本語"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, multiline bool) {
		if TextProblem(s, multiline) != "" {
			return
		}
		if !utf8.ValidString(s) {
			t.Fatalf("accepted invalid UTF-8 %q", s)
		}
		for _, r := range s {
			if unicode.Is(unicode.Bidi_Control, r) {
				t.Fatalf("accepted a bidi control in %q", s)
			}
			lineBreak := multiline && (r == '\t' || r == '\n' || r == '\r')
			if unicode.IsControl(r) && !lineBreak {
				t.Fatalf("accepted a control character in %q", s)
			}
		}
	})
}
