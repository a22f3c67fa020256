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
	write := func(path, content string) json.RawMessage {
		args, _ := json.Marshal(map[string]any{"path": path, "content": content})
		return args
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
		{"a file read written with one line", []ToolRecord{read("n.md", 4)}, "write_file", write("n.md", "x"), true},
		{"a file read written with half its lines", []ToolRecord{read("n.md", 4)}, "write_file", write("n.md", "a\nb"), false},
		{"a file read written longer", []ToolRecord{read("n.md", 4)}, "write_file", write("n.md", "1\n2\n3\n4\n5\n"), false},
		{"a short file read written", []ToolRecord{read("n.md", 3)}, "write_file", write("n.md", "x"), false},
		{"a file read emptied", []ToolRecord{read("n.md", 10)}, "write_file", write("n.md", ""), false},
		{"a file not read written", []ToolRecord{read("n.md", 10)}, "write_file", write("other.md", "x"), false},
		{"a file written since", []ToolRecord{read("n.md", 10), edit("n.md")}, "write_file", write("n.md", "x"), false},
		{"another tool", []ToolRecord{read("n.md", 10)}, "insert_lines", json.RawMessage(`{"path":"n.md","line_start":1,"new_content":"x"}`), false},
	} {
		a := &Agent{records: tc.records}
		if why := a.dropsLines(tc.tool, tc.args); (why != "") != tc.held {
			t.Errorf("%s: dropsLines = %q, want held %v", tc.name, why, tc.held)
		}
	}

	// A write_file held back is run when made again in a later turn; a
	// replace_lines is held back every time.
	a := &Agent{records: []ToolRecord{read("n.md", 10)}, turns: 1}
	for i := range 2 {
		if why := a.dropsLines("replace_lines", replace("n.md", 1, 10, "x")); why == "" {
			t.Errorf("replace_lines, call %d: run, want it held back", i+1)
		}
		if why := a.dropsLines("write_file", write("n.md", "x")); why == "" {
			t.Errorf("write_file, call %d: run, want it held back", i+1)
		}
	}
	a.turns++
	if why := a.dropsLines("write_file", write("n.md", "y")); why == "" {
		t.Error("write_file with other content, next turn: run, want it held back")
	}
	if why := a.dropsLines("write_file", write("n.md", "x")); why != "" {
		t.Errorf("write_file made again, next turn: %q, want it run", why)
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

// TestAgentKeepsLinesWritten: a write_file that would keep one line of a
// file read whole is held back; the model adds the line instead. Made
// again in the same turn it is held back again; after the user's next
// message, it is run.
func TestAgentKeepsLinesWritten(t *testing.T) {
	const people = "name,age\nann,31\nbob,27\ncid,45\n"
	read := hermes(call("read_file", `{"path":"people.csv"}`))
	write := hermes(call("write_file", `{"path":"people.csv","content":"dan,52\n"}`))
	insert := hermes(call("insert_lines", `{"path":"people.csv","line_start":5,"new_content":"dan,52"}`))
	const asked = "people.csv was not changed: replacing it with dan,52 would lose its rows. Shall I?"
	for _, tc := range []struct {
		name     string
		requests []string
		replies  []string
		want     string
		calls    int
	}{
		{"added instead", []string{"Add a row 'dan,52' at the end of people.csv."}, []string{read, write, insert, "Added dan,52."}, people + "dan,52\n", 3},
		{"made again", []string{"Make people.csv hold only 'dan,52'."}, []string{read, write, write, asked}, people, 3},
		{"confirmed", []string{"Make people.csv hold only 'dan,52'.", "Yes, replace it."}, []string{read, write, asked, write, "Done."}, "dan,52\n", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "people.csv")
			os.WriteFile(path, []byte(people), 0o644)
			reg, err := tools.Builtin(dir)
			if err != nil {
				t.Fatal(err)
			}
			eng := &fakeEngine{t: t, replies: tc.replies}
			a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, Options{Answer: AnswerSeparate})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tc.requests {
				if _, err := a.Send(context.Background(), r, nil); err != nil {
					t.Fatal(err)
				}
			}
			if b, _ := os.ReadFile(path); string(b) != tc.want {
				t.Errorf("people.csv = %q, want %q", b, tc.want)
			}
			calls := a.Records()
			const why = "not run: it would replace all 4 lines of people.csv with 1, and the others would be lost; call insert_lines to add lines"
			if len(calls) != tc.calls || calls[1].OK() || !strings.Contains(calls[1].Result.Message(), why) || calls[2].OK() != (tc.want != people) {
				t.Errorf("calls %+v, want the write_file held back with %q, then the next call run only if it changes the file", calls, why)
			}
		})
	}
}
