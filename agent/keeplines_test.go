package agent

import (
	"encoding/json"
	"testing"

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
