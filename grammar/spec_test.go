package grammar

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar/gbnf"
)

// Replies in the shapes Qwen2.5 Coder 0.5B and 1.5B Instruct wrote for
// everyday requests with the grammar off (offgrid run --no-grammar
// --verbose-prompt), and the neighbours they imply.
var lenientReplies = []struct {
	name, text, content string
	call                string // name of the call, "" for none
}{
	{"fence json", "```json\n{\n  \"name\": \"ls\",\n  \"arguments\": {\n    \"path\": \"./\"\n  }\n}\n```", "", "ls"},
	{"fence json after text", "Let me look.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"notes.txt\"}}\n```", "Let me look.", "read_file"},
	{"fence tool_call", "```tool_call\n{\"name\": \"ls\", \"arguments\": {}}\n```", "", "ls"},
	{"plain fence", "```\n{\"name\": \"ls\", \"arguments\": {}}\n```", "", "ls"},
	{"bare", "{\"name\": \"read_file\", \"arguments\": {\"path\": \"./notes.txt\", \"offset\": 1, \"limit\": 1}}", "", "read_file"},
	{"bare pretty", "{\n    \"name\": \"notes.txt\",\n    \"arguments\": {\"path\": \"./notes.txt\"}\n}", "", "notes.txt"},
	{"bare on a later line", "Sure.\n{\"name\": \"ls\", \"arguments\": {}}", "Sure.", "ls"},
	{"double braces", "{{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}}", "", "read_file"},
	{"parentheses", "({\"name\": \"ls\", \"arguments\": {\"path\": \"notes.txt\"}}", "", "ls"},
	{"tools tag", "<tools>\n{\"name\": \"ls\", \"arguments\": {}}\n</tools>", "", "ls"},
	{"function_call tag", "<function_call>{\"name\": \"ls\", \"arguments\": {}}</function_call>", "", "ls"},
	{"canonical", "<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>", "", "ls"},
	{"unclosed fence", "```json\n{\"name\": \"ls\", \"arguments\": {}}", "", "ls"},
	{"json that is not a call", "```json\n{\"ok\": true}\n```", "```json\n{\"ok\": true}\n```", ""},
	{"object mid-line is text", "The call would be {\"name\": \"ls\"} here.", "The call would be {\"name\": \"ls\"} here.", ""},
	{"prose", "The file says hello.", "The file says hello.", ""},
}

func TestLenientParse(t *testing.T) {
	for _, tc := range lenientReplies {
		content, calls, err := Parse(Hermes, tc.text)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if content != tc.content {
			t.Errorf("%s: content %q, want %q", tc.name, content, tc.content)
		}
		switch {
		case tc.call == "" && len(calls) != 0:
			t.Errorf("%s: calls %v, want none", tc.name, calls)
		case tc.call != "" && (len(calls) != 1 || calls[0].Name != tc.call):
			t.Errorf("%s: calls %v, want one call of %s", tc.name, calls, tc.call)
		}
	}
}

func TestFindCall(t *testing.T) {
	tests := []struct {
		text          string
		ok, partial   bool
		pos           int
		open          string
		canonical     bool
		visible       string // Visible(Hermes, text)
		visibleHeldAt int    // -1: all of it visible
	}{
		{text: "Hello", visible: "Hello"},
		{text: "Hello <tool_", partial: true, pos: 6, open: "<tool_call>", canonical: true, visible: "Hello "},
		{text: "<tool_call>", ok: true, open: "<tool_call>", canonical: true, visible: ""},
		{text: "```", partial: true, open: "```json", visible: ""},
		{text: "```json\n{\n  \"na", partial: true, open: "```json", visible: ""},
		{text: "```json\n{\n  \"name\"", ok: true, open: "```json", visible: ""},
		{text: "```python\nprint(1)", visible: "```python\nprint(1)"},
		{text: "ok\n{\"name\"", ok: true, pos: 3, open: "", visible: "ok"},
		{text: "x {\"name\"", visible: "x {\"name\""},
		{text: "{{\"name\"", ok: true, open: "{", visible: ""},
	}
	for _, tc := range tests {
		st, ok, partial := FindCall(Hermes, tc.text)
		if ok != tc.ok || partial != tc.partial || ((ok || partial) && (st.Pos != tc.pos || st.Opening.Open != tc.open || st.Canonical != tc.canonical)) {
			t.Errorf("FindCall(%q) = %+v %v %v", tc.text, st, ok, partial)
		}
		if got := Visible(Hermes, tc.text); got != tc.visible {
			t.Errorf("Visible(%q) = %q, want %q", tc.text, got, tc.visible)
		}
	}
	if _, ok, partial := FindCall(Generic, "```json\n{\"name\""); ok || partial {
		t.Error("generic has no openings")
	}
}

