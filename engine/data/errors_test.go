package data

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDatasetEmpty(t *testing.T) {
	for name, text := range map[string]string{
		"nothing":     "",
		"blank lines": "\n\n",
		"header only": "a,b,c\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := readText(text, "csv")
			wantCode(t, err, CodeDatasetEmpty)
		})
	}
	_, err := (&Frame{}).Matrix(nil)
	if err != nil {
		t.Errorf("Matrix(nil) on empty frame: %v", err)
	}
	wantCode(t, (&Frame{}).Validate(Requirements{}), CodeDatasetEmpty)
}

func TestDatasetUnreadable(t *testing.T) {
	garbage := string([]byte{0x89, 'P', 'N', 'G', 0, 0, 0xff, 0xfe, 0x01, '\n', 0x80, 0x81})
	_, err := readText(garbage, "csv")
	wantCode(t, err, CodeDatasetUnreadable)

	_, err = readText("a,b\n1,\xff\xfe\n", "csv")
	wantCode(t, err, CodeDatasetUnreadable)

	// Invalid UTF-8 far beyond the sniffed sample is caught while parsing,
	// and the message names the line.
	text := "a,b\n" + strings.Repeat("1,2\n", 40000) + "3,\xc3\x28\n"
	_, err = readText(text, "csv")
	ve := wantValidation(t, err, CodeDatasetUnreadable)
	if ve.Row != 40002 || ve.Column != "b" || !strings.Contains(ve.Message, "line 40002") {
		t.Errorf("error = %+v, want line 40002 column b", ve)
	}

	_, err = Load(filepath.Join(t.TempDir(), "missing.csv"), "")
	wantCode(t, err, CodeDatasetUnreadable)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(err, fs.ErrNotExist) = false for %v", err)
	}
}

func TestDatasetFormatUnsupported(t *testing.T) {
	_, err := readText("a\n1\n", "xlsx")
	wantCode(t, err, CodeDatasetFormatUnsupported)

	path := filepath.Join(t.TempDir(), "data.json")
	if err := os.WriteFile(path, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path, "")
	if ve := wantValidation(t, err, CodeDatasetFormatUnsupported); !strings.Contains(ve.Message, ".json") {
		t.Errorf("message %q should name the extension", ve.Message)
	}
	_, err = Load(path, "feather")
	wantCode(t, err, CodeDatasetFormatUnsupported)
}

func TestRowLengthMismatch(t *testing.T) {
	_, err := readText("a,b,c\n1,2,3\n4,5,6\n7,8\n", "csv")
	ve := wantValidation(t, err, CodeRowLengthMismatch)
	if ve.Row != 4 || !strings.Contains(ve.Message, "line 4 has 2 fields but the header has 3") {
		t.Errorf("error = %+v, want line 4 named", ve)
	}
}

func TestColumnDuplicate(t *testing.T) {
	_, err := readText("a,b,a\n1,2,3\n", "csv")
	if ve := wantValidation(t, err, CodeColumnDuplicate); ve.Column != "a" {
		t.Errorf("Column = %q, want a", ve.Column)
	}
}

// tenRows is a valid frame: x = 0..9, y = 2x+1, s text, k constant,
// m with a gap, inf with an infinity.
func tenRows(t *testing.T) *Frame {
	t.Helper()
	var b strings.Builder
	b.WriteString("x,y,s,k,m,inf\n")
	for i := range 10 {
		n := strconv.Itoa(i)
		m, inf := n, n
		if i == 6 {
			m, inf = "", "Inf"
		}
		b.WriteString(strings.Join([]string{n, strconv.Itoa(2*i + 1), "t" + n, "5", m, inf}, ","))
		b.WriteString("\n")
	}
	return mustRead(t, b.String(), "csv")
}

func TestValidate(t *testing.T) {
	f := tenRows(t)
	cases := []struct {
		name   string
		req    Requirements
		code   string // "" means valid
		column string
		row    int
	}{
		{"valid", Requirements{Targets: []string{"y"}, Features: []string{"x"}}, "", "", 0},
		{"unknown target", Requirements{Targets: []string{"z"}}, CodeColumnUnknown, "z", 0},
		{"unknown feature", Requirements{Targets: []string{"y"}, Features: []string{"x", "w"}}, CodeColumnUnknown, "w", 0},
		{"text target", Requirements{Targets: []string{"s"}, Features: []string{"x"}}, CodeColumnNonNumeric, "s", 0},
		{"too few rows", Requirements{Targets: []string{"y"}, Features: []string{"x"}, MinRows: 11}, CodeTooFewRows, "", 0},
		{"missing value", Requirements{Targets: []string{"y"}, Features: []string{"x", "m"}}, CodeValueNotFinite, "m", 7},
		{"infinite value", Requirements{Features: []string{"x", "inf"}}, CodeValueNotFinite, "inf", 7},
		{"constant", Requirements{Targets: []string{"y"}, Features: []string{"x", "k"}}, CodeColumnConstant, "k", 0},
		// Default features are every numeric non-target: x, k, m, inf;
		// the first problem in column order is m's gap.
		{"default features", Requirements{Targets: []string{"y"}}, CodeValueNotFinite, "m", 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := f.Validate(tc.req)
			if tc.code == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			ve := wantValidation(t, err, tc.code)
			if ve.Column != tc.column || ve.Row != tc.row {
				t.Errorf("Column, Row = %q, %d; want %q, %d", ve.Column, ve.Row, tc.column, tc.row)
			}
			if tc.column != "" && !strings.Contains(ve.Message, `"`+tc.column+`"`) {
				t.Errorf("message %q should name column %q", ve.Message, tc.column)
			}
		})
	}
}

func TestValidateDefaultMinRows(t *testing.T) {
	f := mustRead(t, "x,y\n1,2\n2,3\n3,5\n", "csv")
	wantCode(t, f.Validate(Requirements{Targets: []string{"y"}}), CodeTooFewRows)
	if err := f.Validate(Requirements{Targets: []string{"y"}, MinRows: 3}); err != nil {
		t.Errorf("MinRows 3: %v", err)
	}
}

func TestValidateNoFeatures(t *testing.T) {
	f := mustRead(t, "y,s\n1,a\n2,b\n", "csv")
	wantCode(t, f.Validate(Requirements{Targets: []string{"y"}, MinRows: 1}), CodeColumnNonNumeric)
	f = mustRead(t, "s\na\nb\n", "csv")
	wantCode(t, f.Validate(Requirements{MinRows: 1}), CodeColumnNonNumeric)
}
