package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// editorChild, when set to "ROOT NAME", makes TestConcurrentEditors the
// child process that edits ROOT/f.txt as NAME until its time is up.
const editorChild = "OFFGRID_TEST_EDITOR_CHILD"

// editorVersion is the content an editor named name gives f.txt: line 2
// is one long line of its own, whether it writes the whole file or
// replaces that line.
func editorVersion(name string) string {
	return "one\n" + strings.Repeat(name, 128<<10) + "\nthree\n"
}

// TestConcurrentEditors: two processes editing the same file at once,
// each with write_file and replace_lines through its own tools, never
// leave it torn: a reader only ever sees the original or one editor's
// whole version, and no temporary file is left.
func TestConcurrentEditors(t *testing.T) {
	if v := os.Getenv(editorChild); v != "" {
		root, name, _ := strings.Cut(v, " ")
		editorMain(root, name)
		return
	}
	root := t.TempDir()
	path := filepath.Join(root, "f.txt")
	orig := "one\ntwo\nthree\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	valid := map[string]string{orig: "the original", editorVersion("A"): "A's", editorVersion("B"): "B's"}
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, name := range []string{"A", "B"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentEditors$")
		cmd.Env = append(os.Environ(), editorChild+"="+root+" "+name)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var running atomic.Int32
	running.Store(2)
	seen := map[string]int{}
	torn := 0
	done := make(chan struct{})
	go func() {
		for _, cmd := range cmds {
			cmd.Wait()
			running.Add(-1)
		}
		close(done)
	}()
	for running.Load() > 0 {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read while editing: %v", err)
		}
		if v, ok := valid[string(data)]; ok {
			seen[v]++
		} else if torn++; torn == 1 {
			t.Errorf("a reader saw a torn file: %d bytes, %q…", len(data), data[:min(len(data), 40)])
		}
	}
	<-done
	for i, cmd := range cmds {
		if !cmd.ProcessState.Success() {
			t.Errorf("editor %d: %v\n%s", i, cmd.ProcessState, outs[i])
		}
	}
	data, _ := os.ReadFile(path)
	if v, ok := valid[string(data)]; !ok || v == "the original" {
		t.Errorf("the file ends with %d bytes, not an editor's whole version", len(data))
	}
	if torn > 0 {
		t.Errorf("%d reads saw a torn file", torn)
	}
	t.Logf("reads: %v; editors: %s / %s", seen, strings.TrimSpace(outs[0].String()), strings.TrimSpace(outs[1].String()))
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Name() != "f.txt" {
			t.Errorf("%s left beside the file", e.Name())
		}
	}
}

// editorMain edits root/f.txt as name for a while, alternating
// write_file and replace_lines (each after a read_file, as the model
// must), and prints how many edits succeeded and how many were refused.
func editorMain(root, name string) {
	r, err := Builtin(root)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	version := editorVersion(name)
	line := strings.Split(version, "\n")[1]
	ok, refused := 0, 0
	for i, end := 0, time.Now().Add(700*time.Millisecond); time.Now().Before(end); i++ {
		if res := r.Execute(ctx, "read_file", json.RawMessage(`{"path":"f.txt"}`)); !res.Success {
			panic("read_file: " + res.Compact())
		}
		var res Result
		if i%2 == 0 {
			args, _ := json.Marshal(map[string]any{"path": "f.txt", "content": version})
			res = r.Execute(ctx, "write_file", args)
		} else {
			args, _ := json.Marshal(map[string]any{"path": "f.txt", "line_start": 2, "line_end": 2, "new_content": line})
			res = r.Execute(ctx, "replace_lines", args)
		}
		switch {
		case res.Success:
			ok++
		case strings.Contains(res.Message(), "has changed since it was last read"):
			refused++ // the other editor wrote between the read and the edit
		default:
			panic(res.Compact())
		}
	}
	fmt.Printf("%s: %d edits, %d refused\n", name, ok, refused)
	os.Exit(0)
}
