package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixture builds a small project tree and the built-in tools over it.
func fixture(t *testing.T) (*Registry, string) {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"main.go":        "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
		"notes.txt":      "one\ntwo\nthree\nfour\nfive\n",
		"crlf.txt":       "a\r\nb\r\n",
		"noeol.txt":      "x\ny",
		"empty.txt":      "",
		"sub/lib.go":     "package sub\n\n// FUNC Main lives here\nfunc Main() {}\n",
		"sub/deep/x.go":  "package deep // func main\n",
		".hidden/h.go":   "package h // func main\n",
		".env":           "SECRET=func main\n",
		"build/gen.go":   "package gen // func main\n",
		"sub/ignored.go": "package sub // func main\n",
		".gitignore":     "build/\n",
		"sub/.gitignore": "ignored.go\n",
		".git/HEAD":      "func main\n",
		"bin.dat":        "func main\x00\x01\x02",
		"big/.keep":      "",
	}
	for name, data := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("main.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time { return time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("CET", 3600)) }
	r, err := Builtin(root, WithClock(clock), WithConfinement(helperExe(t)))
	if err != nil {
		t.Fatal(err)
	}
	return r, root
}

type toolCase struct {
	name, tool, args string
	typ              ErrorType
	has              []string // substrings of data (success) or message (failure)
	hasNot           []string
}

func runCases(t *testing.T, r *Registry, cases []toolCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := r.Execute(context.Background(), c.tool, json.RawMessage(c.args))
			if res.ErrorType != c.typ {
				t.Fatalf("error_type %s, want %s: %s", res.ErrorType, c.typ, res)
			}
			text := res.Text()
			if !res.Success {
				text = res.Message()
			}
			for _, s := range c.has {
				if !strings.Contains(text, s) {
					t.Errorf("output lacks %q:\n%s", s, text)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(text, s) {
					t.Errorf("output has %q:\n%s", s, text)
				}
			}
		})
	}
}

func TestBuiltinSet(t *testing.T) {
	r, _ := fixture(t)
	want := []struct {
		name string
		risk Risk
	}{
		{"ls", Safe}, {"read_file", Medium}, {"write_file", High}, {"replace_lines", High}, {"insert_lines", High},
		{"grep_search", Medium}, {"get_current_time", Safe}, {"get_working_directory", Safe},
		{"add_task", Safe}, {"list_tasks", Safe}, {"update_task", Safe}, {"bash", High},
	}
	got := r.Tools()
	if len(got) != len(want) {
		t.Fatalf("%d tools, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Name != w.name || got[i].Risk != w.risk {
			t.Errorf("tool %d = %s (%s), want %s (%s)", i, got[i].Name, got[i].Risk, w.name, w.risk)
		}
	}
	ls, _ := r.Lookup("ls")
	if order := strings.Join(propertyOrder(t, ls.Parameters), ","); order != "path,show_hidden,sort_by" {
		t.Errorf("ls parameters in order %s", order)
	}
}

func TestLs(t *testing.T) {
	r, _ := fixture(t)
	runCases(t, r, []toolCase{
		{"root", "ls", `{}`, TypeNone, []string{"TYPE", "FILE", "main.go", "DIR", "sub/", "LINK", "link.go", "files", "dirs", "total size"}, []string{".hidden", ".gitignore"}},
		{"hidden", "ls", `{"show_hidden":true}`, TypeNone, []string{".hidden/", ".gitignore", ".git/"}, nil},
		{"subdirectory", "ls", `{"path":"sub"}`, TypeNone, []string{"lib.go", "deep/", "1 dir"}, nil},
		{"sizes", "ls", `{"path":"sub/deep"}`, TypeNone, []string{"26 B", "1 file, 0 dirs, total size 26 B"}, nil},
		{"empty dir", "ls", `{"path":"big"}`, TypeNone, []string{"(empty directory)", "0 files"}, nil},
		{"parent", "ls", `{"path":"../"}`, TypePermissionDenied, []string{"outside the working directory"}, nil},
		{"absolute", "ls", `{"path":"/etc"}`, TypePermissionDenied, []string{"absolute"}, nil},
		{"missing", "ls", `{"path":"nope"}`, TypeNotFound, nil, nil},
		{"file", "ls", `{"path":"main.go"}`, TypeNone, []string{"File: main.go", "FILE", "main.go", "not a directory"}, []string{"lib.go"}},
		{"bad sort", "ls", `{"sort_by":"date"}`, TypeValidationFailed, []string{"sort_by"}, nil},
		{"no max_entries", "ls", `{"max_entries":2}`, TypeValidationFailed, []string{"unknown argument \"max_entries\""}, nil},
		{"bad json", "ls", `{"path":`, TypeParse, nil, nil},
	})
	// Sorting: by size, largest first, as ls -S.
	res := r.Execute(context.Background(), "ls", json.RawMessage(`{"sort_by":"size"}`))
	lines := strings.Split(res.Text(), "\n")
	if !strings.Contains(lines[2], "main.go") {
		t.Errorf("largest entry not first:\n%s", res.Text())
	}
	res = r.Execute(context.Background(), "ls", json.RawMessage(`{"sort_by":"name"}`))
	if i, j := strings.Index(res.Text(), "bin.dat"), strings.Index(res.Text(), "notes.txt"); i < 0 || j < 0 || i > j {
		t.Errorf("not sorted by name:\n%s", res.Text())
	}
}

