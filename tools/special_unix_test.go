//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangGuard bounds one tool call: a call that blocks (on a FIFO, say)
// fails the test instead of hanging it.
const hangGuard = 10 * time.Second

// execGuarded runs a call with a deadline and fails the test if the call
// does not return by then, even when it ignores its context.
func execGuarded(t *testing.T, r *Registry, tool, args string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	done := make(chan Result, 1)
	go func() { done <- r.Execute(ctx, tool, json.RawMessage(args)) }()
	select {
	case res := <-done:
		return res
	case <-time.After(hangGuard + 2*time.Second):
		t.Fatalf("%s %s did not return within %v: it hangs", tool, args, hangGuard)
		return Result{}
	}
}

func runGuarded(t *testing.T, r *Registry, cases []toolCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := execGuarded(t, r, c.tool, c.args)
			if res.ErrorType != c.typ {
				t.Fatalf("error_type %s, want %s: %s", res.ErrorType, c.typ, res)
			}
			text := res.Text() + res.Message()
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

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
}

// TestSpecialFiles: the file tools act only on regular files, judged on
// the opened descriptor, and neither hang on a FIFO nor read a device.
func TestSpecialFiles(t *testing.T) {
	r, root := fixture(t)
	mkfifo(t, filepath.Join(root, "fifo"))
	mkfifo(t, filepath.Join(root, "sub", "fifo.go")) // matched by a grep filter
	for name, target := range map[string]string{"zero": "/dev/zero", "zero-rel": "../../../../../../../../dev/zero", "fifo-link": "fifo"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	edit := func(path string) string {
		return `{"path":"` + path + `","line_start":1,"line_end":1,"new_content":"x"}`
	}
	runGuarded(t, r, []toolCase{
		{"read fifo", "read_file", `{"path":"fifo"}`, TypeValidationFailed, []string{"named pipe"}, nil},
		{"read fifo window", "read_file", `{"path":"fifo","offset":1}`, TypeValidationFailed, []string{"named pipe"}, nil},
		{"read link to fifo", "read_file", `{"path":"fifo-link"}`, TypeValidationFailed, []string{"named pipe"}, nil},
		{"replace fifo", "replace_lines", edit("fifo"), TypeValidationFailed, []string{"named pipe"}, nil},
		{"insert fifo", "insert_lines", `{"path":"fifo","line_start":1,"new_content":"x"}`, TypeValidationFailed, []string{"named pipe"}, nil},
		{"write over fifo", "write_file", `{"path":"fifo","content":"x"}`, TypeValidationFailed, []string{"named pipe"}, nil},
		{"ls fifo", "ls", `{"path":"fifo"}`, TypeValidationFailed, []string{"named pipe", "not a directory"}, nil},
		{"read /dev/zero link", "read_file", `{"path":"zero"}`, TypePermissionDenied, nil, nil},
		{"replace /dev/zero link", "replace_lines", edit("zero"), TypePermissionDenied, nil, nil},
		{"read relative /dev/zero link", "read_file", `{"path":"zero-rel"}`, TypePermissionDenied, nil, nil},
		{"grep with fifos", "grep_search", `{"pattern":"func*main","file_filter":"*.go","include_hidden":true}`, TypeNone, []string{"main.go:3:"}, []string{"fifo"}},
	})
	if fi, err := os.Lstat(filepath.Join(root, "fifo")); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", fi, err)
	}
}

