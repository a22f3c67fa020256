//go:build unix

package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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

// TestUndoWaitsForLock: while another process holds the edit lock of the
// file's directory, an undo waits for it. An edit that process makes
// meanwhile is kept (the undo refuses: the file changed since the tool
// wrote it); without one the undo applies once the lock is released.
func TestUndoWaitsForLock(t *testing.T) {
	for _, edit := range []bool{true, false} {
		root := t.TempDir()
		path := filepath.Join(root, "f.txt")
		if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var j Journal
		r, err := Builtin(root, WithJournal(&j))
		if err != nil {
			t.Fatal(err)
		}
		callOK(t, r, "insert_lines", `{"path":"f.txt","line_start":1,"new_content":"zero"}`)
		// Another open file description of the directory stands for
		// another process: flock locks conflict between them.
		d, err := os.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX); err != nil {
			d.Close()
			t.Skipf("no flock here: %v", err)
		}
		done := make(chan error, 1)
		go func() { _, err := j.Undo(false); done <- err }()
		select {
		case err := <-done:
			d.Close()
			t.Fatalf("the undo ended (%v) while another process held the lock", err)
		case <-time.After(300 * time.Millisecond):
		}
		if edit { // as the file tools do: a new file renamed over it
			tmp := filepath.Join(root, ".f.txt.tmp")
			if err := os.WriteFile(tmp, []byte("other\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}
		d.Close() // releases the lock
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the undo still waits 10s after the lock was released")
		}
		data, _ := os.ReadFile(path)
		switch {
		case edit && (!errors.Is(err, ErrChangedSince) || string(data) != "other\n"):
			t.Errorf("undo after the other process's edit: %v, the file holds %q; want ErrChangedSince and the edit kept", err, data)
		case !edit && (err != nil || string(data) != "one\n"):
			t.Errorf("undo once the lock was released: %v, the file holds %q; want it undone", err, data)
		}
	}
}

// TestUndoRacesEditor: undos racing another process's edits of the same
// file lose none of them. This process inserts a line "A I" and undoes
// it, over and over, while a child edits as B (see editorMain); every
// edit of B that succeeded is in the file at the end, and of A's lines
// exactly those whose undo refused because B had written since.
func TestUndoRacesEditor(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "f.txt")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentEditors$")
	cmd.Env = append(os.Environ(), editorChild+"="+root+" B")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	ctx := context.Background()
	var kept []string // A's lines left in the file: their undo refused
	undone, refused := 0, 0
	for i := 0; ; i++ {
		select {
		case <-exited:
		default:
			var j Journal
			r, err := Builtin(root, WithJournal(&j))
			if err != nil {
				t.Fatal(err)
			}
			if res := r.Execute(ctx, "read_file", json.RawMessage(`{"path":"f.txt"}`)); !res.Success {
				t.Fatalf("read_file: %s", res.Message())
			}
			args, _ := json.Marshal(map[string]any{"path": "f.txt", "line_start": 3, "new_content": fmt.Sprintf("A %d", i)})
			res := r.Execute(ctx, "insert_lines", args)
			switch {
			case strings.Contains(res.Message(), "has changed since it was last read"):
				refused++
				continue
			case !res.Success:
				t.Fatalf("insert_lines: %s", res.Message())
			}
			switch _, err := j.Undo(false); {
			case err == nil:
				undone++
			case errors.Is(err, ErrChangedSince):
				kept = append(kept, strconv.Itoa(i))
			default:
				t.Fatalf("undo: %v", err)
			}
			continue
		}
		break
	}
	if !cmd.ProcessState.Success() {
		t.Fatalf("editor B: %v\n%s", cmd.ProcessState, out.String())
	}
	_, edits, ok := strings.Cut(out.String(), "succeeded:")
	if !ok {
		t.Fatalf("editor B printed no edits:\n%s", out.String())
	}
	data, _ := os.ReadFile(path)
	if !wellFormed(string(data)) {
		t.Fatalf("the file ends torn: %d bytes", len(data))
	}
	got := map[string][]string{}
	for _, l := range strings.Split(string(data), "\n") {
		if m := editEntry.FindStringSubmatch(l); m != nil {
			got[m[1]] = append([]string{m[2]}, got[m[1]]...)
		}
	}
	if want := strings.Fields(edits); !slices.Equal(got["B"], want) {
		t.Errorf("the file holds B's edits %v, but these succeeded: %v", got["B"], want)
	}
	if !slices.Equal(got["A"], kept) {
		t.Errorf("the file holds A's lines %v, want those whose undo refused: %v", got["A"], kept)
	}
	t.Logf("A: %d undone, %d undos refused, %d inserts refused; %s", undone, len(kept), refused, firstLine(out.String()))
}
