package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// editorChild, when set to "ROOT NAME", makes TestConcurrentEditors the
// child process that edits ROOT/f.txt as NAME until its time is up.
const editorChild = "OFFGRID_TEST_EDITOR_CHILD"

// editorLine is the long line 2 an editor named name gives f.txt with
// each write_file, so that a torn read (a mix of versions, or a part of
// one) is likely to show.
func editorLine(name string) string { return strings.Repeat(name, 128<<10) }

// editEntry matches the line an edit adds: the editor's name and the
// number of its attempt.
var editEntry = regexp.MustCompile(`^([AB]) ([0-9]+)$`)

// wellFormed reports whether data is a whole version of f.txt: "one",
// "two" or an editor's long line, the lines the edits added, "three".
func wellFormed(data string) bool {
	lines := strings.Split(data, "\n")
	n := len(lines)
	if n < 4 || lines[n-1] != "" || lines[0] != "one" || lines[n-2] != "three" {
		return false
	}
	if l := lines[1]; l != "two" && l != editorLine("A") && l != editorLine("B") {
		return false
	}
	for _, l := range lines[2 : n-2] {
		if !editEntry.MatchString(l) {
			return false
		}
	}
	return true
}

// TestConcurrentEditors: two processes editing the same file at once,
// each with write_file and insert_lines through its own tools, never
// leave it torn (a reader only ever sees a whole version, and no
// temporary file is left) and lose no edit: each edit adds a line of its
// own at the top of the log below line 2 (a line number that stays right
// whichever edits came between the editor's read and its edit), and the
// file ends with every line of every edit that succeeded, each editor's
// latest first. An edit is either applied to the file as it is
// or refused as made on a version the editor did not read; none is
// overwritten by the other editor writing between its check and its
// rename.
func TestConcurrentEditors(t *testing.T) {
	if v := os.Getenv(editorChild); v != "" {
		root, name, _ := strings.Cut(v, " ")
		editorMain(root, name)
		return
	}
	root := t.TempDir()
	path := filepath.Join(root, "f.txt")
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
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
	reads, torn := 0, 0
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
		if reads++; !wellFormed(string(data)) {
			if torn++; torn == 1 {
				t.Errorf("a reader saw a torn file: %d bytes, %q…", len(data), data[:min(len(data), 40)])
			}
		}
	}
	<-done
	want := map[string][]string{} // each editor's successful edits, in order
	for i, cmd := range cmds {
		out := outs[i].String()
		if !cmd.ProcessState.Success() {
			t.Fatalf("editor %d: %v\n%s", i, cmd.ProcessState, out)
		}
		name := string(rune('A' + i))
		_, edits, ok := strings.Cut(out, "succeeded:")
		if !ok {
			t.Fatalf("editor %s printed no edits:\n%s", name, out)
		}
		want[name] = strings.Fields(edits)
	}
	data, _ := os.ReadFile(path)
	if !wellFormed(string(data)) {
		t.Fatalf("the file ends torn: %d bytes", len(data))
	}
	got := map[string][]string{} // as want, from the file
	for _, l := range strings.Split(string(data), "\n") {
		if m := editEntry.FindStringSubmatch(l); m != nil {
			got[m[1]] = append([]string{m[2]}, got[m[1]]...)
		}
	}
	if len(want["A"])+len(want["B"]) == 0 {
		t.Errorf("no edit succeeded")
	}
	for _, name := range []string{"A", "B"} {
		if !slices.Equal(got[name], want[name]) {
			t.Errorf("editor %s: the file holds its edits %v, but these succeeded: %v", name, got[name], want[name])
		}
	}
	if torn > 0 {
		t.Errorf("%d of %d reads saw a torn file", torn, reads)
	}
	t.Logf("%d reads; editors: %s / %s", reads, firstLine(outs[0].String()), firstLine(outs[1].String()))
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Name() != "f.txt" {
			t.Errorf("%s left beside the file", e.Name())
		}
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// editorMain edits root/f.txt as name for a while, each edit adding the
// line "NAME I" as line 3: alternately with write_file (its
// long line too) and insert_lines, each after a read_file, as the model
// must. It prints how many edits succeeded and how many were refused as
// made on a version it had not read, then the numbers of the edits that
// succeeded.
func editorMain(root, name string) {
	r, err := Builtin(root)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	var succeeded []string
	refused := 0
	for i, end := 0, time.Now().Add(700*time.Millisecond); time.Now().Before(end); i++ {
		if res := r.Execute(ctx, "read_file", json.RawMessage(`{"path":"f.txt"}`)); !res.Success {
			panic("read_file: " + res.Compact())
		}
		// read_file may cut the long line; the content comes from the
		// disk. Should the other editor write in between, the stamp of
		// the read no longer matches and write_file refuses.
		data, err := os.ReadFile(filepath.Join(root, "f.txt"))
		if err != nil {
			panic(err)
		}
		lines := strings.SplitAfter(string(data), "\n")
		entry := fmt.Sprintf("%s %d", name, i)
		var res Result
		if i%2 == 0 {
			content := lines[0] + editorLine(name) + "\n" + entry + "\n" + strings.Join(lines[2:], "")
			args, _ := json.Marshal(map[string]any{"path": "f.txt", "content": content})
			res = r.Execute(ctx, "write_file", args)
		} else {
			args, _ := json.Marshal(map[string]any{"path": "f.txt", "line_start": 3, "new_content": entry})
			res = r.Execute(ctx, "insert_lines", args)
		}
		switch {
		case res.Success:
			succeeded = append(succeeded, strconv.Itoa(i))
		case strings.Contains(res.Message(), "has changed since it was last read"):
			refused++ // the other editor wrote between the read and the edit
		default:
			panic(res.Compact())
		}
	}
	fmt.Printf("%s: %d edits, %d refused\nsucceeded: %s\n", name, len(succeeded), refused, strings.Join(succeeded, " "))
	os.Exit(0)
}
