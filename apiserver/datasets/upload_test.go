package datasets

import (
	"bytes"
	"strings"
	"testing"

	"github.com/discolab/disco/apiserver/apierror"
)

// The upload's checks are tested without HTTP: the metadata part and the sniffing of
// the file's declared format.

func TestParseMetadata(t *testing.T) {
	m, err := parseMetadata(strings.NewReader(`{"name":"pendulum","format":"CSV","variables":["t","x"]}`))
	if err != nil || m.Name != "pendulum" || m.Format != "csv" || len(m.Variables) != 2 {
		t.Fatalf("%+v, %v", m, err)
	}
	for _, c := range []struct {
		body, code, field string
	}{
		{`{"format":"csv"}`, apierror.CodeValidation, "body.metadata.name"},
		{`{"name":"a\u202Eb","format":"csv"}`, apierror.CodeValidation, "body.metadata.name"},
		{`{"name":"a"}`, apierror.CodeValidation, "body.metadata.format"},
		{`{"name":7,"format":"csv"}`, apierror.CodeValidation, "body.metadata.name"},
		{`{"name":`, apierror.CodeMalformedRequest, ""},
		{`{"name":"` + strings.Repeat("a", 256<<10) + `"}`, apierror.CodeValidation, "body.metadata"},
		{`{"name":"a","format":"csv","units":{"F":"kg*m/s^"}}`, apierror.CodeValidation, "body.metadata.units.F"},
		{`{"name":"a","format":"csv","units":{"a,b":"m"}}`, apierror.CodeValidation, "body.metadata.units.a,b"},
		{`{"name":"a","format":"csv","units":"m"}`, apierror.CodeValidation, "body.metadata.units"},
		{`{"name":"a","format":"csv","units":{"x":2}}`, apierror.CodeValidation, "body.metadata.units"},
	} {
		_, err := parseMetadata(strings.NewReader(c.body))
		if err == nil || err.Body.Code != c.code {
			t.Errorf("%.40s: %v, want %s", c.body, err, c.code)
			continue
		}
		if c.field == "" {
			continue
		}
		fields, _ := err.Body.Details["fields"].([]apierror.Field)
		if len(fields) == 0 || fields[0].Field != c.field {
			t.Errorf("%.40s: details %v, want field %s", c.body, err.Body.Details, c.field)
		}
	}
}

// A unit is parsed at the edge: the message names the column and shows the syntax.
func TestParseMetadataUnits(t *testing.T) {
	m, err := parseMetadata(strings.NewReader(`{"name":"a","format":"csv","units":{"F":"kg*m/s^2","t":"s"}}`))
	if err != nil || m.Units["F"] != "kg*m/s^2" || m.Units["t"] != "s" {
		t.Fatalf("%+v, %v", m, err)
	}
	_, err = parseMetadata(strings.NewReader(`{"name":"a","format":"csv","units":{"F":"kg*m/s^","t":"s"}}`))
	if err == nil || err.Body.Status != 400 {
		t.Fatalf("a bad unit gave %v, want 400", err)
	}
	for _, want := range []string{`column "F"`, `"kg*m/s^"`, "kg*m/s^2"} {
		if !strings.Contains(err.Body.Message, want) {
			t.Errorf("message %q lacks %q", err.Body.Message, want)
		}
	}
}

func TestSnifferTellsAFileFromItsDeclaredFormat(t *testing.T) {
	sniff := func(format string, data []byte) string {
		s := &sniffer{}
		// Written in small pieces, as io.Copy does, so the tail spans writes.
		for i := 0; i < len(data); i += 3 {
			_, _ = s.Write(data[i:min(i+3, len(data))])
		}
		return s.check(format, int64(len(data)))
	}
	parquet := append(append([]byte("PAR1"), bytes.Repeat([]byte{1}, 20)...), []byte("PAR1")...)
	for _, c := range []struct {
		name, format string
		data         []byte
		ok           bool
	}{
		{"csv", "csv", []byte("t,x\n0,1\n"), true},
		{"parquet", "parquet", parquet, true},
		{"empty", "csv", nil, false},
		{"parquet declared as csv", "csv", parquet, false},
		{"csv declared as parquet", "parquet", []byte("t,x\n0,1\n0,2\n"), false},
		{"binary", "csv", []byte("t,x\n\x00\x01\n"), false},
		{"not UTF-8", "csv", []byte("t,x\n\xff\xfe\n"), false},
		{"no line break in 64 KiB", "csv", bytes.Repeat([]byte("a"), sniffHead+10), false},
	} {
		if reason := sniff(c.format, c.data); (reason == "") != c.ok {
			t.Errorf("%s: reason %q, want ok %v", c.name, reason, c.ok)
		}
	}
}
