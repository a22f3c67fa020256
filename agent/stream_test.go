package agent

import (
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar"
)

func TestVisibleText(t *testing.T) {
	for _, tc := range []struct {
		format    grammar.Format
		raw, want string
	}{
		{grammar.Hermes, "Hello", "Hello"},
		{grammar.Hermes, "Hello <tool_", "Hello "},
		{grammar.Hermes, "Hello\n<tool_call>\n{\"name\"", "Hello"},
		{grammar.Hermes, "<tool_call>{}</tool_call> after", ""},
		{grammar.Mistral, "Hi [TOOL_CALLS][{", "Hi"},
		{grammar.Mistral, "Hi [TOOL", "Hi "},
		{grammar.Llama3, "  {\"name\": \"ls\"", ""},
		{grammar.Llama3, "<|python_", ""},
		{grammar.Llama3, "The answer", "The answer"},
		{grammar.Pythonic, "[ls(path='.')]", ""},
		{grammar.Pythonic, "``", ""},
		{grammar.Pythonic, "Sure", "Sure"},
		{grammar.Generic, `{"tool_calls": [{"name": "ls"`, ""},
		{grammar.Generic, `{"resp`, ""},
		{grammar.Generic, `{ "response" : "Hi \"you\"\n\u00e9\ud83d\ude00 done"}`, "Hi \"you\"\né😀 done"},
		{grammar.Generic, `{"response": "cut \u00`, "cut "},
		{grammar.Generic, `{"response": "cut \ud83d\ude`, "cut "},
		{grammar.Generic, `{"response": "cut \`, "cut "},
		{grammar.Generic, "plain text", "plain text"},
	} {
		if got := visibleText(tc.format, tc.raw); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.format, tc.raw, got, tc.want)
		}
	}
}

// TestVisibleStreamPieces streams replies one byte at a time: what is
// shown never includes markup and, joined, equals the parsed content.
func TestVisibleStreamPieces(t *testing.T) {
	for _, tc := range []struct {
		format grammar.Format
		reply  string
	}{
		{grammar.Hermes, "Checking now.\n<tool_call>\n{\"name\": \"ls\", \"arguments\": {}}\n</tool_call>"},
		{grammar.Generic, `{"response": "Line one\nline \"two\" ✓"}`},
		{grammar.Mistral, "Sure.[TOOL_CALLS][{\"name\": \"ls\", \"arguments\": {}}]"},
		{grammar.Llama3, "No tools needed here."},
		{grammar.Pythonic, "[ls(path=\".\")]"},
	} {
		var shown strings.Builder
		v := newVisibleStream(tc.format, func(s string) { shown.WriteString(s) })
		for i := range len(tc.reply) {
			v.write(tc.reply[i : i+1])
		}
		content, _, err := grammar.Parse(tc.format, tc.reply)
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		v.finish(content)
		if shown.String() != content {
			t.Errorf("%s: shown %q, content %q", tc.format, shown.String(), content)
		}
	}
}
