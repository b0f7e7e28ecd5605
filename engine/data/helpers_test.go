package data

import (
	"errors"
	"strings"
	"testing"
)

// readText reads an in-memory dataset.
func readText(text, format string) (*Frame, error) {
	return Read(strings.NewReader(text), int64(len(text)), format)
}

// mustRead reads an in-memory dataset that must be valid.
func mustRead(t *testing.T, text, format string) *Frame {
	t.Helper()
	f, err := readText(text, format)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return f
}

// wantCode asserts that err is a *ValidationError with the given code.
func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	_ = wantValidation(t, err, code)
}

// wantValidation asserts what wantCode does and returns the error for
// further checks.
func wantValidation(t *testing.T, err error, code string) *ValidationError {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error = %v (%T), want *ValidationError with code %q", err, err, code)
	}
	if ve.Code != code {
		t.Fatalf("code = %q (message %q), want %q", ve.Code, ve.Message, code)
	}
	if ve.Error() != ve.Message || ve.Message == "" {
		t.Fatalf("Error() = %q, want the non-empty Message %q", ve.Error(), ve.Message)
	}
	return ve
}
