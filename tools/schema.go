package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFor derives the JSON Schema of a tool's arguments from the struct
// type Args, with properties in field declaration order.
//
// The property name comes from the json tag. A field whose json tag has
// omitempty (or omitzero) is optional; every other field is required. These
// struct tags add to the property:
//
//	jsonschema:"…"   the description shown to the model
//	enum:"a,b,c"     the allowed values (comma separated)
//	default:"…"      the value used when the argument is absent
//	minimum:"1"      the smallest allowed number
//	maximum:"1000"   the largest allowed number
//
// Supported field types are bool, integers, floats, string, slices and
// arrays of supported types, maps with string keys, nested structs and
// pointers to any of these. Interfaces, functions, channels, complex
// numbers and []byte are rejected.
func SchemaFor[Args any]() (json.RawMessage, error) {
	return schemaForType(reflect.TypeFor[Args]())
}

func schemaForType(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("arguments type %v is not a struct", t)
	}
	if err := checkType(t, t.String(), map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, fmt.Errorf("derive schema of %v: %w", t, err)
	}
	if err := applyTags(t, s); err != nil {
		return nil, err
	}
	nonNull(s)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode schema of %v: %w", t, err)
	}
	return b, nil
}

var timeType = reflect.TypeFor[time.Time]()

// checkType rejects the field types a tool argument cannot have, naming
// the offending field.
func checkType(t reflect.Type, where string, seen map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return fmt.Errorf("%s: unsupported type %v (use string)", where, t)
		}
		return checkType(t.Elem(), where+"[]", seen)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("%s: unsupported map key type %v (want string)", where, t.Key())
		}
		return checkType(t.Elem(), where+"[key]", seen)
	case reflect.Struct:
		if t == timeType {
			return nil
		}
		if seen[t] {
			return fmt.Errorf("%s: recursive type %v", where, t)
		}
		seen[t] = true
		defer delete(seen, t)
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous || !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			if err := checkType(f.Type, where+"."+f.Name, seen); err != nil {
				return err
			}
		}
		return nil
	default:
		return fmt.Errorf("%s: unsupported type %v", where, t)
	}
}

// applyTags copies the enum, default, minimum and maximum tags of t's
// fields (recursively) onto the derived schema s.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return applyTags(t.Elem(), s.Items)
		}
		return nil
	case reflect.Map:
		if s.AdditionalProperties != nil {
			return applyTags(t.Elem(), s.AdditionalProperties)
		}
		return nil
	case reflect.Struct:
	default:
		return nil
	}
	if t == timeType {
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name := jsonName(f)
		p := s.Properties[name]
		if name == "" || p == nil {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if v, ok := f.Tag.Lookup("enum"); ok {
			for _, e := range strings.Split(v, ",") {
				ev, err := tagValue(ft, strings.TrimSpace(e))
				if err != nil {
					return fmt.Errorf("%v.%s: enum tag: %w", t, f.Name, err)
				}
				p.Enum = append(p.Enum, ev)
			}
		}
		if v, ok := f.Tag.Lookup("default"); ok {
			dv, err := tagValue(ft, v)
			if err != nil {
				return fmt.Errorf("%v.%s: default tag: %w", t, f.Name, err)
			}
			b, _ := json.Marshal(dv)
			p.Default = b
		}
		for _, k := range []struct {
			tag string
			dst **float64
		}{{"minimum", &p.Minimum}, {"maximum", &p.Maximum}} {
			if v, ok := f.Tag.Lookup(k.tag); ok {
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return fmt.Errorf("%v.%s: %s tag %q is not a number", t, f.Name, k.tag, v)
				}
				*k.dst = &n
			}
		}
		if err := applyTags(f.Type, p); err != nil {
			return err
		}
	}
	return nil
}

// tagValue parses a tag's text as a value of the field's type.
func tagValue(t reflect.Type, s string) (any, error) {
	switch t.Kind() {
	case reflect.String:
		return s, nil
	case reflect.Bool:
		return strconv.ParseBool(s)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.ParseInt(s, 10, 64)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.ParseUint(s, 10, 64)
	case reflect.Float32, reflect.Float64:
		return strconv.ParseFloat(s, 64)
	}
	return nil, fmt.Errorf("not supported on %v fields", t)
}

func jsonName(f reflect.StructField) string {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return ""
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return f.Name
}

// nonNull drops the "null" alternative the library adds for slices and
// pointers: a tool argument is either given or absent, never null.
func nonNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	nonNull(s.Items)
	nonNull(s.AdditionalProperties)
	for _, p := range s.Properties {
		nonNull(p)
	}
}
