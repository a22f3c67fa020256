package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"

	"github.com/offgrid-ai/offgrid/tools"
)

func TestDropsLines(t *testing.T) {
	read := func(path string, lines int) ToolRecord {
		data := numberedLines(lines)
		args, _ := json.Marshal(map[string]string{"path": path})
		return ToolRecord{Name: readFileTool, Arguments: args, Result: tools.Result{Success: true, Data: &data}}
	}
	edit := func(path string) ToolRecord {
		args, _ := json.Marshal(map[string]any{"path": path, "line_start": 1, "line_end": 1, "new_content": "y"})
		return ToolRecord{Name: "replace_lines", Arguments: args, Result: tools.Result{Success: true}}
	}
	replace := func(path string, start, end int, content string) json.RawMessage {
		args, _ := json.Marshal(map[string]any{"path": path, "line_start": start, "line_end": end, "new_content": content})
		return args
	}
	for _, tc := range []struct {
		name    string
		records []ToolRecord
		tool    string
		args    json.RawMessage
		held    bool
	}{
		{"most of a file read with one line", []ToolRecord{read("d.csv", 16)}, "replace_lines", replace("d.csv", 1, 15, "P-104"), true},
		{"past the end", []ToolRecord{read("n.md", 10)}, "replace_lines", replace("n.md", 1, 15, "one line"), true},
		{"one line changed", []ToolRecord{read("d.csv", 16)}, "replace_lines", replace("d.csv", 3, 3, "S-3002"), false},
		{"a few lines into one", []ToolRecord{read("n.md", 5)}, "replace_lines", replace("n.md", 1, 3, "one"), false},
		{"half the file", []ToolRecord{read("n.md", 10)}, "replace_lines", replace("n.md", 1, 5, "one"), false},
		{"as many lines back", []ToolRecord{read("n.md", 10)}, "replace_lines", replace("n.md", 1, 10, "a\nb\nc\nd\ne\nf"), false},
		{"lines deleted", []ToolRecord{read("n.md", 10)}, "replace_lines", replace("n.md", 2, 10, ""), false},
		{"a file not read", []ToolRecord{read("n.md", 10)}, "replace_lines", replace("other.md", 1, 10, "x"), false},
		{"a file changed since", []ToolRecord{read("n.md", 10), edit("n.md")}, "replace_lines", replace("n.md", 1, 10, "x"), false},
		{"another tool", []ToolRecord{read("n.md", 10)}, "write_file", json.RawMessage(`{"path":"n.md","content":"x"}`), false},
	} {
		a := &Agent{records: tc.records}
		if why := a.dropsLines(tc.tool, tc.args); (why != "") != tc.held {
			t.Errorf("%s: dropsLines = %q, want held %v", tc.name, why, tc.held)
		}
	}
}

// TestAgentKeepsLines: a call that would replace most of a file read
// whole with one line is not run; it fails with the reason, the model
// answers, and the file is left as it was.
func TestAgentKeepsLines(t *testing.T) {
	dir := t.TempDir()
	var csv strings.Builder
	csv.WriteString("order,product,qty\n")
	for i := 1; i <= 15; i++ {
		fmt.Fprintf(&csv, "S-%d,P-10%d,%d\n", i, i%5, i)
	}
	path := filepath.Join(dir, "sales.csv")
	os.WriteFile(path, []byte(csv.String()), 0o644)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	read := hermes(call("read_file", `{"path":"sales.csv"}`))
	replace := hermes(call("replace_lines", `{"path":"sales.csv","line_start":1,"line_end":15,"new_content":"P-104"}`))
	const answer = "P-104 is in orders S-4, S-9 and S-14."
	eng := &fakeEngine{t: t, replies: []string{read, replace, answer}}
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{Answer: AnswerSeparate})
	if err != nil {
		t.Fatal(err)
	}
	turn, err := a.Send(context.Background(), "P-104 が出てくる行は？", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != csv.String() {
		t.Errorf("sales.csv changed to %q", b)
	}
	if turn.Content != answer {
		t.Errorf("answer %q, want %q", turn.Content, answer)
	}
	const why = "not run: it would replace 15 of the 16 lines of sales.csv with 1"
	if len(turn.Calls) != 2 || turn.Calls[1].OK() || !strings.Contains(turn.Calls[1].Result.Message(), why) {
		t.Errorf("calls %+v, want the replace_lines call failed with %q", turn.Calls, why)
	}
}
