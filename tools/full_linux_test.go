package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// A full disk is faked in two ways: a small tmpfs filled to the last
// byte, where root may mount one (as in CI), and, always, a child process
// (this test binary re-executed) whose RLIMIT_FSIZE is below the size of
// what it writes. Either way the write fails midway, as on a full disk.

// fullDiskChild, when set, makes TestFullDiskWritingTools the child of
// the RLIMIT_FSIZE case: it runs the tool call in $OFFGRID_FULL_CALL over
// the root $OFFGRID_FULL_ROOT and prints the result as JSON.
const fullDiskChild = "OFFGRID_TEST_FULL_DISK_CHILD"

// fsizeLimit is the child's RLIMIT_FSIZE: a file may not grow past it.
const fsizeLimit = 4096

// fullCall is one write a full disk must not turn into data loss.
type fullCall struct {
	name string
	// file is the content the target (f.txt) starts with; "" means it
	// does not exist.
	file string
	tool string // the tool to call; "undo" undoes a replace_lines first made with room
	args map[string]any
}

// fullCalls returns the writes to try; each writes more than big bytes.
func fullCalls(big int) []fullCall {
	small := "one\ntwo\nthree\n"
	huge := strings.Repeat("x", big) + "\n"
	return []fullCall{
		{"write_file over a file", small, "write_file", map[string]any{"path": "f.txt", "content": huge}},
		{"write_file of a new file", "", "write_file", map[string]any{"path": "f.txt", "content": huge}},
		{"replace_lines", small, "replace_lines", map[string]any{"path": "f.txt", "line_start": 2, "line_end": 2, "new_content": huge}},
		{"insert_lines", small, "insert_lines", map[string]any{"path": "f.txt", "line_start": 1, "new_content": huge}},
		// The file starts large; the edit shrinks it while there is room,
		// then the disk fills and /undo must write the large content back.
		{"undo", huge + small, "undo", map[string]any{"path": "f.txt", "line_start": 1, "line_end": 1, "new_content": "small"}},
	}
}

// runFullCall runs c's tool over root and returns the result; fill, if
// set, is called once the disk should be full (before the tool runs, or,
// for undo, between the edit and the undo).
func runFullCall(root string, c fullCall, fill func() error) (Result, error) {
	j := &Journal{}
	r, err := Builtin(root, WithJournal(j))
	if err != nil {
		return Result{}, err
	}
	args, _ := json.Marshal(c.args)
	if c.file != "" { // write_file replaces only a file it has read
		if res := r.Execute(context.Background(), "read_file", json.RawMessage(`{"path":"f.txt"}`)); !res.Success {
			return Result{}, errors.New("read_file: " + res.Compact())
		}
	}
	if c.tool != "undo" {
		if err := fill(); err != nil {
			return Result{}, err
		}
		return r.Execute(context.Background(), c.tool, args), nil
	}
	if res := r.Execute(context.Background(), "replace_lines", args); !res.Success {
		return Result{}, errors.New("the edit before the undo failed: " + res.Compact())
	}
	if err := fill(); err != nil {
		return Result{}, err
	}
	if _, err := j.Undo(false); err != nil {
		if j.Len() != 1 {
			return Result{}, errors.New("the failed undo left the journal: it cannot be retried")
		}
		msg := err.Error()
		return Result{ErrorMessage: &msg}, nil
	}
	return Result{Success: true}, nil
}

