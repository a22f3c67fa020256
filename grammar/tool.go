package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the call's arguments, normalized
	// (see ParseTools) with property order as written.
	Parameters json.RawMessage
}

// ErrTools is wrapped by ParseTools errors.
var ErrTools = errors.New("grammar: invalid tool list")

// ParseTools reads a tool list in any of the shapes tool definitions come
// in: an OpenAI tools array ([{"type":"function","function":{...}}]), a
// plain array of function objects ({"name","description","parameters"}),
// a single function object, or a BFCL question line
// ({"id":..,"question":..,"function":[...]}).
//
// Type names are normalized the way BFCL converts its functions to OpenAI
// tools: dict→object, float→number, tuple→array, any→string, and every
// other name that is not a JSON Schema type → string. In BFCL question
// lines a property without a type is a string, as in BFCL.
func ParseTools(data []byte) ([]Tool, error) {
	v, err := jsonx.Parse(bytes.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTools, err)
	}
	bfcl := false
	var list []*jsonx.Value
	switch {
	case v.Kind == jsonx.Array:
		list = v.Elems
	case v.Kind == jsonx.Object && v.Get("function") != nil && v.Get("function").Kind == jsonx.Array:
		list, bfcl = v.Get("function").Elems, true // BFCL question line
	case v.Kind == jsonx.Object:
		list = []*jsonx.Value{v}
	default:
		return nil, fmt.Errorf("%w: want a JSON array or object", ErrTools)
	}
	tools := make([]Tool, 0, len(list))
	seen := map[string]bool{}
	for i, e := range list {
		t, err := parseTool(e, bfcl)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %d: %w", ErrTools, i, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%w: tool %d: duplicate name %q", ErrTools, i, t.Name)
		}
		seen[t.Name] = true
		tools = append(tools, t)
	}
	return tools, nil
}

func parseTool(e *jsonx.Value, bfcl bool) (Tool, error) {
	if e.Kind != jsonx.Object {
		return Tool{}, errors.New("not an object")
	}
	if typ, _ := e.Get("type").AsString(); typ == "function" && e.Get("function") != nil {
		e = e.Get("function")
		if e.Kind != jsonx.Object {
			return Tool{}, errors.New(`"function" is not an object`)
		}
	}
	name, ok := e.Get("name").AsString()
	if !ok || name == "" {
		return Tool{}, errors.New("missing name")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return Tool{}, fmt.Errorf("name %q has control characters", name)
	}
	desc, _ := e.Get("description").AsString()
	params := e.Get("parameters")
	switch {
	case params == nil || params.Kind == jsonx.Null:
		params = &jsonx.Value{Kind: jsonx.Object, Members: []jsonx.Member{
			{Key: "type", Value: jsonx.NewString("object")},
			{Key: "properties", Value: &jsonx.Value{Kind: jsonx.Object}},
		}}
	case params.Kind != jsonx.Object:
		return Tool{}, fmt.Errorf("%s: parameters is not an object", name)
	}
	normalizeTypes(params, bfcl)
	if params.Get("type") == nil {
		params.Set("type", jsonx.NewString("object"))
	}
	return Tool{Name: name, Description: desc, Parameters: params.JSON()}, nil
}

// bfclTypes maps the type names in BFCL function docs to JSON Schema, as
// BFCL's GORILLA_TO_OPENAPI table does.
var bfclTypes = map[string]string{
	"integer": "integer", "number": "number", "string": "string", "boolean": "boolean",
	"array": "array", "object": "object", "null": "null",
	"float": "number", "double": "number",
	"bool": "boolean",
	"list": "array", "tuple": "array", "ArrayList": "array", "Array": "array", "Queue": "array", "Stack": "array",
	"dict": "object", "HashMap": "object", "Hashtable": "object",
	"any": "string", "Any": "string", "char": "string", "String": "string",
	"byte": "integer", "short": "integer", "long": "integer", "Bigint": "integer",
}

// normalizeTypes rewrites type names throughout schema s in place.
func normalizeTypes(s *jsonx.Value, bfcl bool) {
	if s == nil || s.Kind != jsonx.Object {
		return
	}
	if t := s.Get("type"); t != nil {
		switch t.Kind {
		case jsonx.String:
			t.Text = jsonType(t.Text)
		case jsonx.Array:
			for _, e := range t.Elems {
				if e.Kind == jsonx.String {
					e.Text = jsonType(e.Text)
				}
			}
		}
	}
	for _, key := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		if props := s.Get(key); props != nil && props.Kind == jsonx.Object {
			for _, m := range props.Members {
				if bfcl && key == "properties" && m.Value.Kind == jsonx.Object && m.Value.Get("type") == nil &&
					m.Value.Get("$ref") == nil && m.Value.Get("anyOf") == nil && m.Value.Get("oneOf") == nil {
					m.Value.Set("type", jsonx.NewString("string"))
				}
				normalizeTypes(m.Value, bfcl)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains"} {
		normalizeTypes(s.Get(key), bfcl)
	}
	for _, key := range []string{"items", "prefixItems", "anyOf", "oneOf", "allOf"} {
		if list := s.Get(key); list != nil && list.Kind == jsonx.Array {
			for _, e := range list.Elems {
				normalizeTypes(e, bfcl)
			}
		}
	}
}

func jsonType(name string) string {
	if t, ok := bfclTypes[name]; ok {
		return t
	}
	return "string"
}
