package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// NormalizeArgs returns a call's arguments as a compact JSON object. Models
// send arguments either as an object (OpenAI style) or as a JSON string
// holding an object (as the OpenAI API transmits them); both are accepted.
// Empty input and null mean no arguments ({}). Anything else is an error of
// type parse_error.
func NormalizeArgs(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{}`), nil
	}
	if err := checkText(raw); err != nil {
		return nil, err
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, Errorf(TypeParse, "arguments are not valid JSON: %v", err)
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return json.RawMessage(`{}`), nil
		}
		if err := checkText(raw); err != nil {
			return nil, err
		}
	}
	if raw[0] != '{' {
		return nil, Errorf(TypeParse, "arguments must be a JSON object, got %s", jsonKind(raw))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, Errorf(TypeParse, "arguments are not valid JSON: %v", err)
	}
	return buf.Bytes(), nil
}

// checkText refuses JSON text that a decoder would silently change: bytes
// that are not UTF-8 and \u escapes of unpaired UTF-16 surrogates, both of
// which become U+FFFD. Arguments are taken exactly or not at all, so that
// a file is never written with replacement characters the model did not
// send.
func checkText(raw []byte) error {
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n == 1 {
			return Errorf(TypeValidationFailed, "arguments are not valid UTF-8: byte 0x%02x at offset %d (after %q); send text as UTF-8", raw[i], i, tail(raw[:i], 20))
		}
		i += n
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && i+1 < len(raw):
			i++
			if raw[i] != 'u' {
				continue
			}
			r, ok := hex4(raw[i+1:])
			if !ok {
				continue // the JSON parser reports it
			}
			i += 4
			if !utf16.IsSurrogate(r) {
				continue
			}
			if r < 0xDC00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if lo, ok := hex4(raw[i+3:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 6
					continue
				}
			}
			return Errorf(TypeValidationFailed, "arguments hold an unpaired UTF-16 surrogate escape %s at offset %d; send text as UTF-8", raw[i-5:i+1], i-5)
		}
	}
	return nil
}

// hex4 decodes the four hexadecimal digits b starts with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// tail returns the last n bytes of b as valid text.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.ToValidUTF8(string(b), "")
}

func jsonKind(raw []byte) string {
	switch {
	case raw[0] == '[':
		return "an array"
	case raw[0] == '"':
		return "a string"
	case raw[0] == 't' || raw[0] == 'f':
		return "a boolean"
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		return "a number"
	}
	return "invalid JSON"
}

// prepare validates normalized arguments against the tool's schema, fills
// absent top-level arguments with their defaults and rewrites integral
// numbers such as 3.0 as 3, so they decode into Go integers.
func (t *Tool) prepare(args json.RawMessage) (json.RawMessage, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return nil, Errorf(TypeParse, "arguments are not valid JSON: %v", err)
	}
	if err := t.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, &Error{Type: TypeValidationFailed, Err: fmt.Errorf("invalid arguments for %s: %s", t.Name, t.describe(ve))}
		}
		return nil, Errorf(TypeValidationFailed, "invalid arguments for %s: %v", t.Name, err)
	}
	obj, _ := v.(map[string]any)
	changed := false
	for name, def := range t.defaults {
		if _, ok := obj[name]; !ok {
			d, err := jsonschema.UnmarshalJSON(bytes.NewReader(def))
			if err == nil {
				obj[name] = d
				changed = true
			}
		}
	}
	if integralNumbers(obj) || changed {
		b, err := json.Marshal(obj)
		if err != nil {
			return nil, Errorf(TypeInternal, "re-encode arguments: %v", err)
		}
		return b, nil
	}
	return args, nil
}

// integralNumbers rewrites json.Numbers with an integral value (3.0, 1e2)
// in integer form, in place, and reports whether any changed.
func integralNumbers(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if n, ok := e.(json.Number); ok {
				if i, ok := integral(n); ok {
					v[k] = i
					changed = true
				}
			} else if integralNumbers(e) {
				changed = true
			}
		}
	case []any:
		for k, e := range v {
			if n, ok := e.(json.Number); ok {
				if i, ok := integral(n); ok {
					v[k] = i
					changed = true
				}
			} else if integralNumbers(e) {
				changed = true
			}
		}
	}
	return changed
}

func integral(n json.Number) (json.Number, bool) {
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		return n, false
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok || !r.IsInt() || r.Num().BitLen() > 63 {
		return n, false
	}
	return json.Number(r.Num().String()), true
}

var printer = message.NewPrinter(language.Und)

// describe turns a validation error into sentences that name each
// offending argument and the rule it breaks, so a model can fix its call.
func (t *Tool) describe(ve *jsonschema.ValidationError) string {
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		if m := t.sentence(e); !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	walk(ve)
	return strings.Join(msgs, "; ")
}

func (t *Tool) sentence(e *jsonschema.ValidationError) string {
	at := strings.Join(e.InstanceLocation, ".")
	arg := fmt.Sprintf("argument %q", at)
	if at == "" {
		arg = "the arguments"
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		names := quoteAll(k.Missing)
		if at == "" {
			return fmt.Sprintf("missing required argument %s", names)
		}
		return fmt.Sprintf("%s is missing required property %s", arg, names)
	case *kind.AdditionalProperties:
		s := fmt.Sprintf("unknown argument %s", quoteAll(k.Properties))
		if at != "" {
			s = fmt.Sprintf("%s has unknown property %s", arg, quoteAll(k.Properties))
		} else if len(t.order) > 0 {
			s += "; the arguments are " + quoteAll(t.order)
		} else {
			s += "; this tool takes no arguments"
		}
		return s
	case *kind.Type:
		return fmt.Sprintf("%s must be %s, not %s", arg, strings.Join(k.Want, " or "), k.Got)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			b, _ := json.Marshal(w)
			want[i] = string(b)
		}
		got, _ := json.Marshal(k.Got)
		return fmt.Sprintf("%s must be one of %s, not %s", arg, strings.Join(want, ", "), got)
	case *kind.Const:
		want, _ := json.Marshal(k.Want)
		return fmt.Sprintf("%s must be %s", arg, want)
	case *kind.Minimum:
		return fmt.Sprintf("%s must be at least %s, not %s", arg, ratString(k.Want), ratString(k.Got))
	case *kind.Maximum:
		return fmt.Sprintf("%s must be at most %s, not %s", arg, ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("%s must be greater than %s, not %s", arg, ratString(k.Want), ratString(k.Got))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("%s must be less than %s, not %s", arg, ratString(k.Want), ratString(k.Got))
	case *kind.MinLength:
		return fmt.Sprintf("%s must have at least %d characters, not %d", arg, k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("%s must have at most %d characters, not %d", arg, k.Want, k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("%s must have at least %d items, not %d", arg, k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("%s must have at most %d items, not %d", arg, k.Want, k.Got)
	case *kind.Pattern:
		return fmt.Sprintf("%s must match the pattern %q", arg, k.Want)
	case *kind.FalseSchema:
		return fmt.Sprintf("%s is not allowed", arg)
	}
	return fmt.Sprintf("%s: %s", arg, e.ErrorKind.LocalizedString(printer))
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// properties reads an object schema's top-level property names in
// declared order and each property's default.
func properties(schema json.RawMessage) (names []string, defaults map[string]json.RawMessage, err error) {
	v, err := jsonx.Parse(schema)
	if err != nil {
		return nil, nil, err
	}
	if typ, _ := v.Get("type").AsString(); typ != "object" {
		return nil, nil, errors.New(`want a schema with "type":"object"`)
	}
	props := v.Get("properties")
	if props == nil {
		return nil, nil, nil
	}
	if props.Kind != jsonx.Object {
		return nil, nil, errors.New(`"properties" is not an object`)
	}
	for _, m := range props.Members {
		names = append(names, m.Key)
		if d := m.Value.Get("default"); d != nil {
			if defaults == nil {
				defaults = map[string]json.RawMessage{}
			}
			defaults[m.Key] = d.JSON()
		}
	}
	return names, defaults, nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
