package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
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
	v, err := parseValue(bytes.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTools, err)
	}
	bfcl := false
	var list []*value
	switch {
	case v.kind == kindArray:
		list = v.arr
	case v.kind == kindObject && v.get("function") != nil && v.get("function").kind == kindArray:
		list, bfcl = v.get("function").arr, true // BFCL question line
	case v.kind == kindObject:
		list = []*value{v}
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

func parseTool(e *value, bfcl bool) (Tool, error) {
	if e.kind != kindObject {
		return Tool{}, errors.New("not an object")
	}
	if typ, _ := e.get("type").str(); typ == "function" && e.get("function") != nil {
		e = e.get("function")
		if e.kind != kindObject {
			return Tool{}, errors.New(`"function" is not an object`)
		}
	}
	name, ok := e.get("name").str()
	if !ok || name == "" {
		return Tool{}, errors.New("missing name")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return Tool{}, fmt.Errorf("name %q has control characters", name)
	}
	desc, _ := e.get("description").str()
	params := e.get("parameters")
	switch {
	case params == nil || params.kind == kindNull:
		params = &value{kind: kindObject, obj: []member{
			{"type", stringValue("object")},
			{"properties", &value{kind: kindObject}},
		}}
	case params.kind != kindObject:
		return Tool{}, fmt.Errorf("%s: parameters is not an object", name)
	}
	normalizeTypes(params, bfcl)
	if params.get("type") == nil {
		params.set("type", stringValue("object"))
	}
	return Tool{Name: name, Description: desc, Parameters: params.json()}, nil
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
func normalizeTypes(s *value, bfcl bool) {
	if s == nil || s.kind != kindObject {
		return
	}
	if t := s.get("type"); t != nil {
		switch t.kind {
		case kindString:
			t.s = jsonType(t.s)
		case kindArray:
			for _, e := range t.arr {
				if e.kind == kindString {
					e.s = jsonType(e.s)
				}
			}
		}
	}
	for _, key := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		if props := s.get(key); props != nil && props.kind == kindObject {
			for _, m := range props.obj {
				if bfcl && key == "properties" && m.val.kind == kindObject && m.val.get("type") == nil &&
					m.val.get("$ref") == nil && m.val.get("anyOf") == nil && m.val.get("oneOf") == nil {
					m.val.set("type", stringValue("string"))
				}
				normalizeTypes(m.val, bfcl)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains"} {
		normalizeTypes(s.get(key), bfcl)
	}
	for _, key := range []string{"items", "prefixItems", "anyOf", "oneOf", "allOf"} {
		if list := s.get(key); list != nil && list.kind == kindArray {
			for _, e := range list.arr {
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