func TestParseListing(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a b.txt", "café.md", "sub/x.go"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte(strings.Repeat("x", 2000)), 0o644)
	}
	os.Mkdir(filepath.Join(root, "empty"), 0o755)
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args string
		want Listing
		ok   bool
	}{
		{`{}`, Listing{Dir: ".", Names: []string{"a b.txt", "café.md", "empty/", "sub/"}}, true},
		{`{"path":"sub"}`, Listing{Dir: "sub", Names: []string{"x.go"}}, true},
		{`{"path":"empty"}`, Listing{Dir: "empty"}, true},
		{`{"path":"café.md"}`, Listing{}, false}, // a file lists itself
		{`{"path":"nope"}`, Listing{}, false},
	} {
		res := r.Execute(context.Background(), "ls", json.RawMessage(tc.args))
		got, ok := ParseListing(res.Text())
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ls %s: %#v %v, want %#v %v; the result:\n%s", tc.args, got, ok, tc.want, tc.ok, res.Text())
		}
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KB", 5 << 20: "5.0 MB", 3 << 30: "3.0 GB"} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestReadFile(t *testing.T) {
	r, root := fixture(t)
	big := filepath.Join(root, "huge.txt")
	f, _ := os.Create(big)
	f.Truncate(maxWholeFile + 1) // sparse: zeros, but refused by size first
	f.Close()
	hugeText := filepath.Join(root, "hugetext.txt")
	os.WriteFile(hugeText, []byte(strings.Repeat("line of text\n", maxWholeFile/13+10)), 0o644)
	var long strings.Builder // 3,000 lines, 197 KB, no final newline
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&long, "This is line %d of long.txt, with some filler text to make it long.\n", i)
	}
	os.WriteFile(filepath.Join(root, "long.txt"), []byte(strings.TrimSuffix(long.String(), "\n")), 0o644)
	runCases(t, r, []toolCase{
		// A long read stops on a line, under the registry's cap, and says
		// where to continue and how many lines there are.
		{"long", "read_file", `{"path":"long.txt"}`, TypeNone, []string{"1: This is line 1 of", "of long.txt, with some filler text to make it long.\n[stopped at line ", " of 3000 to keep the result short; continue with offset="}, []string{"output truncated"}},
		{"long from offset", "read_file", `{"path":"long.txt","offset":2990}`, TypeNone, []string{"2990: This", "3000: This is line 3000 of long.txt"}, []string{"stopped"}},
		{"long window", "read_file", `{"path":"long.txt","offset":10}`, TypeNone, []string{"10: This", "[stopped at line ", " of 3000 to keep"}, nil},
		{"whole", "read_file", `{"path":"notes.txt"}`, TypeNone, []string{"1: one\n2: two\n3: three\n4: four\n5: five\n"}, []string{"more lines"}},
		{"offset", "read_file", `{"path":"notes.txt","offset":2}`, TypeNone, []string{"2: two\n3: three\n4: four\n5: five\n"}, []string{"1: one", "continue"}},
		{"no limit", "read_file", `{"path":"notes.txt","limit":2}`, TypeValidationFailed, []string{"unknown argument \"limit\""}, nil},
		{"offset to end", "read_file", `{"path":"notes.txt","offset":5}`, TypeNone, []string{"5: five"}, []string{"more lines"}},
		{"crlf", "read_file", `{"path":"crlf.txt"}`, TypeNone, []string{"1: a\n2: b\n"}, []string{"\r"}},
		{"no final newline", "read_file", `{"path":"noeol.txt"}`, TypeNone, []string{"1: x\n2: y\n"}, nil},
		{"empty", "read_file", `{"path":"empty.txt"}`, TypeNone, []string{"(empty file)"}, nil},
		{"through link", "read_file", `{"path":"link.go"}`, TypeNone, []string{"3: func main() {"}, nil},
		{"past the end", "read_file", `{"path":"notes.txt","offset":9}`, TypeValidationFailed, []string{"past the end", "5 lines"}, nil},
		{"binary", "read_file", `{"path":"bin.dat"}`, TypeValidationFailed, []string{"binary"}, nil},
		{"directory", "read_file", `{"path":"sub"}`, TypeValidationFailed, []string{"directory"}, nil},
		{"too big", "read_file", `{"path":"hugetext.txt"}`, TypeValidationFailed, []string{"give an offset"}, nil},
		{"too big with window", "read_file", `{"path":"hugetext.txt","offset":3}`, TypeNone, []string{"3: line of text"}, nil},
		{"missing", "read_file", `{"path":"nope.txt"}`, TypeNotFound, nil, nil},
		{"escape", "read_file", `{"path":"../x"}`, TypePermissionDenied, nil, nil},
		{"no path", "read_file", `{}`, TypeValidationFailed, []string{`missing required argument "path"`}, nil},
		{"zero offset", "read_file", `{"path":"notes.txt","offset":0}`, TypeValidationFailed, []string{`"offset" must be at least 1`}, nil},
	})
}

