package grammar

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// SchemaOptions tunes the grammar generated for a JSON Schema. The zero
// value sets no caps beyond the schema's own.
type SchemaOptions struct {
	// MaxStringLength caps the length of strings, in characters (an
	// escape sequence counts as one), where the schema allows longer or
	// sets no maxLength. 0 means no cap.
	MaxStringLength int
	// MaxItems caps the elements of arrays and the members of free-form
	// objects where the schema allows more. 0 means no cap.
	MaxItems int
}

// Grammar is a GBNF grammar generated from a JSON Schema.
type Grammar struct {
	GBNF string
	Root string // the start rule, always "root"
	// Warnings lists schema keywords the grammar does not enforce, each
	// prefixed with the JSON pointer of the schema that holds it. A grammar
	// with warnings may accept values the schema rejects.
	Warnings []string
}

// ErrSchema is wrapped by errors about schemas no grammar can express.
var ErrSchema = errors.New("grammar: invalid schema")

// errInternal marks a generated grammar our own GBNF parser rejects: a bug.
var errInternal = errors.New("grammar: internal error")

// Limits of the number grammar, which keep a model from writing digits
// forever: integers have at most maxIntDigits digits, fractions at most
// maxFracDigits, exponents at most maxExpDigits.
const (
	maxIntDigits  = 16
	maxFracDigits = 16
	maxExpDigits  = 3
	maxIndent     = 20
)

// FromSchema returns the grammar of JSON values schema accepts, written
// with bounded whitespace: at most one space, or a newline and up to 20
// spaces or tabs of indentation, after '{', '[', ':' and ',' and before
// '}' and ']'; nowhere else.
//
// The grammar deliberately narrows the schema in ways that never reject a
// value a model needs to write: object members appear in declared order;
// objects with properties are closed (no additional properties) unless the
// schema says otherwise; integers are written without fraction or
// exponent; numbers have at most 16 integer and fraction digits and 3
// exponent digits; keys and enum values use their canonical JSON spelling.
func FromSchema(schema json.RawMessage, opts SchemaOptions) (*Grammar, error) {
	s, err := jsonx.Parse(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSchema, err)
	}
	b := newBuilder(opts, false)
	b.root = s
	body, err := b.schema(s, "", "root")
	if err != nil {
		return nil, err
	}
	root := "root"
	if body != root {
		if _, taken := b.bodies[root]; taken {
			// A rule built for the schema itself took the name (a nullable
			// type list): give it another one.
			n := b.reserve("root-value")
			b.define(n, b.bodies[root])
			body = rootRef.ReplaceAllString(body, "${1}"+n+"${2}")
			delete(b.bodies, root)
			b.order = slices.DeleteFunc(b.order, func(s string) bool { return s == root })
		}
		root = b.reserve(root)
		b.define(root, body)
	}
	g := &Grammar{GBNF: b.gbnf(root), Root: root, Warnings: b.warnings}
	if err := selfCheck(g.GBNF); err != nil {
		return nil, err
	}
	return g, nil
}

// rootRef matches a reference to the rule root in an expression.
var rootRef = regexp.MustCompile(`(^|[ (|])root($|[ )|?*+{])`)

func selfCheck(text string) error {
	if _, err := gbnf.Parse(text); errors.Is(err, gbnf.ErrLeftRecursive) {
		return fmt.Errorf("%w: the schema refers to itself before any value is written: %w", ErrSchema, err)
	} else if err != nil {
		return fmt.Errorf("%w: generated grammar does not parse: %w", errInternal, err)
	}
	return nil
}

// ignored keywords carry no constraint on a value.
var ignored = map[string]bool{
	"description": true, "title": true, "default": true, "examples": true, "example": true,
	"$schema": true, "$id": true, "$comment": true, "deprecated": true, "readOnly": true,
	"writeOnly": true, "optional": true, "$defs": true, "definitions": true, "strict": true,
	"contentMediaType": true, "contentEncoding": true, "$anchor": true,
}

// handled keywords are enforced wherever they apply.
var handled = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true,
	"enum": true, "const": true, "anyOf": true, "oneOf": true, "items": true, "prefixItems": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true, "format": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true,
	"nullable": true, "$ref": true, "allOf": true, "minProperties": true, "maxProperties": true,
}

var allTypes = []string{"object", "array", "string", "number", "integer", "boolean", "null"}

