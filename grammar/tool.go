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
// or a single function object. Parameters are JSON Schema; absent
// parameters mean none, and a schema without "type" is an object.
func ParseTools(data []byte) ([]Tool, error) {
	v, err := jsonx.Parse(bytes.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTools, err)
	}
	var list []*jsonx.Value
	switch v.Kind {
	case jsonx.Array:
		list = v.Elems
	case jsonx.Object:
		list = []*jsonx.Value{v}
	default:
		return nil, fmt.Errorf("%w: want a JSON array or object", ErrTools)
	}
	tools := make([]Tool, 0, len(list))
	seen := map[string]bool{}
	for i, e := range list {
		t, err := parseTool(e)
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

func parseTool(e *jsonx.Value) (Tool, error) {
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
	if params.Get("type") == nil {
		params.Set("type", jsonx.NewString("object"))
	}
	return Tool{Name: name, Description: desc, Parameters: params.JSON()}, nil
}
