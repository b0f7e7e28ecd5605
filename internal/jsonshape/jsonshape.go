// Package jsonshape describes the JSON form of Go types as flat field paths, so that tests
// can check that the copies of one public shape (the engine's result, the CRD, the REST
// wire type) agree field for field (issue 16: one source per public shape, the others
// generated or checked).
package jsonshape

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
)

// Paths returns the JSON kind (boolean, integer, number, string, object, array, any) of
// every field path in t's encoding/json form. Nested struct fields are joined with ".",
// slice elements are "[]" and map values "{}": columns[].mean -> number. Embedded structs
// are flattened as encoding/json flattens them; fields named "-" or "_" are left out. A type
// below the top with its own MarshalJSON is "any" (t's own fields are listed even when t has
// one), time.Time is "string". rename, when not nil, maps each Go JSON name to the name
// compared (see Snake).
func Paths(t reflect.Type, rename func(string) string) map[string]string {
	out := map[string]string{}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		fields(t, "", rename, out, map[reflect.Type]bool{t: true})
	} else {
		walk(t, "", rename, out, map[reflect.Type]bool{})
	}
	return out
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

func walk(t reflect.Type, path string, rename func(string) string, out map[string]string, seen map[reflect.Type]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kind := kindOf(t)
	if path != "" {
		out[path] = kind
	}
	if seen[t] || (kind != "object" && kind != "array") {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		walk(t.Elem(), path+"[]", rename, out, seen)
	case reflect.Map:
		walk(t.Elem(), path+"{}", rename, out, seen)
	case reflect.Struct:
		fields(t, path, rename, out, seen)
	}
}

// fields adds the fields of struct t under path, flattening embedded structs.
func fields(t reflect.Type, path string, rename func(string) string, out map[string]string, seen map[reflect.Type]bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || f.Name == "_" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		if f.Anonymous && name == "" {
			et := f.Type
			for et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				fields(et, path, rename, out, seen)
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if rename != nil {
			name = rename(name)
		}
		if path != "" {
			name = path + "." + name
		}
		walk(f.Type, name, rename, out, seen)
	}
}

func kindOf(t reflect.Type) string {
	switch {
	case t == timeType:
		return "string"
	case t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType):
		return "any"
	case t.Implements(textType) || reflect.PointerTo(t).Implements(textType):
		return "string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // encoding/json writes []byte as base64
		}
		return "array"
	case reflect.Struct, reflect.Map:
		return "object"
	}
	return "any"
}

// Diff lists what differs between two shapes: paths only in a ("-path"), only in b
// ("+path"), and paths of different kinds ("path: kindA != kindB"), sorted. Paths in
// ignore (exact, or a prefix followed by "." "[" or "{") are skipped on both sides.
func Diff(a, b map[string]string, ignore ...string) []string {
	skip := func(p string) bool {
		for _, i := range ignore {
			if p == i || (strings.HasPrefix(p, i) && strings.ContainsRune(".[{", rune(p[len(i)]))) {
				return true
			}
		}
		return false
	}
	var out []string
	for p, k := range a {
		if skip(p) {
			continue
		}
		if kb, ok := b[p]; !ok {
			out = append(out, "-"+p)
		} else if kb != k {
			out = append(out, p+": "+k+" != "+kb)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok && !skip(p) {
			out = append(out, "+"+p)
		}
	}
	slices.Sort(out)
	return out
}

// Snake maps a Kubernetes-style JSON name to the REST contract's: runID -> run_id,
// temporalScope -> temporal_scope.
func Snake(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 && !unicode.IsUpper(rs[i-1]) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