// TestForcedOpening checks that the grammar forcing a wrapper accepts a
// valid call in that wrapper, pretty-printed as the models write it, and
// rejects the other wrappers and unknown tools.
func TestForcedOpening(t *testing.T) {
	tools := []Tool{
		{Name: "ls", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false}`)},
		{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
	}
	for _, op := range hermesOpenings {
		tg, err := ForTools(tools, Hermes, ToolOptions{Opening: &op})
		if err != nil {
			t.Fatal(err)
		}
		if tg.Lazy() {
			t.Errorf("%q: a forced opening applies from the first token", op.Open)
		}
		g, err := gbnf.Parse(tg.GBNF)
		if err != nil {
			t.Fatal(err)
		}
		call := "{\n  \"name\": \"read_file\",\n  \"arguments\": {\n    \"path\": \"notes.txt\"\n  }\n}"
		good := fmt.Sprintf("%s\n%s\n%s", op.Open, call, op.Close)
		if op.Open == "" {
			good = call
		}
		if !g.Accepts(tg.Root, good) {
			t.Errorf("%q: rejects %q\n%s", op.Open, good, tg.GBNF)
		}
		if _, calls, err := Parse(Hermes, good); err != nil || len(calls) != 1 || calls[0].Name != "read_file" {
			t.Errorf("%q: parse %v %v", op.Open, calls, err)
		}
		bad := fmt.Sprintf("%s\n{\"name\": \"notes.txt\", \"arguments\": {}}\n%s", op.Open, op.Close)
		if g.Accepts(tg.Root, bad) {
			t.Errorf("%q: accepts an unknown tool", op.Open)
		}
		if op.Open != "<tool_call>" && g.Accepts(tg.Root, "<tool_call>\n"+call+"\n</tool_call>") {
			t.Errorf("%q: accepts another wrapper", op.Open)
		}
	}
}

// TestAnyOpening checks that a required call may open in every wrapper
// of the format, and in nothing else, when AnyOpening is set, and in the
// canonical wrapper alone when it is not.
func TestAnyOpening(t *testing.T) {
	tools := []Tool{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}}
	call := `{"name": "read_file", "arguments": {"path": "notes.txt"}}`
	for _, anyOp := range []bool{false, true} {
		tg, err := ForTools(tools, Hermes, ToolOptions{ToolChoice: Required, AnyOpening: anyOp})
		if err != nil {
			t.Fatal(err)
		}
		if tg.Lazy() {
			t.Errorf("anyOp=%v: a required call applies from the first token", anyOp)
		}
		g, err := gbnf.Parse(tg.GBNF)
		if err != nil {
			t.Fatal(err)
		}
		for i, op := range hermesOpenings {
			reply := op.Open + "\n" + call + "\n" + op.Close
			if op.Open == "" {
				reply = call
			}
			if want := anyOp || i == 0; g.Accepts(tg.Root, reply) != want {
				t.Errorf("anyOp=%v: accepts %q: %v, want %v", anyOp, reply, !want, want)
			}
		}
		for _, bad := range []string{"Sure: " + call, "```json\n" + call + "\n</tool_call>", `{"name": "notes.txt", "arguments": {}}`} {
			if g.Accepts(tg.Root, bad) {
				t.Errorf("anyOp=%v: accepts %q", anyOp, bad)
			}
		}
	}
	// Auto stays lazy: the openings are found as the reply streams.
	if tg, err := ForTools(tools, Hermes, ToolOptions{AnyOpening: true}); err != nil || !tg.Lazy() {
		t.Errorf("auto with AnyOpening: lazy %v, %v", tg != nil && tg.Lazy(), err)
	}
}