// TestFullDiskWritingTools: when the disk fills during a write of
// write_file, replace_lines, insert_lines or /undo, the tool fails saying
// why, the file keeps its content byte for byte (or is still absent), and
// no temporary file is left beside it.
func TestFullDiskWritingTools(t *testing.T) {
	if os.Getenv(fullDiskChild) != "" {
		fullDiskChildMain()
		return
	}
	t.Run("tmpfs", func(t *testing.T) {
		for _, c := range fullCalls(8 << 10) {
			t.Run(c.name, func(t *testing.T) {
				root := smallTmpfs(t)
				before := startFile(t, root, c)
				res, err := runFullCall(root, c, func() error { return fill(filepath.Join(root, "filler")) })
				if err != nil {
					t.Fatal(err)
				}
				checkFull(t, root, c, before, res, "no space left on device", "filler")
			})
		}
	})
	t.Run("rlimit", func(t *testing.T) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range fullCalls(2 * fsizeLimit) {
			t.Run(c.name, func(t *testing.T) {
				root := t.TempDir()
				before := startFile(t, root, c)
				call, _ := json.Marshal(map[string]any{"file": c.file, "tool": c.tool, "args": c.args})
				cmd := exec.Command(exe, "-test.run=^TestFullDiskWritingTools$")
				cmd.Env = append(os.Environ(), fullDiskChild+"=1", "OFFGRID_FULL_ROOT="+root, "OFFGRID_FULL_CALL="+string(call))
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("child: %v\n%s", err, stderr.String())
				}
				line := out[bytes.LastIndex(bytes.TrimRight(out, "\n"), []byte("\n"))+1:]
				var res Result
				if err := json.Unmarshal(line, &res); err != nil {
					t.Fatalf("child printed %q: %v", out, err)
				}
				checkFull(t, root, c, before, res, "file too large")
			})
		}
	})
}

// fullDiskChildMain is the child of the RLIMIT_FSIZE case.
func fullDiskChildMain() {
	var call struct {
		File string         `json:"file"`
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	}
	if err := json.Unmarshal([]byte(os.Getenv("OFFGRID_FULL_CALL")), &call); err != nil {
		panic(err)
	}
	c := fullCall{file: call.File, tool: call.Tool, args: call.Args}
	res, err := runFullCall(os.Getenv("OFFGRID_FULL_ROOT"), c, func() error {
		return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: fsizeLimit, Max: fsizeLimit})
	})
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(res)
	os.Stdout.Write(append([]byte("\n"), append(b, '\n')...))
	os.Exit(0) // before the test framework says PASS
}

// smallTmpfs mounts a 64 KiB tmpfs for the test, or skips it (saying
// why) where mounting is not permitted; the RLIMIT_FSIZE case runs
// everywhere.
func smallTmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0755"); err != nil {
		t.Skipf("cannot mount a tmpfs (%v): the full disk is tested through RLIMIT_FSIZE only", err)
	}
	t.Cleanup(func() {
		// Lazily: the sandbox keeps the directory open.
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// fill writes to path until the file system is full.
func fill(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			return err
		}
	}
	// A page may be left over a smaller write; take every byte.
	for {
		if _, err := f.Write(chunk[:1]); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
}

// startFile creates f.txt in root as c wants it and returns its content
// (nil when it does not exist).
func startFile(t *testing.T, root string, c fullCall) []byte {
	t.Helper()
	if c.file == "" {
		return nil
	}
	if err := os.WriteFile(filepath.Join(root, "f.txt"), []byte(c.file), 0o644); err != nil {
		t.Fatal(err)
	}
	return []byte(c.file)
}

// checkFull checks the outcome of c on a full disk: res failed saying
// why (want) and naming the file, f.txt is as it was before (or, for
// undo, as the edit left it), and root holds nothing else but others.
func checkFull(t *testing.T, root string, c fullCall, before []byte, res Result, want string, others ...string) {
	t.Helper()
	if res.Success {
		t.Fatalf("the %s succeeded on a full disk", c.tool)
	}
	t.Logf("%s: %s", c.tool, res.Message())
	if msg := res.Message(); !strings.Contains(msg, want) || !strings.Contains(msg, "f.txt") {
		t.Errorf("error %q, want it to name f.txt and say %q", msg, want)
	}
	if c.tool == "undo" {
		before, _ = EditLines(before, 1, 1, "small")
	}
	got, err := os.ReadFile(filepath.Join(root, "f.txt"))
	switch {
	case before == nil && !errors.Is(err, os.ErrNotExist):
		t.Errorf("f.txt was created (%d bytes, %v)", len(got), err)
	case before != nil && err != nil:
		t.Errorf("f.txt: %v", err)
	case before != nil && !bytes.Equal(got, before):
		t.Errorf("f.txt changed: %d bytes, want the %d it had", len(got), len(before))
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.Name() != "f.txt" && !slices.Contains(others, e.Name()) {
			t.Errorf("%s left in the directory", e.Name())
		}
	}
}
