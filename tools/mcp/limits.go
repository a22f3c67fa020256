package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// Bounds on what a server declares: its tools are shown to the model in
// every prompt and compiled into its grammar.
const (
	// MaxTools is how many tools of one server are registered: the
	// first ones it lists; the others are left out with a warning.
	MaxTools = 128
	// MaxDescription is the longest tool description kept, in bytes; a
	// longer one is cut, with a warning.
	MaxDescription = 4 << 10
	// MaxSchemaDepth is how deeply subschemas of an input schema nest
	// (properties, items, anyOf… each a level, a $ref expanded in
	// place); deeper ones accept any JSON value, with a warning.
	MaxSchemaDepth = 10
	// MaxSchema caps an input schema once its $refs are expanded, in
	// bytes; a tool whose schema is larger is skipped.
	MaxSchema = 64 << 10
)

// boundDescription cuts a description to MaxDescription.
func boundDescription(tool, d string) (string, []string) {
	if len(d) <= MaxDescription {
		return d, nil
	}
	return cut(d, MaxDescription), []string{fmt.Sprintf("MCP tool %s: its description of %s was cut to %s", tool, bytesize(int64(len(d))), bytesize(MaxDescription))}
}

// errSchemaTooLarge is the error of a schema over MaxSchema.
var errSchemaTooLarge = errors.New("input schema too large")

// boundSchema expands the local $refs of schema in place and bounds its
// depth: a $ref to a schema it is inside of (recursion), and a subschema
// nested deeper than MaxSchemaDepth, become {} (any JSON value), each
// with a warning. A schema with neither a $ref nor too deep a nesting
// comes back as it was.
func boundSchema(tool string, schema json.RawMessage) (json.RawMessage, []string, error) {
	root, err := jsonx.Parse(schema)
	if err != nil {
		return schema, nil, nil // the registry says what is wrong
	}
	b := &bounder{root: root, refs: strings.Contains(string(root.JSON()), `"$ref":"#`), warned: map[string]bool{}}
	out := b.walk(root, 0, []string{"#"})
	if b.over {
		return nil, nil, fmt.Errorf("%w: over %s with its $refs expanded", errSchemaTooLarge, bytesize(MaxSchema))
	}
	if !b.changed {
		return schema, nil, nil
	}
	data := out.JSON()
	if len(data) > MaxSchema {
		return nil, nil, fmt.Errorf("%w: %s with its $refs expanded, over %s", errSchemaTooLarge, bytesize(int64(len(data))), bytesize(MaxSchema))
	}
	var warnings []string
	for _, w := range b.warnings {
		warnings = append(warnings, fmt.Sprintf("MCP tool %s: %s", tool, w))
	}
	return data, warnings, nil
}

// bounder rewrites one schema.
type bounder struct {
	root     *jsonx.Value
	refs     bool // it has a local $ref
	nodes    int  // values made, against blow-up by expansion
	over     bool // too many
	changed  bool
	warnings []string
	warned   map[string]bool
}

// maxNodes bounds the values an expansion makes (MaxSchema bytes hold
// fewer).
const maxNodes = MaxSchema / 2

func (b *bounder) warn(format string, args ...any) {
	w := fmt.Sprintf(format, args...)
	if !b.warned[w] {
		b.warned[w] = true
		b.warnings = append(b.warnings, w)
	}
}

// anyValue is the schema {} (any JSON value).
func anyValue() *jsonx.Value { return &jsonx.Value{Kind: jsonx.Object} }

// Keywords whose values are subschemas: one, an array of them, or an
// object of them by name.
var (
	oneSchema = map[string]bool{"items": true, "additionalProperties": true, "additionalItems": true, "not": true,
		"contains": true, "propertyNames": true, "if": true, "then": true, "else": true,
		"unevaluatedItems": true, "unevaluatedProperties": true}
	schemaList = map[string]bool{"anyOf": true, "oneOf": true, "allOf": true, "prefixItems": true}
	schemaMap  = map[string]bool{"properties": true, "patternProperties": true, "dependentSchemas": true}
)

// walk returns the rewritten v, a schema at depth inside the $refs
// of stack.
func (b *bounder) walk(v *jsonx.Value, depth int, stack []string) *jsonx.Value {
	b.nodes++
	if b.nodes > maxNodes {
		b.over = true
		return anyValue()
	}
	if v == nil || v.Kind != jsonx.Object {
		return v
	}
	if ref, ok := v.Get("$ref").AsString(); ok && strings.HasPrefix(ref, "#") {
		b.changed = true
		for _, r := range stack {
			if r == ref {
				b.warn("$ref %s is recursive: inside itself it accepts any JSON value", ref)
				return anyValue()
			}
		}
		target := b.resolve(ref)
		if target == nil {
			return v // the registry says it does not resolve
		}
		return b.walk(target, depth, append(stack, ref))
	}
	if depth > MaxSchemaDepth {
		b.changed = true
		b.warn("its input schema nests deeper than %d levels: the deeper parts accept any JSON value", MaxSchemaDepth)
		return anyValue()
	}
	out := &jsonx.Value{Kind: jsonx.Object}
	for _, m := range v.Members {
		val := m.Value
		switch {
		case (m.Key == "$defs" || m.Key == "definitions") && b.refs:
			b.changed = true
			continue // expanded where used
		case oneSchema[m.Key] && val.Kind == jsonx.Array, schemaList[m.Key] && val.Kind == jsonx.Array:
			list := &jsonx.Value{Kind: jsonx.Array}
			for _, e := range val.Elems {
				list.Elems = append(list.Elems, b.walk(e, depth+1, stack))
			}
			val = list
		case oneSchema[m.Key]:
			val = b.walk(val, depth+1, stack)
		case schemaMap[m.Key] && val.Kind == jsonx.Object:
			obj := &jsonx.Value{Kind: jsonx.Object}
			for _, p := range val.Members {
				obj.Members = append(obj.Members, jsonx.Member{Key: p.Key, Value: b.walk(p.Value, depth+1, stack)})
			}
			val = obj
		}
		out.Members = append(out.Members, jsonx.Member{Key: m.Key, Value: val})
	}
	return out
}

// resolve follows a local JSON pointer ("#/$defs/node") from the root.
func (b *bounder) resolve(ref string) *jsonx.Value {
	v := b.root
	path := strings.TrimPrefix(ref, "#")
	if path == "" {
		return v
	}
	for _, tok := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v.Kind {
		case jsonx.Object:
			v = v.Get(tok)
		case jsonx.Array:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(v.Elems) {
				return nil
			}
			v = v.Elems[i]
		default:
			return nil
		}
		if v == nil {
			return nil
		}
	}
	return v
}