func TestCallName(t *testing.T) {
	for _, tc := range []struct {
		text, name string
		ok         bool
	}{
		{"```json\n{\n  \"name\": \"multiply\", ", "multiply", true},
		{"Sure.\n```json\n{\"name\": \"mult", "", false},
		{"```json\n{\"name\"", "", false},
		{"```json\n{\"name\": get_time", "", true},
		{"```json\n{\"name\": \"a\\\"b\"", "", true},
		{"```json\n{\"name\": \"" + strings.Repeat("x", 65), "", true},
		{"{\"name\": \"ls\"}", "ls", true},
	} {
		st, ok, _ := FindCall(Hermes, tc.text)
		if !ok {
			t.Fatalf("%q: no call opening", tc.text)
		}
		if name, ok := CallName(tc.text, st); name != tc.name || ok != tc.ok {
			t.Errorf("CallName(%q) = %q, %v; want %q, %v", tc.text, name, ok, tc.name, tc.ok)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	tests := map[string]Format{
		"{{ '<tool_call>' }}":                  Hermes,
		"[TOOL_CALLS]":                         Mistral,
		"```tool_code":                         Pythonic,
		"<|python_tag|>":                       Llama3,
		"{% if message.role == 'ipython' %}":   Llama3,
		"{{ bos_token }}{{ message.content }}": Generic,
		"":                                     Generic,
	}
	for tmpl, want := range tests {
		if got := DetectFormat(tmpl); got != want {
			t.Errorf("DetectFormat(%q) = %s, want %s", tmpl, got, want)
		}
	}
}

func TestTextOnly(t *testing.T) {
	tg := TextOnly()
	g, err := gbnf.Parse(tg.GBNF)
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{"The file says hello.", "1: Buy milk\n2: [x] (y)"} {
		if !g.Accepts(tg.Root, ok) {
			t.Errorf("rejects %q", ok)
		}
	}
	for _, bad := range []string{"", "{\"name\": \"ls\"}", "```json", "<tool_call>", "[ls()]", " x", "\nx", ">{\"name\": \"ls\"}", "ok ```json"} {
		if g.Accepts(tg.Root, bad) {
			t.Errorf("accepts %q", bad)
		}
	}
}

func TestFencedBlock(t *testing.T) {
	tg := FencedBlock()
	g, err := gbnf.Parse(tg.GBNF)
	if err != nil {
		t.Fatal(err)
	}
	for _, ok := range []string{"```\n```", "```json\n{\"ok\": true}\n```", "```\n1: Buy milk\n\n3: `x` ``y``\n```", "```go\n`raw`\n``two``\n```"} {
		if !g.Accepts(tg.Root, ok) {
			t.Errorf("rejects %q", ok)
		}
	}
	for _, bad := range []string{"", "# FAQ", "```\nnot closed", "```\nx\n```\nmore", "Here:\n```\nx\n```", "```\n```inner\n```", "```json {}\n```", "```hithere\n```"} {
		if g.Accepts(tg.Root, bad) {
			t.Errorf("accepts %q", bad)
		}
	}
}

// TestFencedBlockRest: the rest of a block, from within a line or from a
// line's start, ends at the closing fence and nowhere else.
func TestFencedBlockRest(t *testing.T) {
	for _, c := range []struct {
		atLineStart bool
		ok, bad     []string
	}{
		{false, []string{"\n```", " milk\n2: eggs\n```", "x `y`\n\n```"}, []string{"", "```", " milk\n```\nmore", " milk"}},
		{true, []string{"```", "2: eggs\n```", "\n\n```"}, []string{"", "2: eggs", "2: eggs```", "```\n```"}},
	} {
		tg := FencedBlockRest(c.atLineStart)
		g, err := gbnf.Parse(tg.GBNF)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range c.ok {
			if !g.Accepts(tg.Root, s) {
				t.Errorf("atLineStart %v: rejects %q", c.atLineStart, s)
			}
		}
		for _, s := range c.bad {
			if g.Accepts(tg.Root, s) {
				t.Errorf("atLineStart %v: accepts %q", c.atLineStart, s)
			}
		}
	}
}
