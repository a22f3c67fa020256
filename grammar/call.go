package grammar

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/offgrid-ai/offgrid/internal/jsonx"
)

// Call is one tool call a model made.
type Call struct {
	// ID is the call's id where the format carries one (mistral), else "".
	ID   string
	Name string
	// Arguments is a compact JSON object, keys in the order written.
	Arguments json.RawMessage
}

// ErrMalformed is returned by Parse for text that starts a tool call but
// does not complete a valid one.
var ErrMalformed = errors.New("grammar: malformed tool call")

// Parse splits a model's reply in format f into its free text (content,
// with the call markup removed and surrounding space trimmed) and the tool
// calls. Text without calls is all content and no error.
func Parse(f Format, text string) (content string, calls []Call, err error) {
	s := specOf(f)
	if s == nil {
		_, err = ParseFormat(string(f))
		return "", nil, err
	}
	return s.parse(s, text)
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// callFromJSON reads {"name":..,"arguments"|"parameters":{..}[,"id":..]}.
// Arguments written as a JSON string holding an object are unwrapped.
func callFromJSON(v *jsonx.Value) (Call, error) {
	if v.Kind != jsonx.Object {
		return Call{}, malformed("a call must be a JSON object")
	}
	name, ok := v.Get("name").AsString()
	if !ok || name == "" {
		return Call{}, malformed("a call needs a name")
	}
	args := v.Get("arguments")
	if args == nil {
		args = v.Get("parameters")
	}
	switch {
	case args == nil:
		args = &jsonx.Value{Kind: jsonx.Object}
	case args.Kind == jsonx.String:
		inner, err := jsonx.Parse([]byte(args.Text))
		if err != nil || inner.Kind != jsonx.Object {
			return Call{}, malformed("%s: arguments are not a JSON object", name)
		}
		args = inner
	case args.Kind != jsonx.Object:
		return Call{}, malformed("%s: arguments are not a JSON object", name)
	}
	id, _ := v.Get("id").AsString()
	return Call{ID: id, Name: name, Arguments: args.JSON()}, nil
}

// jsonPrefix decodes the JSON value at the start of s and returns it with
// the number of bytes it used.
func jsonPrefix(s string) (*jsonx.Value, int, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := jsonx.Decode(dec)
	if err != nil {
		return nil, 0, err
	}
	return v, int(dec.InputOffset()), nil
}

func parseGeneric(text string) (string, []Call, error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return t, nil, nil
	}
	v, err := jsonx.Parse([]byte(t))
	if err != nil {
		if strings.Contains(t, `"tool_calls"`) {
			return "", nil, malformed("%v", err)
		}
		return t, nil, nil
	}
	if r, ok := v.Get("response").AsString(); ok && v.Get("tool_calls") == nil {
		return r, nil, nil
	}
	list := v.Get("tool_calls")
	if list == nil {
		return t, nil, nil
	}
	if list.Kind != jsonx.Array {
		return "", nil, malformed("tool_calls is not an array")
	}
	var calls []Call
	for _, e := range list.Elems {
		c, err := callFromJSON(e)
		if err != nil {
			return "", nil, err
		}
		calls = append(calls, c)
	}
	return "", calls, nil
}

func parseLlama3(text string) (string, []Call, error) {
	t := strings.TrimSpace(text)
	t = strings.TrimSpace(strings.TrimPrefix(t, "<|python_tag|>"))
	if !strings.HasPrefix(t, "{") {
		return t, nil, nil
	}
	var calls []Call
	for t != "" {
		v, n, err := jsonPrefix(t)
		if err != nil {
			if len(calls) == 0 && !strings.Contains(t, `"name"`) {
				return strings.TrimSpace(text), nil, nil
			}
			return "", nil, malformed("%v", err)
		}
		if v.Kind != jsonx.Object || v.Get("name") == nil {
			if len(calls) == 0 {
				return strings.TrimSpace(text), nil, nil
			}
			return "", nil, malformed("expecting a call")
		}
		c, err := callFromJSON(v)
		if err != nil {
			return "", nil, err
		}
		calls = append(calls, c)
		t = strings.TrimSpace(t[n:])
		t = strings.TrimSpace(strings.TrimPrefix(t, ";"))
	}
	return "", calls, nil
}

