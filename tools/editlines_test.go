package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestEditLinesMatchesTools checks that EditLines, which previews an edit,
// gives the bytes replace_lines and insert_lines write to a real file.
func TestEditLinesMatchesTools(t *testing.T) {
	root := t.TempDir()
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file        string
		tool        string
		first, last int
		content     string
	}{
		{"a\nb\nc\n", "replace_lines", 2, 2, "B"},
		{"a\nb\nc\n", "replace_lines", 1, 3, "x\ny\n"},
		{"a\nb\nc\n", "replace_lines", 2, 3, ""},
		{"a\nb\nc", "replace_lines", 3, 3, "C"},
		{"a\r\nb\r\n", "replace_lines", 1, 1, "x\ny"},
		{"a\nb\n", "insert_lines", 1, 1, "top"},
		{"a\nb\n", "insert_lines", 3, 3, "end\n"},
		{"a\nb", "insert_lines", 3, 3, "end"},
		{"", "insert_lines", 1, 1, "only"},
	} {
		name := fmt.Sprintf("%s %q %d-%d %q", tc.tool, tc.file, tc.first, tc.last, tc.content)
		path := filepath.Join(root, "f.txt")
		if err := os.WriteFile(path, []byte(tc.file), 0o644); err != nil {
			t.Fatal(err)
		}
		last := tc.last
		if tc.tool == "insert_lines" {
			last = tc.first - 1
		}
		want, err := EditLines([]byte(tc.file), tc.first, last, tc.content)
		if err != nil {
			t.Fatalf("%s: EditLines: %v", name, err)
		}
		a := map[string]any{"path": "f.txt", "line_start": tc.first, "line_end": tc.last, "new_content": tc.content}
		if tc.tool == "insert_lines" {
			delete(a, "line_end")
		}
		args, _ := json.Marshal(a)
		if res := r.Execute(context.Background(), tc.tool, args); !res.Success {
			t.Fatalf("%s: %s", name, res.Compact())
		}
		got, _ := os.ReadFile(path)
		if string(got) != string(want) {
			t.Errorf("%s: the tool wrote %q, EditLines gave %q", name, got, want)
		}
	}
	for _, bad := range [][2]int{{0, 1}, {3, 3}, {2, 0}, {4, 3}, {0, -1}} {
		if _, err := EditLines([]byte("a\nb\n"), bad[0], bad[1], "x"); err == nil {
			t.Errorf("EditLines(%d, %d) on 2 lines: no error", bad[0], bad[1])
		}
	}
}