// TestSpecialGitignore: a .gitignore that is a FIFO, a link to /dev/zero
// or too large is ignored with a note, never read until memory runs out or
// blocked on.
func TestSpecialGitignore(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, path string)
		note string
	}{
		{"fifo", func(t *testing.T, p string) { mkfifo(t, p) }, "named pipe"},
		{"link to /dev/zero", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, "outside the working directory"},
		{"too large", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(strings.Repeat("build/\n", maxIgnoreFile/7+1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "too large"},
	}
	for _, c := range cases {
		for _, at := range []string{".gitignore", "sub/.gitignore"} {
			t.Run(c.name+" "+at, func(t *testing.T) {
				r, root := fixture(t)
				p := filepath.Join(root, at)
				os.Remove(p)
				c.make(t, p)
				runGuarded(t, r, []toolCase{
					{"grep", "grep_search", `{"pattern":"func*main"}`, TypeNone, []string{"main.go:3:", "[note: ignored " + at + ":", c.note}, nil},
				})
			})
		}
	}
}

// TestCharDevice uses a real character device (the null device's numbers)
// made inside the root, which takes the privilege to create device nodes.
func TestCharDevice(t *testing.T) {
	r, root := fixture(t)
	var st syscall.Stat_t
	if err := syscall.Stat("/dev/zero", &st); err != nil {
		t.Skipf("no /dev/zero: %v", err)
	}
	for _, name := range []string{"dev", ".gitignore"} {
		p := filepath.Join(root, name)
		os.Remove(p)
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o644, int(st.Rdev)); err != nil {
			if errors.Is(err, syscall.EPERM) {
				t.Skipf("creating a device node needs privileges this test lacks: %v", err)
			}
			t.Fatal(err)
		}
	}
	runGuarded(t, r, []toolCase{
		{"read", "read_file", `{"path":"dev"}`, TypeValidationFailed, []string{"character device"}, nil},
		{"replace", "replace_lines", `{"path":"dev","line_start":1,"line_end":1,"new_content":"x"}`, TypeValidationFailed, []string{"character device"}, nil},
		{"grep", "grep_search", `{"pattern":"func*main"}`, TypeNone, []string{"[note: ignored .gitignore: it is a character device"}, nil},
	})
}

// TestReadLimits: reads stay bounded by size, whatever the file holds.
func TestReadLimits(t *testing.T) {
	r, root := fixture(t)
	// One line of 3 MB: a window into it returns the first maxLine bytes.
	if err := os.WriteFile(filepath.Join(root, "oneline.txt"), []byte(strings.Repeat("a", 3<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Sparse files over the limits (zeros, but refused by size first).
	for name, size := range map[string]int64{"huge.txt": maxWholeFile + 1, "sub/grep-huge.go": maxGrepFile + 1} {
		f, err := os.Create(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(size)
		f.Close()
	}
	runGuarded(t, r, []toolCase{
		{"replace too large", "replace_lines", `{"path":"huge.txt","line_start":1,"line_end":1,"new_content":"x"}`, TypeValidationFailed, []string{"too large"}, nil},
		{"insert too large", "insert_lines", `{"path":"huge.txt","line_start":1,"new_content":"x"}`, TypeValidationFailed, []string{"too large"}, nil},
		{"grep skips too large", "grep_search", `{"pattern":"package"}`, TypeNone, []string{"main.go:1:", "[note: skipped sub/grep-huge.go: too large"}, nil},
	})
	uncapped, err := Builtin(root, WithRegistryOptions(WithMaxOutput(0)))
	if err != nil {
		t.Fatal(err)
	}
	res := execGuarded(t, uncapped, "read_file", `{"path":"oneline.txt","offset":1}`)
	line, _, _ := strings.Cut(strings.TrimPrefix(res.Text(), "1: "), " [")
	if n := strings.Count(line, "a"); n != maxLine || !strings.Contains(res.Text(), "[line cut at 1.0 MB]") {
		t.Errorf("read_file of a 3 MB line returned %d bytes of it (want %d) and %q", n, maxLine, res.Text()[max(0, len(res.Text())-80):])
	}
}

// TestMentionedFIFO: a FIFO the request names is not a file it mentions
// (reading it would block).
func TestMentionedFIFO(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Mentioned(root, "Read pipe.txt"); got != nil {
		t.Errorf("Mentioned(Read pipe.txt) = %+v, want nil", got)
	}
}