// schema returns a GBNF expression for the values s accepts. name is the
// rule name to use for s's own rules, path its JSON pointer.
func (b *builder) schema(s *jsonx.Value, path, name string) (string, error) {
	switch {
	case s == nil:
		return b.any(), nil
	case s.Kind == jsonx.Bool:
		if !s.Bool {
			return "", fmt.Errorf("%w: %s: schema false accepts nothing", ErrSchema, orRoot(path))
		}
		return b.any(), nil
	case s.Kind != jsonx.Object:
		return "", fmt.Errorf("%w: %s: a schema must be an object or a boolean", ErrSchema, orRoot(path))
	}
	for _, m := range s.Members {
		if !ignored[m.Key] && !handled[m.Key] {
			b.warnf(path, "keyword %q is not enforced", m.Key)
		}
	}
	if ref, ok := s.Get("$ref").AsString(); ok {
		if len(s.Members) > 1 {
			for _, m := range s.Members {
				if m.Key != "$ref" && !ignored[m.Key] {
					b.warnf(path, "keyword %q next to $ref is not enforced", m.Key)
				}
			}
		}
		return b.ref(ref, path)
	}
	if all := s.Get("allOf"); all != nil {
		if all.Kind != jsonx.Array || len(all.Elems) == 0 {
			return "", fmt.Errorf("%w: %s/allOf: want a non-empty array", ErrSchema, path)
		}
		if len(all.Elems) > 1 || len(s.Members) > 1 {
			b.warnf(path, "allOf is enforced only for its first schema")
		}
		return b.schema(all.Elems[0], path+"/allOf/0", name)
	}
	expr, err := b.schemaNoNull(s, path, name)
	if err != nil {
		return "", err
	}
	if n := s.Get("nullable"); n != nil && n.Kind == jsonx.Bool && n.Bool {
		return group([]string{expr, b.null()}), nil
	}
	return expr, nil
}

func orRoot(path string) string {
	if path == "" {
		return "/"
	}
	return path
}

func (b *builder) schemaNoNull(s *jsonx.Value, path, name string) (string, error) {
	if c := s.Get("const"); c != nil {
		return b.literal(c), nil
	}
	if e := s.Get("enum"); e != nil {
		return b.enum(s, e, path, name)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts := s.Get(key); alts != nil {
			return b.anyOf(s, alts, key, path, name)
		}
	}
	types, err := schemaTypes(s, path)
	if err != nil {
		return "", err
	}
	var alts []string
	for _, t := range types {
		n := name
		if len(types) > 1 {
			n = name + "-" + t
		}
		e, err := b.typed(s, t, path, n)
		if err != nil {
			return "", err
		}
		alts = append(alts, e)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return b.rule(name, strings.Join(alts, " | ")), nil
}

// schemaTypes lists the JSON types a schema allows, inferring them from
// keywords when "type" is absent.
func schemaTypes(s *jsonx.Value, path string) ([]string, error) {
	t := s.Get("type")
	var types []string
	switch {
	case t == nil:
		switch {
		case s.Get("properties") != nil || s.Get("additionalProperties") != nil:
			return []string{"object"}, nil
		case s.Get("items") != nil || s.Get("prefixItems") != nil:
			return []string{"array"}, nil
		}
		return allTypes, nil
	case t.Kind == jsonx.String:
		types = []string{t.Text}
	case t.Kind == jsonx.Array:
		for _, e := range t.Elems {
			if e.Kind != jsonx.String {
				return nil, fmt.Errorf("%w: %s/type: want strings", ErrSchema, path)
			}
			if !slices.Contains(types, e.Text) {
				types = append(types, e.Text)
			}
		}
	default:
		return nil, fmt.Errorf("%w: %s/type: want a string or an array", ErrSchema, path)
	}
	for _, t := range types {
		if !slices.Contains(allTypes, t) {
			return nil, fmt.Errorf("%w: %s/type: unknown type %q", ErrSchema, path, t)
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("%w: %s/type: empty type list", ErrSchema, path)
	}
	// An integer is a number: drop "integer" when "number" is there too.
	if slices.Contains(types, "number") {
		types = slices.DeleteFunc(types, func(t string) bool { return t == "integer" })
	}
	return types, nil
}

func (b *builder) typed(s *jsonx.Value, t, path, name string) (string, error) {
	switch t {
	case "object":
		return b.object(s, path, name)
	case "array":
		return b.array(s, path, name)
	case "string":
		return b.stringSchema(s, path, name)
	case "integer":
		return b.integer(s, path, name)
	case "number":
		return b.number(s, path, name)
	case "boolean":
		return b.boolean(), nil
	default:
		return b.null(), nil
	}
}

func (b *builder) ref(ref, path string) (string, error) {
	if n, ok := b.refs[ref]; ok {
		return n, nil
	}
	if !strings.HasPrefix(ref, "#") {
		return "", fmt.Errorf("%w: %s: only local $ref (#...) is supported, got %q", ErrSchema, orRoot(path), ref)
	}
	target, err := pointer(b.root, ref[1:])
	if err != nil {
		return "", fmt.Errorf("%w: %s: $ref %q: %w", ErrSchema, orRoot(path), ref, err)
	}
	seg := ref[strings.LastIndexByte(ref, '/')+1:]
	if seg == "" || seg == "#" || ruleName(seg) == "root" {
		seg = "root-ref"
	}
	n := b.reserve(seg)
	b.refs[ref] = n
	body, err := b.schema(target, ref[1:], n)
	if err != nil {
		return "", err
	}
	b.bodies[n] = body
	return n, nil
}

// pointer resolves a JSON pointer (RFC 6901) in v.
func pointer(v *jsonx.Value, ptr string) (*jsonx.Value, error) {
	if ptr == "" {
		return v, nil
	}
	if ptr[0] != '/' {
		return nil, errors.New("not a JSON pointer")
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v.Kind {
		case jsonx.Object:
			next := v.Get(tok)
			if next == nil {
				return nil, fmt.Errorf("no member %q", tok)
			}
			v = next
		case jsonx.Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v.Elems) {
				return nil, fmt.Errorf("no element %q", tok)
			}
			v = v.Elems[i]
		default:
			return nil, fmt.Errorf("cannot descend into a scalar at %q", tok)
		}
	}
	return v, nil
}

func (b *builder) enum(s, e *jsonx.Value, path, name string) (string, error) {
	if e.Kind != jsonx.Array || len(e.Elems) == 0 {
		return "", fmt.Errorf("%w: %s/enum: want a non-empty array", ErrSchema, path)
	}
	var types []string
	if s.Get("type") != nil {
		var err error
		if types, err = schemaTypes(s, path); err != nil {
			return "", err
		}
	}
	var alts []string
	for _, v := range e.Elems {
		if types != nil && !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
			continue
		}
		if l := b.literal(v); !slices.Contains(alts, l) {
			alts = append(alts, l)
		}
	}
	if len(alts) == 0 {
		return "", fmt.Errorf("%w: %s/enum: no value has the schema's type", ErrSchema, path)
	}
	if len(alts) == 1 {
		return alts[0], nil
	}
	return b.rule(name, strings.Join(alts, " | ")), nil
}

