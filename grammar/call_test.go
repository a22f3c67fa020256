package grammar

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
)

func TestRoundTrip(t *testing.T) {
	calls := []Call{
		{Name: "search", Arguments: json.RawMessage(`{"q":"a \"quoted\" 'line'\nnext \\ é","n":-2.5e3,"tags":["x",null,true],"opt":{"k":[{}]}}`)},
		{Name: "pkg.no_args", Arguments: json.RawMessage(`{}`)},
	}
	for _, f := range Formats() {
		cs := calls
		if f == Mistral {
			cs = append([]Call{}, calls...)
			cs[0].ID = "abc123XYZ"
		}
		text := Render(f, cs)
		content, got, err := Parse(f, text)
		if err != nil || content != "" || !equalCalls(got, cs) {
			t.Errorf("%s: Parse(%q) = %q %s %v", f, text, content, got, err)
		}
	}
}

func TestParseContent(t *testing.T) {
	tests := []struct {
		f             Format
		text, content string
		calls         int
	}{
		{Hermes, "Let me check.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {}}\n</tool_call>", "Let me check.", 1},
		{Hermes, "<tool_call>\n{\"name\": \"a\", \"arguments\": \"{\\\"x\\\": 1}\"}", "", 1},
		{Hermes, "just text", "just text", 0},
		{Hermes, "<tool_call>\n{\"name\": \"a\", \"arguments\": {\"s\": \"</tool_call>\"}}\n</tool_call> after", "after", 1},
		{Mistral, "ok [TOOL_CALLS][{\"name\": \"a\", \"arguments\": {}}] ", "ok", 1},
		{Llama3, " Hello there", "Hello there", 0},
		{Generic, `{"response": "hi"}`, "hi", 0},
		{Pythonic, "Sure: [a(x=1)] done", "Sure: done", 1},
		{Pythonic, "no calls [here]", "no calls [here]", 0},
	}
	for _, tt := range tests {
		content, calls, err := Parse(tt.f, tt.text)
		if err != nil || content != tt.content || len(calls) != tt.calls {
			t.Errorf("%s %q: %q %v %v", tt.f, tt.text, content, calls, err)
		}
	}
	for _, bad := range []struct {
		f    Format
		text string
	}{{Hermes, "<tool_call>{\"name\": "}, {Generic, `{"tool_calls": [{"arguments": {}}]}`}, {Mistral, "[TOOL_CALLS][{"}, {Pythonic, "[a(1)]"}} {
		if _, _, err := Parse(bad.f, bad.text); err == nil {
			t.Errorf("%s %q: no error", bad.f, bad.text)
		}
	}
}

func TestPythonLiterals(t *testing.T) {
	_, calls, err := Parse(Pythonic, `[f(a='it\'s', b=(1, 2), c={'k': None}, d=False, e=1_000, g=0x1F, h=.5)]`)
	want := `{"a":"it's","b":[1,2],"c":{"k":null},"d":false,"e":1000,"g":31,"h":0.5}`
	if err != nil || len(calls) != 1 || string(calls[0].Arguments) != want {
		t.Errorf("got %v %v, want %s", calls, err, want)
	}
}

func TestForToolsModes(t *testing.T) {
	tools, err := ParseTools([]byte(`[{"name":"a","parameters":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}},{"name":"b"}]`))
	if err != nil {
		t.Fatal(err)
	}
	call := func(f Format, name, args string) string {
		return Render(f, []Call{{Name: name, Arguments: json.RawMessage(args)}})
	}
	for _, f := range Formats() {
		for _, choice := range []ToolChoice{Auto, Required} {
			tg, err := ForTools(tools, f, ToolOptions{ToolChoice: choice})
			if err != nil {
				t.Fatal(err)
			}
			g, err := gbnf.Parse(tg.GBNF)
			if err != nil {
				t.Fatal(err)
			}
			good, crossed := call(f, "a", `{"x":1}`), call(f, "b", `{"x":1}`)
			two := good + "\n" + good
			if f == Generic || f == Mistral || f == Pythonic {
				two = Render(f, []Call{{Name: "a", Arguments: json.RawMessage(`{"x":1}`)}, {Name: "b"}})
			}
			if !g.Accepts(tg.Root, good) || g.Accepts(tg.Root, crossed) || g.Accepts(tg.Root, two) {
				t.Errorf("%s %s: good/crossed/two calls wrong:\n%s", f, choice, tg.GBNF)
			}
			lazy := choice == Auto && f != Generic
			if tg.Lazy() != lazy {
				t.Errorf("%s %s: Lazy() = %v", f, choice, tg.Lazy())
			}
			if f == Generic && g.Accepts(tg.Root, `{"response": "hi"}`) != (choice == Auto) {
				t.Errorf("generic %s: response branch wrong", choice)
			}
		}
		tg, _ := ForTools(tools, f, ToolOptions{Parallel: true, MaxCalls: 2})
		g, _ := gbnf.Parse(tg.GBNF)
		c := Call{Name: "b", Arguments: json.RawMessage(`{}`)}
		if !g.Accepts(tg.Root, Render(f, []Call{c, c})) || g.Accepts(tg.Root, Render(f, []Call{c, c, c})) {
			t.Errorf("%s: MaxCalls 2 not enforced:\n%s", f, tg.GBNF)
		}
	}
	if tg, err := ForTools(tools, Hermes, ToolOptions{ToolChoice: None}); err != nil || tg.GBNF != "" {
		t.Errorf("none: %v %q", err, tg.GBNF)
	}
	if _, err := ForTools(tools, "xml", ToolOptions{}); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("bad format: %v", err)
	}
}
