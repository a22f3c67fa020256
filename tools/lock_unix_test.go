//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEditWaitsForLock: while another process holds the edit lock of a
// directory, write_file and insert_lines there wait for it, give up
// unchanged when their context ends, and go ahead once it is released.
func TestEditWaitsForLock(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	// Another open file description of the directory stands for another
	// process: flock locks conflict between them.
	d, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("no flock here: %v", err)
	}
	write := json.RawMessage(`{"path":"new.txt","content":"x\n"}`)
	insert := json.RawMessage(`{"path":"f.txt","line_start":1,"new_content":"zero"}`)
	for _, c := range []struct {
		tool string
		args json.RawMessage
	}{{"write_file", write}, {"insert_lines", insert}} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		begin := time.Now()
		res := r.Execute(ctx, c.tool, c.args)
		cancel()
		if res.Success {
			t.Errorf("%s went ahead while the lock was held", c.tool)
		}
		if d := time.Since(begin); d < 150*time.Millisecond || d > 5*time.Second {
			t.Errorf("%s gave up after %s, want once its context ended", c.tool, d)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Error("write_file wrote while the lock was held")
	}
	if data, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(data) != "one\n" {
		t.Errorf("insert_lines changed the file while the lock was held: %q", data)
	}
	go func() {
		time.Sleep(100 * time.Millisecond)
		syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
	}()
	for _, c := range []struct {
		tool string
		args json.RawMessage
	}{{"write_file", write}, {"insert_lines", insert}} {
		if res := r.Execute(context.Background(), c.tool, c.args); !res.Success {
			t.Errorf("%s once the lock is released: %s", c.tool, res.Compact())
		}
	}
	if data, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(data) != "zero\none\n" {
		t.Errorf("f.txt: %q", data)
	}
}

// TestWriteFileSeesReplacedFile: a file replaced by a rename since it was
// read, with the same size and modification time, is still seen as
// changed: write_file refuses to overwrite it.
func TestWriteFileSeesReplacedFile(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "f.txt")
	if err := os.WriteFile(path, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	if res := r.Execute(context.Background(), "read_file", json.RawMessage(`{"path":"f.txt"}`)); !res.Success {
		t.Fatal(res.Compact())
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(root, "other")
	if err := os.WriteFile(other, []byte("your\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(other, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(other, path); err != nil {
		t.Fatal(err)
	}
	res := r.Execute(context.Background(), "write_file", json.RawMessage(`{"path":"f.txt","content":"new\n"}`))
	if res.Success || !strings.Contains(res.Message(), "has changed since it was last read") {
		t.Errorf("write_file over a replaced file: %s", res.Compact())
	}
	if data, _ := os.ReadFile(path); string(data) != "your\n" {
		t.Errorf("f.txt: %q", data)
	}
}
