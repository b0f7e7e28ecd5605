package transport

import (
	"fmt"
	"net/http"
	"unicode"
	"unicode/utf8"

	"github.com/discolab/disco/apiserver/apierror"
)

// TextField is one human-readable string of a request: a name shown in lists and
// consoles, or a free-text description.
type TextField struct {
	field     string // path of the field in the request, e.g. body.name
	value     string
	multiline bool // descriptions may hold tabs and line breaks; names may not
}

// NameText is a name: one line of visible text.
func NameText(field, value string) TextField { return TextField{field: field, value: value} }

// ProseText is a description: text that may span lines.
func ProseText(field, value string) TextField {
	return TextField{field: field, value: value, multiline: true}
}

// CheckText refuses human-readable strings that do not display as what they are (issue
// 17): invalid UTF-8; C0 and C1 control characters (unicode.IsControl: U+0000–U+001F,
// U+007F–U+009F), of which a description may hold only tab, line feed and carriage
// return; and the bidirectional formatting characters of Unicode's Bidi_Control property
// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069; UAX #9), which reorder how the
// text around them is shown (the "Trojan Source" attack, CVE-2021-42574). Every bad
// field is listed in details.fields of one 400 validation_error; nil when all are fine.
func CheckText(fields ...TextField) error {
	var bad []apierror.Field
	for _, f := range fields {
		if msg := TextProblem(f.value, f.multiline); msg != "" {
			bad = append(bad, apierror.Field{Field: f.field, Message: msg})
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return apierror.New(http.StatusBadRequest, apierror.CodeValidation, "%s: %s", bad[0].Field, bad[0].Message).With("fields", bad)
}

// TextProblem says what is wrong with s, or "" when nothing is.
func TextProblem(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	for i, r := range s {
		switch {
		case multiline && (r == '\t' || r == '\n' || r == '\r'):
		case unicode.IsControl(r):
			return fmt.Sprintf("must not contain control characters (U+%04X at byte %d)", r, i)
		case unicode.Is(unicode.Bidi_Control, r):
			return fmt.Sprintf("must not contain bidirectional formatting characters (U+%04X at byte %d)", r, i)
		}
	}
	return ""
}