// hasType reports whether v is an instance of JSON Schema type t.
func hasType(v *jsonx.Value, t string) bool {
	switch t {
	case "null":
		return v.Kind == jsonx.Null
	case "boolean":
		return v.Kind == jsonx.Bool
	case "string":
		return v.Kind == jsonx.String
	case "array":
		return v.Kind == jsonx.Array
	case "object":
		return v.Kind == jsonx.Object
	case "number":
		return v.Kind == jsonx.Number
	case "integer":
		if v.Kind != jsonx.Number {
			return false
		}
		f, err := strconv.ParseFloat(v.Text, 64)
		return err == nil && f == math.Trunc(f)
	}
	return false
}

// literal is the GBNF for exactly the value v, in the builder's syntax.
func (b *builder) literal(v *jsonx.Value) string {
	if !b.python {
		return lit(string(v.JSON()))
	}
	if v.Kind == jsonx.String {
		return group([]string{lit(pyString(v.Text, '"')), lit(pyString(v.Text, '\''))})
	}
	return lit(pyLiteral(v))
}

func (b *builder) anyOf(s, alts *jsonx.Value, key, path, name string) (string, error) {
	if alts.Kind != jsonx.Array || len(alts.Elems) == 0 {
		return "", fmt.Errorf("%w: %s/%s: want a non-empty array", ErrSchema, path, key)
	}
	for _, m := range s.Members {
		if m.Key != key && handled[m.Key] && m.Key != "nullable" {
			b.warnf(path, "keyword %q next to %s is not enforced", m.Key, key)
		}
	}
	if key == "oneOf" && len(alts.Elems) > 1 && !disjoint(alts.Elems) {
		b.warnf(path, "oneOf is enforced as anyOf: a value matching several branches is accepted")
	}
	var out []string
	for i, a := range alts.Elems {
		e, err := b.schema(a, fmt.Sprintf("%s/%s/%d", path, key, i), fmt.Sprintf("%s-%d", name, i))
		if err != nil {
			return "", err
		}
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	if len(out) == 1 {
		return out[0], nil
	}
	return b.rule(name, strings.Join(out, " | ")), nil
}

// disjoint reports whether the branches of a oneOf have pairwise distinct
// single types, so no value can match two of them.
func disjoint(branches []*jsonx.Value) bool {
	seen := map[string]bool{}
	for _, br := range branches {
		t, ok := br.Get("type").AsString()
		if !ok || seen[t] || (t == "number" && seen["integer"]) || (t == "integer" && seen["number"]) {
			return false
		}
		seen[t] = true
	}
	return true
}

// intOf reads a non-negative integer keyword.
func intOf(s *jsonx.Value, key, path string) (int, bool, error) {
	v := s.Get(key)
	if v == nil {
		return 0, false, nil
	}
	f, err := strconv.ParseFloat(v.Text, 64)
	if v.Kind != jsonx.Number || err != nil || f < 0 || f != math.Trunc(f) {
		return 0, false, fmt.Errorf("%w: %s/%s: want a non-negative integer", ErrSchema, path, key)
	}
	return int(min(f, math.MaxInt32)), true, nil
}
