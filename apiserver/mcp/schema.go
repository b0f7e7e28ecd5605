package mcp

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSchema is the JSON Schema of T, inferred by jsonschema-go from the json tags (fields
// without omitempty are required; `jsonschema` tags are descriptions), then completed with
// the facade's validation tags on the same Go types (enum, doc, minimum, maximum,
// minLength, maxLength, maxItems), so a tool accepts what the REST operation accepts.
func inputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: input schema of %T: %v", *new(T), err))
	}
	applyTags(s, reflect.TypeFor[T]())
	return s
}

func applyTags(s *jsonschema.Schema, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		applyTags(s.Items, t.Elem())
		return
	case reflect.Struct:
	default:
		return
	}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		p := s.Properties[name]
		if p == nil {
			continue
		}
		if v, ok := f.Tag.Lookup("enum"); ok && v != "" {
			for _, e := range strings.Split(v, ",") {
				p.Enum = append(p.Enum, e)
			}
		}
		if v := f.Tag.Get("doc"); v != "" && p.Description == "" {
			p.Description = v
		}
		if v, err := strconv.ParseFloat(f.Tag.Get("minimum"), 64); err == nil {
			p.Minimum = &v
		}
		if v, err := strconv.ParseFloat(f.Tag.Get("maximum"), 64); err == nil {
			p.Maximum = &v
		}
		if v, err := strconv.Atoi(f.Tag.Get("minLength")); err == nil {
			p.MinLength = &v
		}
		if v, err := strconv.Atoi(f.Tag.Get("maxLength")); err == nil {
			p.MaxLength = &v
		}
		if v, err := strconv.Atoi(f.Tag.Get("maxItems")); err == nil {
			p.MaxItems = &v
		}
		applyTags(p, f.Type)
	}
}