func TestWriteFile(t *testing.T) {
	r, root := fixture(t)
	os.Chmod(filepath.Join(root, "notes.txt"), 0o600)
	runCases(t, r, []toolCase{
		{"create", "write_file", `{"path":"new/dir/f.txt","content":"héllo\n"}`, TypeNone, []string{"Created new/dir/f.txt (7 bytes)"}, nil},
		{"overwrite unread", "write_file", `{"path":"notes.txt","content":"replaced"}`, TypeValidationFailed, []string{"notes.txt already exists and has not been read", "read_file"}, nil},
		{"read", "read_file", `{"path":"notes.txt"}`, TypeNone, nil, nil},
		{"overwrite", "write_file", `{"path":"notes.txt","content":"replaced"}`, TypeNone, []string{"Overwrote notes.txt (8 bytes)"}, nil},
		{"overwrite again", "write_file", `{"path":"notes.txt","content":"replaced"}`, TypeNone, []string{"Overwrote notes.txt (8 bytes)"}, nil},
		{"read target", "read_file", `{"path":"main.go"}`, TypeNone, nil, nil},
		{"through link", "write_file", `{"path":"link.go","content":"package main\n"}`, TypeNone, []string{"main.go"}, nil},
		{"directory", "write_file", `{"path":"sub","content":"x"}`, TypeValidationFailed, []string{"directory"}, nil},
		{"root", "write_file", `{"path":".","content":"x"}`, TypeValidationFailed, nil, nil},
		{"escape", "write_file", `{"path":"../evil.txt","content":"x"}`, TypePermissionDenied, nil, nil},
		{"absolute", "write_file", `{"path":"/tmp/evil.txt","content":"x"}`, TypePermissionDenied, nil, nil},
		{"no content", "write_file", `{"path":"a.txt"}`, TypeValidationFailed, []string{`"content"`}, nil},
	})
	check := func(name, want string) {
		t.Helper()
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	check("new/dir/f.txt", "héllo\n")
	check("notes.txt", "replaced")
	check("main.go", "package main\n")
	if fi, _ := os.Lstat(filepath.Join(root, "link.go")); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("writing through a link replaced the link")
	}
	if fi, _ := os.Stat(filepath.Join(root, "notes.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("overwrite changed mode to %v", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(root), "evil.txt")); err == nil {
		t.Error("escaped write created a file outside the root")
	}
}

// TestWriteFileReadFirst: write_file replaces only a file the model has
// read as it is now, so that no content it never saw is lost.
func TestWriteFileReadFirst(t *testing.T) {
	r, root := fixture(t)
	path := filepath.Join(root, "notes.txt")
	later := time.Now().Add(time.Hour)
	runCases(t, r, []toolCase{
		{"line edit of an unread file", "replace_lines", `{"path":"notes.txt","line_start":1,"line_end":1,"new_content":"ONE"}`, TypeNone, nil, nil},
		{"still unread", "write_file", `{"path":"notes.txt","content":"x"}`, TypeValidationFailed, []string{"has not been read"}, nil},
		{"read", "read_file", `{"path":"notes.txt","offset":4}`, TypeNone, nil, nil},
		{"line edit of a read file", "insert_lines", `{"path":"notes.txt","line_start":1,"new_content":"zero"}`, TypeNone, nil, nil},
		{"still read", "write_file", `{"path":"notes.txt","content":"a\n"}`, TypeNone, []string{"Overwrote"}, nil},
	})
	if err := os.WriteFile(path, []byte("u\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, later, later) // the same size: only the time tells
	runCases(t, r, []toolCase{
		{"changed since read", "write_file", `{"path":"notes.txt","content":"b\n"}`, TypeValidationFailed, []string{"changed since it was last read"}, nil},
		{"read again", "read_file", `{"path":"notes.txt"}`, TypeNone, []string{"1: u"}, nil},
		{"then written", "write_file", `{"path":"notes.txt","content":"b\n"}`, TypeNone, nil, nil},
	})
	if b, _ := os.ReadFile(path); string(b) != "b\n" {
		t.Errorf("notes.txt = %q, want \"b\\n\"", b)
	}
	// The file as read_file shows it, line numbers and all, is not
	// written back over it; numbered text that differs is the model's
	// to write.
	if err := os.WriteFile(path, []byte("Buy milk\nCall Bob\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runCases(t, r, []toolCase{
		{"read", "read_file", `{"path":"notes.txt"}`, TypeNone, []string{"1: Buy milk\n2: Call Bob"}, nil},
		{"numbered copy", "write_file", `{"path":"notes.txt","content":"1: Buy milk\n2: Call Bob\n"}`, TypeValidationFailed, []string{"notes.txt already holds this text", "line numbers", "nothing was written"}, nil},
		{"numbered copy, no final newline", "write_file", `{"path":"notes.txt","content":"1: Buy milk\n2: Call Bob"}`, TypeValidationFailed, []string{"already holds"}, nil},
		{"numbered copy into another file", "write_file", `{"path":"backup.txt","content":"1: Buy milk\n2: Call Bob\n"}`, TypeValidationFailed, []string{"content is notes.txt as read_file showed it", "without them", "nothing was written"}, nil},
		{"unnumbered copy", "write_file", `{"path":"copy.txt","content":"Buy milk\nCall Bob\n"}`, TypeNone, nil, nil},
		{"numbered copy over its lines", "replace_lines", `{"path":"notes.txt","line_start":1,"line_end":2,"new_content":"1: Buy milk\n2: Call Bob"}`, TypeValidationFailed, []string{"new_content is ", "as read_file showed it", "without them"}, nil},
		{"numbered copy inserted", "insert_lines", `{"path":"copy.txt","line_start":1,"new_content":"1: Buy milk\n2: Call Bob"}`, TypeValidationFailed, []string{"new_content is ", "as read_file showed it"}, nil},
		{"numbered, changed", "write_file", `{"path":"notes.txt","content":"1: Buy oat milk\n2: Call Bob\n"}`, TypeValidationFailed, []string{"content starts its lines with line numbers", "(1: …)", "nothing was written"}, nil},
		{"numbered, a line added", "write_file", `{"path":"notes.txt","content":"1: Buy milk\n2: Call Bob\nShip it\n"}`, TypeValidationFailed, []string{"line numbers"}, nil},
		{"numbering continued", "write_file", `{"path":"notes.txt","content":"3: Ship it\n"}`, TypeValidationFailed, []string{"(3: …)"}, nil},
		{"numbered where it goes", "insert_lines", `{"path":"notes.txt","line_start":3,"new_content":"3: Ship it"}`, TypeNone, []string{"Inserted 1 line (without the line numbers 3: … that read_file shows) at the end", "+    3: Ship it"}, nil},
		{"numbered where it goes, twice", "replace_lines", `{"path":"notes.txt","line_start":2,"line_end":3,"new_content":"2: Call Bob\n3: Ship it today"}`, TypeNone, []string{"with 2 lines (without the line numbers 2: …", "+    3: Ship it today"}, nil},
		{"numbered where it goes but one", "insert_lines", `{"path":"notes.txt","line_start":4,"new_content":"4: Rest\n6: Sleep"}`, TypeValidationFailed, []string{"new_content starts its lines"}, nil},
		{"numbered elsewhere", "insert_lines", `{"path":"notes.txt","line_start":3,"new_content":"1: Ship it"}`, TypeNone, nil, nil},
		{"a numbered list of its own", "write_file", `{"path":"steps.txt","content":"1: install\n2: run\n"}`, TypeNone, nil, nil},
	})
	if b, _ := os.ReadFile(path); string(b) != "Buy milk\nCall Bob\n1: Ship it\nShip it today\n" {
		t.Errorf("notes.txt = %q after the numbered writes", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "backup.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("backup.txt was written: %v", err)
	}
	// A new conversation (the REPL's /clear, /load) has not read it.
	r.Forget()
	runCases(t, r, []toolCase{
		{"forgotten", "write_file", `{"path":"notes.txt","content":"c\n"}`, TypeValidationFailed, []string{"has not been read"}, nil},
		{"read after", "read_file", `{"path":"notes.txt"}`, TypeNone, nil, nil},
		{"written after", "write_file", `{"path":"notes.txt","content":"c\n"}`, TypeNone, nil, nil},
	})
}

func TestReplaceLines(t *testing.T) {
	cases := []struct {
		toolCase
		file, want string
	}{
		{toolCase{"middle", "replace_lines", `{"path":"notes.txt","line_start":2,"line_end":3,"new_content":"TWO\nTHREE\nTHREE+"}`, TypeNone, []string{"Replaced lines 2-3 (2 lines)", "with 3 lines", "+    2: TWO", "     1: one"}, nil},
			"notes.txt", "one\nTWO\nTHREE\nTHREE+\nfour\nfive\n"},
		{toolCase{"trailing newline in content", "replace_lines", `{"path":"notes.txt","line_start":1,"line_end":1,"new_content":"ONE\n"}`, TypeNone, nil, nil},
			"notes.txt", "ONE\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"delete", "replace_lines", `{"path":"notes.txt","line_start":4,"line_end":5,"new_content":""}`, TypeNone, []string{"with 0 lines"}, nil},
			"notes.txt", "one\ntwo\nthree\n"},
		{toolCase{"crlf kept", "replace_lines", `{"path":"crlf.txt","line_start":2,"line_end":2,"new_content":"B\nC"}`, TypeNone, nil, nil},
			"crlf.txt", "a\r\nB\r\nC\r\n"},
		{toolCase{"no final newline kept", "replace_lines", `{"path":"noeol.txt","line_start":2,"line_end":2,"new_content":"Y"}`, TypeNone, nil, nil},
			"noeol.txt", "x\nY"},
		{toolCase{"start out of range", "replace_lines", `{"path":"notes.txt","line_start":6,"line_end":6,"new_content":"x"}`, TypeValidationFailed, []string{"line_start 6 is out of range", "5 lines"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"end out of range", "replace_lines", `{"path":"notes.txt","line_start":2,"line_end":9,"new_content":"x"}`, TypeValidationFailed, []string{"line_end 9 is out of range"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"end before start", "replace_lines", `{"path":"notes.txt","line_start":3,"line_end":2,"new_content":"x"}`, TypeValidationFailed, []string{"before line_start"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"zero", "replace_lines", `{"path":"notes.txt","line_start":0,"line_end":1,"new_content":"x"}`, TypeValidationFailed, []string{"at least 1"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"binary", "replace_lines", `{"path":"bin.dat","line_start":1,"line_end":1,"new_content":"x"}`, TypeValidationFailed, []string{"binary"}, nil},
			"bin.dat", "func main\x00\x01\x02"},
		{toolCase{"missing", "replace_lines", `{"path":"nope","line_start":1,"line_end":1,"new_content":"x"}`, TypeNotFound, nil, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"escape", "replace_lines", `{"path":"../x","line_start":1,"line_end":1,"new_content":"x"}`, TypePermissionDenied, nil, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
	}
	for _, c := range cases {
		r, root := fixture(t)
		runCases(t, r, []toolCase{c.toolCase})
		got, _ := os.ReadFile(filepath.Join(root, c.file))
		if string(got) != c.want {
			t.Errorf("%s: file = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestInsertLines(t *testing.T) {
	cases := []struct {
		toolCase
		file, want string
	}{
		{toolCase{"before 3", "insert_lines", `{"path":"notes.txt","line_start":3,"new_content":"2.5a\n2.5b"}`, TypeNone,
			[]string{"Inserted 2 lines before line 3", "     1: one\n     2: two\n+    3: 2.5a\n+    4: 2.5b\n     5: three\n     6: four\n"}, nil},
			"notes.txt", "one\ntwo\n2.5a\n2.5b\nthree\nfour\nfive\n"},
		{toolCase{"first", "insert_lines", `{"path":"notes.txt","line_start":1,"new_content":"zero"}`, TypeNone, nil, nil},
			"notes.txt", "zero\none\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"append", "insert_lines", `{"path":"notes.txt","line_start":6,"new_content":"six"}`, TypeNone, []string{"at the end"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\nsix\n"},
		{toolCase{"append without final newline", "insert_lines", `{"path":"noeol.txt","line_start":3,"new_content":"z"}`, TypeNone, nil, nil},
			"noeol.txt", "x\ny\nz"},
		{toolCase{"into empty file", "insert_lines", `{"path":"empty.txt","line_start":1,"new_content":"first"}`, TypeNone, nil, nil},
			"empty.txt", "first\n"},
		{toolCase{"no line_end", "insert_lines", `{"path":"notes.txt","line_start":2,"line_end":2,"new_content":"x"}`, TypeValidationFailed, []string{"line_end"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"out of range", "insert_lines", `{"path":"notes.txt","line_start":7,"new_content":"x"}`, TypeValidationFailed, []string{"1 to 6"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"nothing", "insert_lines", `{"path":"notes.txt","line_start":1,"new_content":""}`, TypeValidationFailed, []string{"empty"}, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
		{toolCase{"missing", "insert_lines", `{"path":"nope","line_start":1,"new_content":"x"}`, TypeNotFound, nil, nil},
			"notes.txt", "one\ntwo\nthree\nfour\nfive\n"},
	}
	for _, c := range cases {
		r, root := fixture(t)
		runCases(t, r, []toolCase{c.toolCase})
		got, _ := os.ReadFile(filepath.Join(root, c.file))
		if string(got) != c.want {
			t.Errorf("%s: file = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestGrepSearch(t *testing.T) {
	r, _ := fixture(t)
	runCases(t, r, []toolCase{
		{"default respects gitignore and hidden", "grep_search", `{"pattern":"func*main"}`, TypeNone,
			[]string{"main.go:3: func main() {", "sub/lib.go:3: // FUNC Main lives here", "sub/deep/x.go:1:"},
			[]string{"build/gen.go", "sub/ignored.go", ".hidden", ".env", ".git/", "bin.dat", "[+", "link.go"}},
		{"case insensitive", "grep_search", `{"pattern":"FUNC MAIN","file_filter":"main.go"}`, TypeNone, []string{"1 match", "main.go:3:"}, nil},
		{"filter with **", "grep_search", `{"pattern":"func*main","file_filter":"sub/**/*.go"}`, TypeNone, []string{"sub/lib.go", "sub/deep/x.go"}, []string{"main.go:"}},
		{"filter without slash matches names anywhere", "grep_search", `{"pattern":"package","file_filter":"x.go"}`, TypeNone, []string{"sub/deep/x.go"}, nil},
		{"hidden", "grep_search", `{"pattern":"func*main","include_hidden":true}`, TypeNone, []string{".hidden/h.go", ".env", "[+hidden]"}, []string{".git/HEAD"}},
		{"gitignored", "grep_search", `{"pattern":"func*main","ignore_gitignore":true}`, TypeNone, []string{"build/gen.go", "sub/ignored.go", "[+gitignored]"}, []string{".git/HEAD"}},
		{"no match", "grep_search", `{"pattern":"zebra"}`, TypeNone, []string{"No matches"}, nil},
		{"literal regexp characters", "grep_search", `{"pattern":"println(\"hi\")"}`, TypeNone, []string{"main.go:4:"}, nil},
		{"only wildcards", "grep_search", `{"pattern":"**"}`, TypeValidationFailed, []string{"matches everything"}, nil},
		{"bad glob", "grep_search", `{"pattern":"x","file_filter":"[a"}`, TypeValidationFailed, []string{"not a valid glob"}, nil},
		{"filter escapes", "grep_search", `{"pattern":"x","file_filter":"../**"}`, TypePermissionDenied, nil, nil},
		{"no max_results", "grep_search", `{"pattern":"x","max_results":5}`, TypeValidationFailed, []string{"unknown argument \"max_results\""}, nil},
	})
}

// TestListingCaps checks the fixed caps of ls (500 entries) and
// grep_search (200 matching lines), and that each says what it left out.
func TestListingCaps(t *testing.T) {
	root := t.TempDir()
	var many strings.Builder
	for i := range 510 {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%03d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		many.WriteString("needle\n")
	}
	if err := os.WriteFile(filepath.Join(root, "many.txt"), []byte(many.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	runCases(t, r, []toolCase{
		{"ls", "ls", `{}`, TypeNone, []string{"showing 500 of 511", "f000.txt"}, []string{"many.txt"}},
		{"grep", "grep_search", `{"pattern":"needle"}`, TypeNone, []string{"many.txt:200:", "stopped at 200 matching lines"}, []string{"many.txt:201:"}},
	})
}

func TestTimeAndDirectory(t *testing.T) {
	r, root := fixture(t)
	real, _ := filepath.EvalSymlinks(root)
	runCases(t, r, []toolCase{
		{"time", "get_current_time", `{}`, TypeNone, []string{"Tuesday, 4 March 2025, 05:06:07 ", "(UTC+01:00)", "ISO 8601: 2025-03-04T05:06:07+01:00"}, nil},
		{"time takes no arguments", "get_current_time", `{"zone":"UTC"}`, TypeValidationFailed, []string{"takes no arguments"}, nil},
		{"cwd", "get_working_directory", ``, TypeNone, []string{real}, nil},
	})
}

// TestParseClock reads get_current_time's result back, as the agent does.
func TestParseClock(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("CET", 3600))
	got, ok := ParseClock(clockText(at))
	if !ok || !got.Equal(at) || got.Format("-07:00") != "+01:00" {
		t.Errorf("ParseClock(clockText(%v)) = %v, %v", at, got, ok)
	}
	for _, text := range []string{"", "Tuesday, 4 March 2025", "ISO 8601: yesterday", "ISO 8601:"} {
		if _, ok := ParseClock(text); ok {
			t.Errorf("ParseClock(%q) holds a time", text)
		}
	}
}

func TestTasks(t *testing.T) {
	r, _ := fixture(t)
	runCases(t, r, []toolCase{
		{"list empty", "list_tasks", `{}`, TypeNone, []string{"No tasks"}, nil},
		{"update on empty", "update_task", `{"id":"task_1","status":"completed"}`, TypeNotFound, []string{"empty"}, nil},
		{"add 1", "add_task", `{"task":"write tests"}`, TypeNone, []string{"task_1", "pending"}, nil},
		{"add 2", "add_task", `{"task":"ship"}`, TypeNone, []string{"task_2"}, nil},
		{"add empty", "add_task", `{"task":"  "}`, TypeValidationFailed, nil, nil},
		{"start", "update_task", `{"id":"task_1","status":"in_progress"}`, TypeNone, []string{"pending → in_progress"}, nil},
		{"list", "list_tasks", `{}`, TypeNone, []string{"task_1 [in_progress] write tests", "task_2 [pending] ship", "2 tasks: 1 pending, 1 in progress, 0 completed"}, nil},
		{"filter", "list_tasks", `{"status":"pending"}`, TypeNone, []string{"task_2"}, []string{"task_1"}},
		{"filter none", "list_tasks", `{"status":"completed"}`, TypeNone, []string{"No completed tasks"}, nil},
		{"unknown id", "update_task", `{"id":"task_9","status":"completed"}`, TypeNotFound, []string{"task_1 to task_2"}, nil},
		{"bad status", "update_task", `{"id":"task_1","status":"done"}`, TypeValidationFailed, []string{"pending", "in_progress", "completed"}, nil},
	})
	// A second registry has its own list.
	r2, _ := fixture(t)
	runCases(t, r2, []toolCase{{"fresh list", "list_tasks", `{}`, TypeNone, []string{"No tasks"}, nil}})
}

func TestBash(t *testing.T) {
	r, root := fixture(t)
	runCases(t, r, []toolCase{
		{"ok", "bash", `{"command":"echo out; echo err >&2"}`, TypeNone, []string{"exit code: 0", "stdout:\nout\n", "stderr:\nerr\n"}, nil},
		{"exit code", "bash", `{"command":"exit 7"}`, TypeNone, []string{"exit code: 7", "stdout: (empty)"}, nil},
		{"runs in root", "bash", `{"command":"cat notes.txt | wc -l"}`, TypeNone, []string{"5"}, nil},
		{"capped", "bash", `{"command":"head -c 100000 /dev/zero | tr '\\0' a"}`, TypeNone, []string{"more bytes not shown"}, nil},
		{"empty", "bash", `{"command":" "}`, TypeValidationFailed, nil, nil},
		{"timeout too long", "bash", `{"command":"true","timeout_seconds":601}`, TypeValidationFailed, []string{"at most 600"}, nil},
	})
	// A timeout kills the whole process group, children included.
	pidFile := filepath.Join(root, "child.pid")
	start := time.Now()
	res := r.Execute(context.Background(), "bash", json.RawMessage(`{"command":"sleep 30 & echo $! > child.pid; echo started; wait","timeout_seconds":1}`))
	if res.Success || res.ErrorType != TypeIO || !strings.Contains(res.Message(), "timed out") || !strings.Contains(res.Text(), "started") {
		t.Fatalf("timeout result: %s", res)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %v", d)
	}
	pid, _ := os.ReadFile(pidFile)
	if len(pid) > 0 {
		deadline := time.Now().Add(5 * time.Second)
		for processAlive(strings.TrimSpace(string(pid))) {
			if time.Now().After(deadline) {
				t.Fatalf("child %s survived the timeout", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Cancelling the context stops the command too.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res = r.Execute(ctx, "bash", json.RawMessage(`{"command":"sleep 30"}`))
	if res.Success || !strings.Contains(res.Message(), "cancelled") {
		t.Errorf("cancelled command: %s", res)
	}
}

// processAlive reports whether the process exists and is not a zombie.
func processAlive(pid string) bool {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat))
	return len(fields) > 2 && fields[2] != "Z"
}

// TestWriteFileFidelity: content and paths are written exactly as sent or
// refused; nothing becomes U+FFFD, and long names fit.
func TestWriteFileFidelity(t *testing.T) {
	r, root := fixture(t)
	long250, long255 := strings.Repeat("n", 246)+".txt", strings.Repeat("m", 251)+".txt"
	runCases(t, r, []toolCase{
		{"invalid UTF-8 content", "write_file", "{\"path\":\"bad.txt\",\"content\":\"a\xff\xfeb\"}", TypeValidationFailed, []string{"not valid UTF-8", "0xff"}, nil},
		{"invalid UTF-8 path", "write_file", "{\"path\":\"bad\xc3.txt\",\"content\":\"x\"}", TypeValidationFailed, []string{"not valid UTF-8"}, nil},
		{"invalid UTF-8 in string-wrapped arguments", "write_file", "\"{\\\"path\\\":\\\"bad.txt\\\",\\\"content\\\":\\\"\xff\\\"}\"", TypeValidationFailed, []string{"not valid UTF-8"}, nil},
		{"unpaired surrogate", "write_file", `{"path":"bad.txt","content":"a\udcffb"}`, TypeValidationFailed, []string{`unpaired UTF-16 surrogate escape \udcff`}, nil},
		{"unpaired surrogate, string-wrapped", "write_file", `"{\"path\":\"bad.txt\",\"content\":\"\\ud800\"}"`, TypeValidationFailed, []string{"unpaired"}, nil},
		{"invalid UTF-8 in an edit", "replace_lines", "{\"path\":\"notes.txt\",\"line_start\":1,\"line_end\":1,\"new_content\":\"\xfe\"}", TypeValidationFailed, []string{"not valid UTF-8"}, nil},
		{"surrogate pair", "write_file", `{"path":"pair.txt","content":"\ud83d\ude00 \ufffd"}`, TypeNone, nil, nil},
		{"250-byte name", "write_file", `{"path":"` + long250 + `","content":"x"}`, TypeNone, []string{"Created " + long250}, nil},
		{"255-byte name", "write_file", `{"path":"` + long255 + `","content":"y"}`, TypeNone, nil, nil},
		{"255-byte name edited", "replace_lines", `{"path":"` + long255 + `","line_start":1,"line_end":1,"new_content":"z"}`, TypeNone, nil, nil},
	})
	if _, err := os.Lstat(filepath.Join(root, "bad.txt")); err == nil {
		t.Error("a refused write created bad.txt")
	}
	if b, _ := os.ReadFile(filepath.Join(root, "notes.txt")); string(b) != "one\ntwo\nthree\nfour\nfive\n" {
		t.Errorf("a refused edit changed notes.txt to %q", b)
	}
	for name, want := range map[string]string{"pair.txt": "😀 \uFFFD", long250: "x", long255: "z"} {
		if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
			t.Errorf("%.20s… = %q, %v; want %q", name, b, err, want)
		}
	}
}

// TestLsBelow: a listing of a directory with folders ends with the files
// below them, as grep_search would find them (not hidden, not ignored),
// or their count when they are many.
func TestLsBelow(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a.txt", "src/x.go", "src/pkg/y_test.go", ".hidden/d/w.txt", "build/out.bin", "src/pkg/.env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte("x\n"), 0o644)
	}
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n"), 0o644)
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args, want string // want: the listing's last line; "" for none
	}{
		{`{}`, "Below its folders, 2 files: src/pkg/y_test.go, src/x.go"},
		{`{"show_hidden":true}`, "Below its folders, 4 files: .hidden/d/w.txt, src/pkg/.env, src/pkg/y_test.go, src/x.go"},
		{`{"path":"src"}`, "Below its folders, 1 file: pkg/y_test.go"},
		{`{"path":".hidden"}`, "Below its folders, 1 file: d/w.txt"}, // the folder asked for is entered
		{`{"path":"src/pkg"}`, ""}, // no folders
		{`{"path":"build"}`, ""},
	} {
		res := r.Execute(t.Context(), "ls", json.RawMessage(tc.args))
		if !res.Success {
			t.Fatalf("ls %s: %s", tc.args, res.Text())
		}
		lines := strings.Split(strings.TrimSpace(res.Text()), "\n")
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "Below") && !strings.HasPrefix(last, "No files") {
			last = ""
		}
		if last != tc.want {
			t.Errorf("ls %s ends %q, want %q\n%s", tc.args, last, tc.want, res.Text())
		}
		if l, ok := ParseListing(res.Text()); !ok || slices.ContainsFunc(l.Names, func(n string) bool { return strings.Contains(n, "Below") }) {
			t.Errorf("ParseListing(ls %s) = %+v, %v", tc.args, l, ok)
		}
	}
	for i := range maxBelowNamed + 1 {
		p := filepath.Join(root, "many", fmt.Sprintf("f%02d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("x\n"), 0o644)
	}
	res := r.Execute(t.Context(), "ls", json.RawMessage(`{}`))
	if want := fmt.Sprintf("%d files below its folders (ls a folder to see them).", maxBelowNamed+3); !strings.HasSuffix(strings.TrimSpace(res.Text()), want) {
		t.Errorf("ls of many files ends:\n%s\nwant %q", res.Text(), want)
	}
	// Folders with no file to name: no line, rather than "no files"
	// where ignored ones are.
	os.MkdirAll(filepath.Join(root, "src", "empty"), 0o755)
	os.Remove(filepath.Join(root, "src", "pkg", "y_test.go"))
	os.Remove(filepath.Join(root, "src", "pkg", ".env"))
	os.MkdirAll(filepath.Join(root, "build", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "build", "sub", "x.o"), []byte("x\n"), 0o644)
	for _, dir := range []string{"src", "build"} {
		res = r.Execute(t.Context(), "ls", json.RawMessage(`{"path":"`+dir+`"}`))
		if !res.Success || strings.Contains(res.Text(), "below its folders") {
			t.Errorf("ls %s:\n%s\nwant no line on the files below", dir, res.Text())
		}
	}
	// A listing cancelled while it looks below its folders fails; it is
	// not shown without its last line.
	sb, err := NewSandbox(root)
	if err != nil {
		t.Fatal(err)
	}
	defer sb.dir.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if out, err := (&fileTools{sb: sb}).ls(ctx, lsArgs{Path: ".", SortBy: "name"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled ls = %q, %v; want context.Canceled", out, err)
	}
}
