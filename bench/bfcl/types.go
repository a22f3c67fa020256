package bfcl

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// ErrFunctions is wrapped by Functions errors.
var ErrFunctions = errors.New("bfcl: invalid function list")

// Functions returns BFCL function docs as JSON Schema function
// definitions ({"name","description","parameters"}, as
// grammar.ParseTools reads them), key order kept. data is a BFCL question
// line ({"id":..,"question":..,"function":[...]}) or its "function" array.
//
// Type names are translated the way BFCL converts its functions to OpenAI
// tools (its GORILLA_TO_OPENAPI table): dict→object, float→number,
// tuple→array, any→string, and every other name that is not in the table
// → string. A property without a type is a string, as in BFCL.
func Functions(data []byte) ([]byte, error) {
	v, err := jsonx.Parse(bytes.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFunctions, err)
	}
	if v.Kind == jsonx.Object {
		v = v.Get("function")
	}
	if v == nil || v.Kind != jsonx.Array {
		return nil, fmt.Errorf("%w: want a question line or a JSON array of functions", ErrFunctions)
	}
	for i, f := range v.Elems {
		if f.Kind != jsonx.Object {
			return nil, fmt.Errorf("%w: function %d is not an object", ErrFunctions, i)
		}
		normalizeTypes(f.Get("parameters"))
	}
	return v.JSON(), nil
}

// openAPITypes maps the type names in BFCL function docs to JSON Schema,
// as BFCL's GORILLA_TO_OPENAPI table does.
var openAPITypes = map[string]string{
	"integer": "integer", "number": "number", "string": "string", "boolean": "boolean",
	"array": "array", "object": "object", "null": "null",
	"float": "number", "double": "number",
	"bool": "boolean",
	"list": "array", "tuple": "array", "ArrayList": "array", "Array": "array", "Queue": "array", "Stack": "array",
	"dict": "object", "HashMap": "object", "Hashtable": "object",
	"any": "string", "Any": "string", "char": "string", "String": "string",
	"byte": "integer", "short": "integer", "long": "integer", "Bigint": "integer",
}

// jsonType is the JSON Schema type for a BFCL type name.
func jsonType(name string) string {
	if t, ok := openAPITypes[name]; ok {
		return t
	}
	return "string"
}

// pythonTypes is the table of Python types for BFCL type names its
// checker uses (PYTHON_TYPE_MAPPING); names outside it cannot be checked.
var pythonTypes = map[string]string{
	"string": "str", "integer": "int", "float": "float", "boolean": "bool",
	"array": "list", "tuple": "list", "dict": "dict", "any": "str",
}

// PythonType returns the name of the Python type BFCL's checker expects
// for a value of BFCL type name; ok is false for a name outside its table.
func PythonType(name string) (typ string, ok bool) {
	typ, ok = pythonTypes[name]
	return typ, ok
}

// normalizeTypes rewrites type names throughout schema s in place.
func normalizeTypes(s *jsonx.Value) {
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
				if key == "properties" && m.Value.Kind == jsonx.Object && m.Value.Get("type") == nil &&
					m.Value.Get("$ref") == nil && m.Value.Get("anyOf") == nil && m.Value.Get("oneOf") == nil {
					m.Value.Set("type", jsonx.NewString("string"))
				}
				normalizeTypes(m.Value)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains"} {
		normalizeTypes(s.Get(key))
	}
	for _, key := range []string{"items", "prefixItems", "anyOf", "oneOf", "allOf"} {
		if list := s.Get(key); list != nil && list.Kind == jsonx.Array {
			for _, e := range list.Elems {
				normalizeTypes(e)
			}
		}
	}
}
