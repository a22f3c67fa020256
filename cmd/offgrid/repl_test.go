package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/tools"
)

func TestParseSlash(t *testing.T) {
	for _, tc := range []struct {
		line, name, arg string
		ok              bool
	}{
		{"/help", "/help", "", true},
		{"/save  my chat.json ", "/save", "my chat.json", true},
		{"/MODEL gemma3-270m", "/model", "gemma3-270m", true},
		{"/undo force", "/undo", "force", true},
		{"/", "", "", false},
		{"//comment", "", "", false},
		{"/1 is odd", "", "", false},
		{" /help", "", "", false}, // a leading space sends it as a message
		{"hello /help", "", "", false},
	} {
		name, arg, ok := parseSlash(tc.line)
		if name != tc.name || arg != tc.arg || ok != tc.ok {
			t.Errorf("parseSlash(%q) = %q, %q, %v; want %q, %q, %v", tc.line, name, arg, ok, tc.name, tc.arg, tc.ok)
		}
	}
}

func TestReadMessage(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  []string // messages, then the error ending the input
		multi []bool
	}{
		{"one\ntwo\n", []string{"one", "two"}, []bool{false, false}},
		{"\"\"\"\nfirst\n  second\n\"\"\"\nafter\n", []string{"first\n  second", "after"}, []bool{true, false}},
		{"\"\"\"a\nb\"\"\"\n", []string{"a\nb"}, []bool{true}},
		{"\"\"\"one line\"\"\"\n", []string{"one line"}, []bool{true}},
		{"\"\"\"\nnever closed\n", nil, nil},
		{"last without newline", []string{"last without newline"}, []bool{false}},
	} {
		var prompts bytes.Buffer
		in := &plainInput{r: bufio.NewReader(strings.NewReader(tc.in)), prompts: &prompts}
		var got []string
		var multi []bool
		for {
			m, ml, err := readMessage(in, "> ")
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got, multi = append(got, m), append(multi, ml)
		}
		if !slices.Equal(got, tc.want) || !slices.Equal(multi, tc.multi) {
			t.Errorf("%q: messages %q %v, want %q %v", tc.in, got, multi, tc.want, tc.multi)
		}
		if strings.HasPrefix(tc.in, "\"\"\"\n") && !strings.Contains(prompts.String(), "... ") {
			t.Errorf("%q: no continuation prompt in %q", tc.in, prompts.String())
		}
	}
}

