package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestToolErrorsInOwnWords checks that failures on real files read as the
// tool's own error ("not_found: replace_lits does not exist"), list what
// the nearest directory holds, and never name the root's absolute path.
func TestToolErrorsInOwnWords(t *testing.T) {
	r, root := fixture(t)
	for _, tc := range []struct {
		tool, args, want string
	}{
		{"replace_lines", `{"path":"replace_lits","line_start":1,"line_end":1,"new_content":"x"}`, "not_found: replace_lits does not exist; the working directory holds big/, bin.dat, build/, crlf.txt, empty.txt, link.go, main.go, noeol.txt, notes.txt, sub/"},
		{"insert_lines", `{"path":"insert_lits","line_start":1,"new_content":"x"}`, "not_found: insert_lits does not exist; the working directory holds big/, bin.dat, build/, crlf.txt, empty.txt, link.go, main.go, noeol.txt, notes.txt, sub/"},
		{"read_file", `{"path":"sub/nope.go"}`, "not_found: sub/nope.go does not exist; sub holds deep/, ignored.go, lib.go"},
		{"read_file", `{"path":"./sub/../nope.go"}`, "not_found: ./sub/../nope.go does not exist; the working directory holds big/, bin.dat, build/, crlf.txt, empty.txt, link.go, main.go, noeol.txt, notes.txt, sub/"},
		{"ls", `{"path":"nope"}`, "not_found: nope does not exist; the working directory holds big/, bin.dat, build/, crlf.txt, empty.txt, link.go, main.go, noeol.txt, notes.txt, sub/"},
		{"read_file", `{"path":"/etc/notes.txt"}`, `permission_denied: path is outside the working directory: "/etc/notes.txt" is absolute; give a path relative to the working directory, which holds big/, bin.dat, build/, crlf.txt, empty.txt, link.go, main.go, noeol.txt, notes.txt, sub/`},
		{"read_file", `{"path":"notes.txt/x"}`, "not_found: notes.txt/x does not exist: a parent on its path is a file, not a directory"},
		{"read_file", `{"path":"link.go/x"}`, "not_found: link.go/x does not exist: a parent on its path is a file, not a directory"},
		// A name that differs in case: on a file system that tells them apart.
		{"read_file", `{"path":"NOTES.txt"}`, "not_found: NOTES.txt does not exist, but notes.txt does (names differ in case)"},
		{"read_file", `{"path":"./sub/Lib.go"}`, "not_found: ./sub/Lib.go does not exist, but ./sub/lib.go does (names differ in case)"},
	} {
		if _, err := os.Stat(filepath.Join(root, "NOTES.txt")); err == nil && strings.Contains(tc.want, "in case") {
			continue // the file system ignores case
		}
		res := r.Execute(context.Background(), tc.tool, json.RawMessage(tc.args))
		if got := res.Compact(); got != tc.want {
			t.Errorf("%s %s:\n got %q\nwant %q", tc.tool, tc.args, got, tc.want)
		}
		if strings.Contains(res.String(), root) {
			t.Errorf("%s %s: the result names the root: %s", tc.tool, tc.args, res)
		}
	}
}

// TestNoAbsoluteRootInErrors runs failing calls after the root directory is
// gone (so the system's errors name it) and checks that no message holds
// the root's absolute path.
func TestNoAbsoluteRootInErrors(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "project")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args string }{
		{"bash", `{"command":"true"}`},
		{"read_file", `{"path":"a.txt"}`},
		{"write_file", `{"path":"a/b.txt","content":"x"}`},
		{"ls", `{}`},
		{"grep_search", `{"pattern":"x"}`},
	} {
		res := r.Execute(context.Background(), c.tool, json.RawMessage(c.args))
		if res.Success {
			continue // nothing to check: the call did not fail
		}
		if strings.Contains(res.String(), parent) {
			t.Errorf("%s: the error names the host path: %s", c.tool, res.Compact())
		}
		if res.ErrorType == TypeNone || res.ErrorType == "" {
			t.Errorf("%s: failed without a type: %s", c.tool, res)
		}
	}
	// The bash tool cannot start in a missing directory: the message says
	// so in root-relative terms.
	res := r.Execute(context.Background(), "bash", json.RawMessage(`{"command":"true"}`))
	if res.Success || res.Compact() != "not_found: the working directory no longer exists" {
		t.Errorf("bash in a removed root: %s", res.Compact())
	}
}

func TestPathError(t *testing.T) {
	root := t.TempDir()
	sb, err := NewSandbox(root)
	if err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(sb.Root(), "dir", "f.txt")
	for _, tc := range []struct {
		name string
		err  error
		want string
		typ  ErrorType
	}{
		{"missing", &fs.PathError{Op: "openat", Path: abs, Err: syscall.ENOENT}, "dir/f.txt does not exist; the working directory holds no files", TypeNotFound},
		{"stat missing", &fs.PathError{Op: "stat", Path: abs, Err: syscall.ENOENT}, "dir/f.txt does not exist; the working directory holds no files", TypeNotFound},
		{"not a directory", &fs.PathError{Op: "open", Path: abs, Err: syscall.ENOTDIR}, "dir/f.txt does not exist: a parent on its path is a file, not a directory", TypeNotFound},
		{"permission", &fs.PathError{Op: "openat", Path: abs, Err: syscall.EACCES}, "cannot open dir/f.txt: permission denied", TypePermissionDenied},
		{"rename", &os.LinkError{Op: "renameat", Old: abs + ".tmp", New: abs, Err: syscall.EXDEV}, "cannot rename dir/f.txt: invalid cross-device link", TypeIO},
		{"no space", &os.SyscallError{Syscall: "fsync", Err: syscall.ENOSPC}, "cannot fsync dir/f.txt: no space left on device", TypeIO},
		{"other", errors.New("read " + abs + ": input/output error"), "read dir/f.txt: input/output error", TypeInternal},
		{"the root", errors.New("chdir " + sb.Root() + ": no such file or directory"), "chdir .: no such file or directory", TypeInternal},
		{"typed", Errorf(TypeValidationFailed, "dir/f.txt is a directory"), "dir/f.txt is a directory", TypeValidationFailed},
	} {
		got := sb.pathError("dir/f.txt", tc.err)
		if got.Error() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if typ := TypeOf(got); typ != tc.typ {
			t.Errorf("%s: type %s, want %s", tc.name, typ, tc.typ)
		}
	}
	if sb.pathError("x", nil) != nil {
		t.Error("pathError(nil) is not nil")
	}
}
