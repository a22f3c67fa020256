package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnnumbered: the lines of a whole file come back from read_file's
// result; a part of a file, an empty one or a cut line do not.
func TestUnnumbered(t *testing.T) {
	root := t.TempDir()
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	read := func(content string, offset int) string {
		os.WriteFile(filepath.Join(root, "f.txt"), []byte(content), 0o644)
		a := map[string]any{"path": "f.txt"}
		if offset > 0 {
			a["offset"] = offset
		}
		args, _ := json.Marshal(a)
		res := r.Execute(context.Background(), "read_file", args)
		if !res.Success {
			t.Fatal(res.Compact())
		}
		return *res.Data
	}
	for _, tc := range []struct {
		name, content string
		offset        int
		want          string
		ok            bool
	}{
		{"lines", "a\nb\n", 0, "a|b", true},
		{"no final newline", "a\nb", 0, "a|b", true},
		{"blank line", "a\n\n1: c\n", 0, "a||1: c", true},
		{"crlf", "a\r\nb\r\n", 0, "a|b", true},
		{"from an offset", "a\nb\n", 2, "", false},
		{"empty", "", 0, "", false},
		{"a line too long to show", strings.Repeat("x", maxLine+10) + "\n", 0, "", false},
	} {
		lines, ok := Unnumbered(read(tc.content, tc.offset))
		if got := strings.Join(lines, "|"); ok != tc.ok || got != tc.want {
			t.Errorf("%s: %.40q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWholeLines(t *testing.T) {
	root := t.TempDir()
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("a line of a long file, long enough to be read in parts\n", 3000)
	for _, tc := range []struct {
		name, file, content string
		offset              int
		want                int
		ok                  bool
	}{
		{"text", "f.txt", "a\nb\nc\n", 0, 3, true},
		{"a table and its figures", "t.csv", "sku,qty\nA,2\nB,3\n", 0, 3, true},
		{"from an offset", "f.txt", "a\nb\nc\n", 2, 0, false},
		{"a part of a long file", "long.txt", long, 0, 0, false},
	} {
		os.WriteFile(filepath.Join(root, tc.file), []byte(tc.content), 0o644)
		a := map[string]any{"path": tc.file}
		if tc.offset > 0 {
			a["offset"] = tc.offset
		}
		args, _ := json.Marshal(a)
		res := r.Execute(context.Background(), "read_file", args)
		if !res.Success {
			t.Fatal(res.Compact())
		}
		if n, ok := WholeLines(*res.Data); n != tc.want || ok != tc.ok {
			t.Errorf("%s: WholeLines = %d %v, want %d %v", tc.name, n, ok, tc.want, tc.ok)
		}
	}
}

func TestNumberedLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int
		text string
		ok   bool
	}{
		{"4: dan,52", 4, "dan,52", true},
		{"12:     return x", 12, "    return x", true},
		{"2: ", 2, "", true},
		{"2:", 2, "", true},
		{"0: x", 0, "", false},
		{"-1: x", 0, "", false},
		{"+3: x", 0, "", false},
		{"note: x", 0, "", false},
		{"12345678: x", 0, "", false},
		{"09:30 standup", 0, "", false},
		{"8:x", 0, "", false},
	} {
		n, text, ok := NumberedLine(tc.line)
		if n != tc.n || text != tc.text || ok != tc.ok {
			t.Errorf("NumberedLine(%q) = %d, %q, %v; want %d, %q, %v", tc.line, n, text, ok, tc.n, tc.text, tc.ok)
		}
	}
}

// TestSplitTableNote: a read of a table is its numbered lines and then
// its figures; a line of the file that reads like the figures is a
// numbered line, and stays.
func TestSplitTableNote(t *testing.T) {
	root := t.TempDir()
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, content string
		lines         string
		figures       bool
	}{
		{"t.csv", "sku,qty\nA,2\nB,3\n", "1: sku,qty\n2: A,2\n3: B,3\n", true},
		{"f.txt", "[table: 2 rows]\nx\n", "1: [table: 2 rows]\n2: x\n", false},
	} {
		os.WriteFile(filepath.Join(root, tc.file), []byte(tc.content), 0o644)
		res := r.Execute(context.Background(), "read_file", json.RawMessage(`{"path": "`+tc.file+`"}`))
		if !res.Success || res.Data == nil {
			t.Fatalf("%s: read failed: %+v", tc.file, res)
		}
		lines, figures := SplitTableNote(*res.Data)
		if lines != tc.lines || (figures != "") != tc.figures || lines+figures != *res.Data {
			t.Errorf("%s: SplitTableNote = %q, %q; want the lines %q, figures %v", tc.file, lines, figures, tc.lines, tc.figures)
		}
	}
}
