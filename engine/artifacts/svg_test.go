package artifacts

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
)

// element is a parsed XML element with its text and attributes.
type element struct {
	name  string
	attrs map[string]string
	text  string
}

// parseSVG checks that doc is well-formed XML with an <svg> root and returns
// every element in document order.
func parseSVG(t *testing.T, doc []byte) []element {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var out []element
	var stack []int
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, doc)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if len(out) == 0 && tok.Name.Local != "svg" {
				t.Fatalf("root element is <%s>, want <svg>", tok.Name.Local)
			}
			e := element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
			stack = append(stack, len(out)-1)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				out[stack[len(stack)-1]].text += string(tok)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("empty document")
	}
	return out
}

// texts returns the text content of every element with the given name.
func texts(elems []element, name string) []string {
	var out []string
	for _, e := range elems {
		if e.name == name {
			out = append(out, strings.TrimSpace(e.text))
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