func TestConversationRoundTrip(t *testing.T) {
	msgs := []agent.Message{
		{Role: agent.RoleSystem, Content: "Be brief."},
		{Role: agent.RoleUser, Content: "Write hi to a.txt\nplease"},
		{Role: agent.RoleAssistant, Content: "Sure.", Raw: "Sure.\n<tool_call>…</tool_call>",
			ToolCalls: []grammar.Call{{ID: "call00001", Name: "write_file", Arguments: json.RawMessage(`{"path":"a.txt","content":"hi"}`)}}},
		{Role: agent.RoleTool, Content: "Created a.txt (2 bytes)", ToolCallID: "call00001", Name: "write_file"},
		{Role: agent.RoleAssistant, Content: "Done: **a.txt** holds `hi`."},
	}
	data, err := marshalConversation("Qwen", msgs)
	if err != nil {
		t.Fatal(err)
	}
	model, got, err := unmarshalConversation(data)
	if err != nil {
		t.Fatal(err)
	}
	if model != "Qwen" || !reflect.DeepEqual(got, msgs) {
		t.Fatalf("round trip: %q\n%+v\nwant\n%+v", model, got, msgs)
	}
	for _, bad := range []string{`not json`, `{"messages":[]}`, `{"offgrid_conversation":2,"messages":[]}`} {
		if _, _, err := unmarshalConversation([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func TestCompleter(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"notes.txt", "notes.md", "src/main.go", ".hidden"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), nil, 0o644)
	}
	t.Chdir(root)
	complete := completer(commandNames(), root)
	for _, tc := range []struct {
		line       string
		head, tail string
		want       []string
	}{
		{"/c", "", "", []string{"/context ", "/clear "}},
		{"/sa", "", "", []string{"/save "}},
		{"/nothing", "", "", nil},
		{"read no", "read ", "", []string{"notes.md", "notes.txt"}},
		{"read s", "read ", "", []string{"src/"}},
		{"read src/m", "read ", "", []string{"src/main.go"}},
		{"read .h", "read ", "", []string{".hidden"}},
		{"/load notes.t", "/load ", "", []string{"notes.txt"}},
	} {
		head, got, tail := complete(tc.line, len([]rune(tc.line)))
		if head != tc.head || tail != tc.tail || !slices.Equal(got, tc.want) {
			t.Errorf("complete(%q) = %q, %q, %q; want %q, %q, %q", tc.line, head, got, tail, tc.head, tc.want, tc.tail)
		}
	}
	// The cursor inside the line: the rest is kept.
	if head, got, tail := complete("read no and more", 7); head != "read " || len(got) != 2 || tail != " and more" {
		t.Errorf("mid-line: %q %q %q", head, got, tail)
	}
}

func TestRows(t *testing.T) {
	for _, tc := range []struct {
		text  string
		width int
		want  int
	}{
		{"", 10, 1},
		{"abc", 10, 1},
		{"abc\n", 10, 2},
		{"0123456789", 10, 1}, // exactly full: the wrap is pending
		{"0123456789a", 10, 2},
		{"a\n\nb", 10, 3},
		{"\tx", 10, 1},   // 9 columns
		{"\t\tx", 10, 2}, // 17 columns
		{"日本語日本語", 10, 2},
	} {
		if got := rows(tc.text, tc.width); got != tc.want {
			t.Errorf("rows(%q, %d) = %d, want %d", tc.text, tc.width, got, tc.want)
		}
	}
}

func TestMarkdownRender(t *testing.T) {
	md := &markdown{profile: termenv.Ascii, style: "dark"}
	out, err := md.render("# Fruits\n\n- apple\n- **pear**\n\n```go\nfmt.Println(\"hi\")\n```\n", 60)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if strings.TrimSpace(lines[0]) == "" || strings.TrimSpace(lines[len(lines)-1]) == "" {
		t.Errorf("blank margins kept:\n%q", out)
	}
	for _, want := range []string{"Fruits", "• apple", "pear", `fmt.Println("hi")`} {
		if !strings.Contains(out, want) {
			t.Errorf("rendering lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "**") || strings.Contains(out, "```") {
		t.Errorf("markup left in:\n%s", out)
	}
	// Output that is not a terminal is not rendered.
	if newMarkdown(&bytes.Buffer{}, os.Getenv) != nil {
		t.Error("a renderer for a buffer")
	}
}

// TestREPLCommands drives the REPL through piped input on the tiny model:
// a message, then every command; the conversation saved, cleared and
// loaded again; errors are reported and the session goes on.
func TestREPLCommands(t *testing.T) {
	dir := t.TempDir()
	save := filepath.Join(dir, "chat.json")
	script := strings.Join([]string{
		"Hi.", "/tools", "/tasks", "/context", "/save " + save, "/clear", "/context", "/load " + save,
		"/undo", "/save", "/load " + filepath.Join(dir, "missing.json"), "/bogus", "/help", "/model", "/exit", "never read",
	}, "\n") + "\n"
	var out bytes.Buffer
	env, errb := runEnv(t, script, &out)
	model := tinyModel(t)
	err := runCommand(t.Context(), env, []string{"-m", model, "--root", t.TempDir(), "--seed", "1", "-n", "16", "-t", "1", "-c", "4096", "--tool-choice", "none"}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	stdout, stderr := out.String(), errb.String()
	if !regexp.MustCompile(`(?m)^(> )?write_file +high +Create a file`).MatchString(stdout) {
		t.Errorf("/tools lacks write_file:\n%s", stdout)
	}
	for _, want := range []string{"No tasks yet", "system + tools", "/undo [force]", model} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"tokens/s", "saved 2 messages", "(new conversation)", "loaded 2 messages", "nothing to undo",
		"usage: /save FILE", "missing.json", "unknown command /bogus"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// /context after /clear counts an empty conversation.
	if !strings.Contains(stdout, "conversation         0 tokens") {
		t.Errorf("no empty conversation after /clear:\n%s", stdout)
	}
	_, msgs, err := unmarshalConversation(mustRead(t, save))
	if err != nil || len(msgs) != 2 || msgs[0].Content != "Hi." {
		t.Fatalf("saved conversation %+v (%v)", msgs, err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestREPLCompactions: a session longer than its window is compacted, and
// /context says how often and what was removed.
func TestREPLCompactions(t *testing.T) {
	var lines []string
	for i := range 80 {
		lines = append(lines, fmt.Sprintf("Message number %d: tell me something.", i))
	}
	script := strings.Join(append(lines, "/context", "/exit"), "\n") + "\n"
	var out bytes.Buffer
	env, errb := runEnv(t, script, &out)
	err := runCommand(t.Context(), env, []string{"-m", tinyModel(t), "--root", t.TempDir(), "--seed", "1", "-n", "16", "-t", "1", "--tool-choice", "none", "-c", "2048"}, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !regexp.MustCompile(`compactions +\d+ \(\d+ tool results summarised, [1-9]\d* earlier turns removed\); the last: context compacted`).MatchString(out.String()) {
		t.Fatalf("/context shows no compaction:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "context compacted") {
		t.Errorf("no compaction reported on stderr:\n%s", errb.String())
	}
}

// TestREPLUndoNote: after /undo, the next message tells the model which
// file went back, once; /clear drops notes the new conversation cannot use.
func TestREPLUndoNote(t *testing.T) {
	dir := t.TempDir()
	j := &tools.Journal{}
	reg, err := tools.Builtin(dir, tools.WithJournal(j))
	if err != nil {
		t.Fatal(err)
	}
	for _, content := range []string{"one", "two"} {
		if res := reg.Execute(t.Context(), "write_file", json.RawMessage(`{"path":"a.txt","content":"`+content+`"}`)); !res.Success {
			t.Fatal(res.Message())
		}
	}
	var out bytes.Buffer
	env, _ := runEnv(t, "", &out)
	c := &chat{env: env, journal: j}
	if got := c.message("  hi \n"); got != "hi" {
		t.Fatalf("with no notes: %q", got)
	}
	for range 2 {
		if err := c.undo(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
	}
	want := "[The user undid the last change a tool made to a.txt: it holds its earlier content again. " +
		"The user undid the creation of a.txt: it no longer exists.]\n\nWhat now?"
	if got := c.message("What now?"); got != want {
		t.Errorf("first message after /undo:\n%q\nwant\n%q", got, want)
	}
	if got := c.message("And then?"); got != "And then?" {
		t.Errorf("the note was sent twice: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a.txt after two undos: %v", err)
	}
}