func parseMistral(text string) (string, []Call, error) {
	const tag = "[TOOL_CALLS]"
	i := strings.Index(text, tag)
	if i < 0 {
		return strings.TrimSpace(text), nil, nil
	}
	content := text[:i]
	v, n, err := jsonPrefix(text[i+len(tag):])
	if err != nil {
		return "", nil, malformed("after %s: %v", tag, err)
	}
	list := []*jsonx.Value{v}
	if v.Kind == jsonx.Array {
		list = v.Elems
	}
	var calls []Call
	for _, e := range list {
		c, err := callFromJSON(e)
		if err != nil {
			return "", nil, err
		}
		calls = append(calls, c)
	}
	return strings.TrimSpace(content + text[i+len(tag)+n:]), calls, nil
}

func parsePythonic(text string) (string, []Call, error) {
	var firstErr error
	for i := 0; i < len(text); i++ {
		if text[i] != '[' {
			continue
		}
		p := &pyParser{s: text, pos: i}
		calls, err := p.callList()
		if err != nil {
			if firstErr == nil && i == len(text)-len(strings.TrimLeft(text, " \t\r\n")) {
				firstErr = err
			}
			continue
		}
		content := strings.TrimSpace(text[:i]) + " " + strings.TrimSpace(text[p.pos:])
		content = strings.TrimSpace(content)
		content = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(content, "```tool_code"), "```"))
		return content, calls, nil
	}
	if firstErr != nil {
		return "", nil, fmt.Errorf("%w: %w", ErrMalformed, firstErr)
	}
	return strings.TrimSpace(text), nil, nil
}

// Render writes calls the way a model writes them in format f. Parse
// inverts it, and the grammar from ForTools accepts it when the calls
// match the tools' schemas.
func Render(f Format, calls []Call) string {
	if s := specOf(f); s != nil {
		return s.render(calls)
	}
	return ""
}

func renderGeneric(calls []Call) string { return renderList(`{"tool_calls": [`, "]}", calls, false) }

func renderMistral(calls []Call) string { return renderList("[TOOL_CALLS][", "]", calls, true) }

// renderList writes calls as JSON objects in a list between open and
// closing.
func renderList(open, closing string, calls []Call, withID bool) string {
	var sb strings.Builder
	sb.WriteString(open)
	for i, c := range calls {
		if i > 0 {
			sb.WriteString(", ")
		}
		writeJSONCall(&sb, c, "arguments", withID)
	}
	sb.WriteString(closing)
	return sb.String()
}

func renderHermes(calls []Call) string {
	var sb strings.Builder
	op := hermesOpenings[0]
	for i, c := range calls {
		if i > 0 {
			sb.WriteString("\n")
		}
		sb.WriteString(op.Open + "\n")
		writeJSONCall(&sb, c, "arguments", false)
		sb.WriteString("\n" + op.Close)
	}
	return sb.String()
}

func renderLlama3(calls []Call) string {
	var sb strings.Builder
	for i, c := range calls {
		if i > 0 {
			sb.WriteString("\n")
		}
		writeJSONCall(&sb, c, "parameters", false)
	}
	return sb.String()
}

func renderPythonic(calls []Call) string {
	var sb strings.Builder
	sb.WriteString("[")
	for i, c := range calls {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(c.Name)
		sb.WriteString("(")
		if args := argsValue(c); args.Kind == jsonx.Object {
			for j, m := range args.Members {
				if j > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(m.Key)
				sb.WriteString("=")
				writePy(&sb, m.Value)
			}
		}
		sb.WriteString(")")
	}
	sb.WriteString("]")
	return sb.String()
}

func argsValue(c Call) *jsonx.Value {
	if len(bytes.TrimSpace(c.Arguments)) == 0 {
		return &jsonx.Value{Kind: jsonx.Object}
	}
	v, err := jsonx.Parse(c.Arguments)
	if err != nil {
		return &jsonx.Value{Kind: jsonx.Object}
	}
	return v
}

func writeJSONCall(sb *strings.Builder, c Call, argKey string, withID bool) {
	sb.WriteString(`{"name": `)
	sb.Write(jsonx.AppendString(nil, c.Name))
	sb.WriteString(`, "` + argKey + `": `)
	sb.Write(argsValue(c).Append(nil, true))
	if withID && c.ID != "" {
		sb.WriteString(`, "id": `)
		sb.Write(jsonx.AppendString(nil, c.ID))
	}
	sb.WriteString("}")
}

// head returns at most n bytes of s.
func head(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
