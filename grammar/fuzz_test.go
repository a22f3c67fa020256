package grammar

import (
	"errors"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
)

// FuzzFromSchema: any input either fails cleanly or yields a grammar our
// GBNF parser accepts; never a panic or an internal error.
func FuzzFromSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string","maxLength":3},"b":{"type":["integer","null"],"minimum":-5,"maximum":120}},"required":["a"]}`,
		`{"anyOf":[{"type":"array","items":{"enum":[1,"x",null]},"minItems":1},{"const":{"k":[true]}}]}`,
		`{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
		`{"type":"string","format":"date-time"}`, `{"prefixItems":[{"type":"number"}],"items":false}`, `true`, `{}`,
	} {
		f.Add([]byte(s), 16, 4)
	}
	f.Fuzz(func(t *testing.T, schema []byte, maxStr, maxItems int) {
		g, err := FromSchema(schema, SchemaOptions{MaxStringLength: maxStr % 3000, MaxItems: maxItems % 3000})
		if err != nil {
			if errors.Is(err, errInternal) {
				t.Fatal(err)
			}
			return
		}
		if _, err := gbnf.Parse(g.GBNF); err != nil {
			t.Fatalf("%v\n%s", err, g.GBNF)
		}
	})
}

// FuzzParse: the format parsers never panic, and what they return renders
// back to text they read again the same way.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"tool_calls":[{"name":"a","arguments":{"x":1}}]}`, `{"response":"hi"}`,
		"hi <tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>",
		`{"name": "a", "parameters": {"q": [1, 2]}}; {"name": "b", "parameters": {}}`,
		`[TOOL_CALLS][{"name": "a", "arguments": {"s": "x"}, "id": "abcdefghi"}]`,
		`[a(x=1, y='q\'', z=[True, None, {"k": (1, 2)}]), b.c()]`, `[f(x=1e5, y=-0x1f, z=1_000)]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, format := range Formats() {
			_, calls, err := Parse(format, text)
			if err != nil || len(calls) == 0 {
				continue
			}
			_, again, err := Parse(format, Render(format, calls))
			if err != nil || !equalCalls(again, calls) {
				t.Fatalf("%s: %q -> %v -> %q -> %v %v", format, text, calls, Render(format, calls), again, err)
			}
		}
	})
}
