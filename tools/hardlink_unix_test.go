//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardlinks: a file hard-linked into the root from outside is not
// read, searched or edited, unless hard links are allowed; write_file
// replaces the link and leaves the outside file alone.
func TestHardlinks(t *testing.T) {
	dir := t.TempDir()
	root, outside := filepath.Join(dir, "root"), filepath.Join(dir, "outside.txt")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	const secret = "secret outside line\n"
	if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(root, "linked.txt")); err != nil {
		t.Skipf("cannot make a hard link here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "plain.txt"), []byte("a secret inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path":"linked.txt"}`},
		{"replace_lines", `{"path":"linked.txt","line_start":1,"line_end":1,"new_content":"changed"}`},
		{"insert_lines", `{"path":"linked.txt","line_start":1,"new_content":"changed"}`},
	} {
		res := r.Execute(context.Background(), c.tool, json.RawMessage(c.args))
		if res.Success || res.ErrorType != TypePermissionDenied || !strings.Contains(res.Message(), "2 hard links") || strings.Contains(res.String(), "outside line") {
			t.Errorf("%s on a hard-linked file: %s", c.tool, res)
		}
	}
	res := r.Execute(context.Background(), "grep_search", json.RawMessage(`{"pattern":"secret"}`))
	if !res.Success || strings.Contains(res.Text(), "outside line") || !strings.Contains(res.Text(), "plain.txt") || !strings.Contains(res.Text(), "skipped linked.txt: it has more than one hard link") {
		t.Errorf("grep_search over a hard-linked file: %s", res)
	}
	// write_file replaces the link with a file of its own.
	res = r.Execute(context.Background(), "write_file", json.RawMessage(`{"path":"linked.txt","content":"new\n"}`))
	if !res.Success {
		t.Fatalf("write_file over a hard link: %s", res)
	}
	if got, _ := os.ReadFile(outside); string(got) != secret {
		t.Errorf("write_file through a hard link changed the outside file to %q", got)
	}
	// Allowed: read as any file.
	if err := os.Link(outside, filepath.Join(root, "again.txt")); err != nil {
		t.Fatal(err)
	}
	allowing, err := Builtin(root, WithHardLinks())
	if err != nil {
		t.Fatal(err)
	}
	res = allowing.Execute(context.Background(), "read_file", json.RawMessage(`{"path":"again.txt"}`))
	if !res.Success || !strings.Contains(res.Text(), "outside line") {
		t.Errorf("read_file with hard links allowed: %s", res)
	}
}
