package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func callOK(t *testing.T, r *Registry, name, args string) {
	t.Helper()
	if res := r.Execute(context.Background(), name, json.RawMessage(args)); !res.Success {
		t.Fatalf("%s %s: %s", name, args, res.Message())
	}
}

// TestJournalUndo writes, edits and creates files through the tools, then
// undoes every change, last first: each file is back byte for byte with
// its mode, and created files are gone.
func TestJournalUndo(t *testing.T) {
	root := t.TempDir()
	orig := []byte("one\r\ntwo\r\nthree") // CRLF, no final newline
	if err := os.WriteFile(filepath.Join(root, "a.txt"), orig, 0o640); err != nil {
		t.Fatal(err)
	}
	var j Journal
	r, err := Builtin(root, WithJournal(&j))
	if err != nil {
		t.Fatal(err)
	}
	callOK(t, r, "replace_lines", `{"path":"a.txt","line_start":2,"line_end":2,"new_content":"TWO"}`)
	edited, _ := os.ReadFile(filepath.Join(root, "a.txt"))
	callOK(t, r, "read_file", `{"path":"a.txt"}`)
	callOK(t, r, "write_file", `{"path":"a.txt","content":"replaced"}`)
	callOK(t, r, "write_file", `{"path":"sub/new.txt","content":""}`)
	callOK(t, r, "insert_lines", `{"path":"sub/new.txt","line_start":1,"new_content":"x"}`)
	callOK(t, r, "read_file", `{"path":"a.txt"}`) // reads are not journaled
	if n := j.Len(); n != 4 {
		t.Fatalf("%d changes, want 4: %+v", n, j.Changes())
	}

	steps := []struct {
		path    string
		existed bool
		want    []byte // nil: the file is gone
	}{
		{"sub/new.txt", true, []byte{}},
		{"sub/new.txt", false, nil},
		{"a.txt", true, edited},
		{"a.txt", true, orig},
	}
	for i, s := range steps {
		c, err := j.Undo(false)
		if err != nil {
			t.Fatalf("undo %d: %v", i, err)
		}
		if c.Path != s.path || c.Existed != s.existed {
			t.Errorf("undo %d: undid %s (existed %v), want %s (%v)", i, c.Path, c.Existed, s.path, s.existed)
		}
		got, err := os.ReadFile(filepath.Join(root, s.path))
		switch {
		case s.want == nil && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("undo %d: %s still exists (%v)", i, s.path, err)
		case s.want != nil && (err != nil || !bytes.Equal(got, s.want)):
			t.Errorf("undo %d: %s = %q (%v), want %q", i, s.path, got, err, s.want)
		}
	}
	if fi, _ := os.Stat(filepath.Join(root, "a.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v after undo, want 0640", fi.Mode().Perm())
	}
	if _, err := j.Undo(false); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo of nothing: %v", err)
	}
}

// TestJournalChangedSince: a file changed after the tool wrote it is not
// clobbered unless forced, and the change stays to be undone.
func TestJournalChangedSince(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "a.txt")
	os.WriteFile(path, []byte("old\n"), 0o644)
	var j Journal
	r, err := Builtin(root, WithJournal(&j))
	if err != nil {
		t.Fatal(err)
	}
	callOK(t, r, "read_file", `{"path":"a.txt"}`)
	callOK(t, r, "write_file", `{"path":"a.txt","content":"tool\n"}`)
	os.WriteFile(path, []byte("user\n"), 0o644)
	if _, err := j.Undo(false); !errors.Is(err, ErrChangedSince) {
		t.Fatalf("undo over a user's change: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "user\n" || j.Len() != 1 {
		t.Fatalf("after a refused undo: %q, %d changes", got, j.Len())
	}
	if _, err := j.Undo(true); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" || j.Len() != 0 {
		t.Fatalf("after a forced undo: %q, %d changes", got, j.Len())
	}

	// A failed write records nothing; one journal serves one tool set.
	os.Mkdir(filepath.Join(root, "dir"), 0o755)
	if res := r.Execute(context.Background(), "write_file", json.RawMessage(`{"path":"dir","content":"x"}`)); res.Success || j.Len() != 0 {
		t.Fatalf("write over a directory: %v, %d changes", res.Success, j.Len())
	}
	if _, err := Builtin(t.TempDir(), WithJournal(&j)); err == nil {
		t.Fatal("a journal bound twice")
	}
}
