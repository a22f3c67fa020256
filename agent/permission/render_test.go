package permission

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/tools"
)

func TestFormatArgs(t *testing.T) {
	long := strings.Repeat("x", 12431)
	for _, tc := range []struct {
		name, args, want string
	}{
		{"underscores and call order", `{"path":"insert_lits","line_start":1,"line_end":1,"new_content":"a_b *c* ` + "`d`" + `"}`,
			"{\n  \"path\": \"insert_lits\",\n  \"line_start\": 1,\n  \"line_end\": 1,\n  \"new_content\": \"a_b *c* `d`\"\n}"},
		{"keys not sorted", `{"z":1,"a":2}`, "{\n  \"z\": 1,\n  \"a\": 2\n}"},
		{"numbers as written", `{"x":1.50,"y":1e3,"big":12345678901234567890,"neg":-0}`,
			"{\n  \"x\": 1.50,\n  \"y\": 1e3,\n  \"big\": 12345678901234567890,\n  \"neg\": -0\n}"},
		{"escape sequences visible", `{"command":"printf '\u001b[2J\u001b]0;pwned\u0007'\r\n\tok"}`,
			`{` + "\n" + `  "command": "printf '\x1b[2J\x1b]0;pwned\x07'\r\n\tok"` + "\n}"},
		{"C1, DEL, bidi and zero-width", `{"s":"a\u009bb\u007fc\u202ed\u200be\u2028"}`,
			`{` + "\n" + `  "s": "a\u009bb\x7fc\u202ed\u200be\u2028"` + "\n}"},
		{"quotes and backslashes", `{"s":"say \"hi\" \\ bye"}`, "{\n  \"s\": \"say \\\"hi\\\" \\\\ bye\"\n}"},
		{"escapes in keys", `{"a\u001bb":true}`, "{\n  \"a\\x1bb\": true\n}"},
		{"long string cut with its size", `{"content":"` + long + `","mode":"w"}`,
			"{\n  \"content\": \"" + strings.Repeat("x", maxString) + "…\" (12,431 bytes),\n  \"mode\": \"w\"\n}"},
		{"cut by runes", `{"s":"` + strings.Repeat("é", maxString+1) + `"}`,
			"{\n  \"s\": \"" + strings.Repeat("é", maxString) + "…\" (402 bytes)\n}"},
		{"nested", `{"a":[1,{"b":null,"c":[]},{}],"d":false}`,
			"{\n  \"a\": [\n    1,\n    {\n      \"b\": null,\n      \"c\": []\n    },\n    {}\n  ],\n  \"d\": false\n}"},
		{"empty object", `{}`, "(no arguments)"},
		{"nothing", ``, "(no arguments)"},
		{"not JSON", `{"a":` + "\x1b", "(not a JSON object: invalid character '\\\\x1b' looking for beginning of value)\n{\\\"a\\\":\\x1b"},
		{"trailing data", `{"a":1} {"b":2}`, "(not a JSON object: unexpected data after the JSON value)\n{\\\"a\\\":1} {\\\"b\\\":2}"},
	} {
		if got := FormatArgs(json.RawMessage(tc.args)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestDiff(t *testing.T) {
	many := strings.Repeat("new\n", 20)
	for _, tc := range []struct {
		name, old, updated, want string
	}{
		{"insert with context", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nX\nY\n5\n6\n7\n8\n",
			"@@ -2,6 +2,8 @@\n 2\n 3\n 4\n+X\n+Y\n 5\n 6\n 7\n"},
		{"replace at the start", "a\nb\nc\n", "A\nb\nc\n", "@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n"},
		{"delete at the end", "a\nb\nc\n", "a\n", "@@ -1,3 +1,1 @@\n a\n-b\n-c\n"},
		{"new file", "", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"emptied", "x\n", "", "@@ -1,1 +0,0 @@\n-x\n"},
		{"bounded", "old\n", many, "@@ -1,1 +1,20 @@\n-old\n" + strings.Repeat("+new\n", maxChanged) + "+… 8 more lines added\n"},
		{"escapes in lines", "a\n", "a\n\x1b[31mred\x1b[0m\n", "@@ -1,1 +1,2 @@\n a\n+\\x1b[31mred\\x1b[0m\n"},
		{"no change", "a\n", "a\n", "(no change)\n"},
		{"line endings only", "a\r\nb\r\n", "a\nb\n", "(only line endings change)\n"},
		{"long line cut", "", strings.Repeat("z", 500), "@@ -0,0 +1,1 @@\n+" + strings.Repeat("z", maxPreviewLine) + "…\n"},
	} {
		if got := diff([]byte(tc.old), []byte(tc.updated)); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestRenderPreview renders file-writing calls against real files.
func TestRenderPreview(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644)
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	files := os.DirFS(root)
	for _, tc := range []struct {
		name, tool, args string
		has              []string
		hasNot           []string
	}{
		{"insert", "insert_lines", `{"path":"notes.txt","line_start":3,"new_content":"2.5\n"}`,
			[]string{"Change to notes.txt:\n@@ -1,5 +1,6 @@\n one\n two\n+2.5\n three\n four\n five\n"}, nil},
		{"append", "insert_lines", `{"path":"notes.txt","line_start":6,"new_content":"six"}`,
			[]string{"@@ -3,3 +3,4 @@\n three\n four\n five\n+six\n"}, nil},
		{"replace", "replace_lines", `{"path":"./notes.txt","line_start":2,"line_end":4,"new_content":"middle"}`,
			[]string{"Change to ./notes.txt:\n@@ -1,5 +1,3 @@\n one\n-two\n-three\n-four\n+middle\n five\n"}, nil},
		{"overwrite", "write_file", `{"path":"notes.txt","content":"one\ntwo\n"}`,
			[]string{"@@ -1,5 +1,2 @@\n one\n two\n-three\n-four\n-five\n"}, nil},
		{"new file", "write_file", `{"path":"sub/new_file.go","content":"package sub\n"}`,
			[]string{"New file sub/new_file.go:\n@@ -0,0 +1,1 @@\n+package sub\n"}, nil},
		{"missing file", "replace_lines", `{"path":"replace_lits","line_start":1,"line_end":1,"new_content":"x"}`,
			[]string{"(replace_lits does not exist: the call will fail)"}, []string{"@@"}},
		{"out of range", "replace_lines", `{"path":"notes.txt","line_start":9,"line_end":9,"new_content":"x"}`,
			[]string{"(no preview of notes.txt: lines 9 to 9 are not in a file of 5 lines; the call will fail)"}, []string{"@@"}},
		{"insert past the end", "insert_lines", `{"path":"notes.txt","line_start":7,"new_content":"x"}`,
			[]string{"(no preview of notes.txt: cannot insert before line 7 of a file of 5 lines; the call will fail)"}, []string{"@@"}},
		{"directory", "write_file", `{"path":"dir","content":"x"}`, []string{"(no preview of dir: not a regular file)"}, nil},
		{"outside", "write_file", `{"path":"../x","content":"x"}`, []string{`(no preview: ../x is not a file in the working directory)`}, []string{"@@"}},
		{"absolute", "write_file", `{"path":"/etc/passwd","content":"x"}`, []string{"not a file in the working directory"}, []string{"@@"}},
		{"not a file tool", "bash", `{"command":"cat notes.txt"}`, nil, []string{"Change", "@@", "preview"}},
	} {
		got := Render(Request{Tool: tc.tool, Risk: tools.High, Args: json.RawMessage(tc.args)}, files)
		if !strings.HasPrefix(got, "⚠ Tool call: "+tc.tool+" (high risk)") || !strings.Contains(got, "\nArguments:\n{\n") {
			t.Errorf("%s: no title and arguments:\n%s", tc.name, got)
		}
		for _, s := range tc.has {
			if !strings.Contains(got, s) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, s, got)
			}
		}
		for _, s := range tc.hasNot {
			if strings.Contains(got, s) {
				t.Errorf("%s: has %q:\n%s", tc.name, s, got)
			}
		}
	}
	// Without files there is no preview; a medium-risk title has no warning.
	got := Render(Request{Tool: "read_file", Risk: tools.Medium, Args: json.RawMessage(`{"path":"a_b"}`)}, nil)
	if want := "Tool call: read_file (medium risk)\nArguments:\n{\n  \"path\": \"a_b\"\n}\n"; got != want {
		t.Errorf("medium risk:\n got %q\nwant %q", got, want)
	}
}

func TestVisibleInvalidUTF8(t *testing.T) {
	if got := visible("a\xffb\uFFFDc", 0); got != `a\xffb`+"\uFFFD"+`c` {
		t.Errorf("got %q", got)
	}
}

// TestRenderUnconfined: a tool whose description warns that it runs
// unconfined shows the warning in the prompt; a confined one does not.
func TestRenderUnconfined(t *testing.T) {
	reg, err := tools.Builtin(t.TempDir(), tools.WithUnconfinedBash())
	if err != nil {
		t.Fatal(err)
	}
	bash, _ := reg.Lookup("bash")
	req := Request{Tool: "bash", Description: bash.Description, Risk: bash.Risk, Args: json.RawMessage(`{"command":"ls"}`)}
	if got := Render(req, nil); !strings.Contains(got, "\n⚠ UNCONFINED: ") || !strings.Contains(got, "all of the user's rights") {
		t.Errorf("unconfined bash's prompt lacks the warning:\n%s", got)
	}
	req.Description = "Run a shell command. It runs in a sandbox."
	if got := Render(req, nil); strings.Contains(got, "UNCONFINED") {
		t.Errorf("a confined tool's prompt warns:\n%s", got)
	}
}
