package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ownOutputChild, when set to "ROOT REPORT", makes TestOwnOutput the
// child whose standard output and error are files in ROOT; it writes what
// went wrong to the file REPORT, outside ROOT.
const ownOutputChild = "OFFGRID_TEST_OWN_OUTPUT_CHILD"

// TestOwnOutput: run as "program > out.txt 2> err.txt" inside the root,
// the file tools neither list, search, read nor write out.txt and
// err.txt, and Files leaves them out; the project's files are found as
// before.
func TestOwnOutput(t *testing.T) {
	if env := os.Getenv(ownOutputChild); env != "" {
		root, report, _ := strings.Cut(env, " ")
		fails := strings.Join(ownOutputChecks(root), "\n")
		if err := os.WriteFile(report, []byte(fails), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	root := t.TempDir()
	report := filepath.Join(t.TempDir(), "report")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("prices.txt", "tea 3 lira\n")
	write("out.txt", "")
	write("err.txt", "offgrid: grep found 3 lira\n")
	open := func(name string) *os.File {
		f, err := os.OpenFile(filepath.Join(root, name), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOwnOutput$", "-test.count=1")
	cmd.Env = append(os.Environ(), ownOutputChild+"="+root+" "+report)
	cmd.Stdout, cmd.Stderr = open("out.txt"), open("err.txt")
	if err := cmd.Run(); err != nil {
		t.Fatalf("child: %v", err)
	}
	fails, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if len(fails) > 0 {
		t.Errorf("with its output in out.txt and err.txt:\n%s", fails)
	}
}

// ownOutputChecks runs the file tools over root, where this process's
// standard output is out.txt and its standard error err.txt, and returns
// what went wrong.
func ownOutputChecks(root string) []string {
	var fails []string
	r, err := Builtin(root)
	if err != nil {
		return []string{err.Error()}
	}
	call := func(tool, args string) Result {
		return r.Execute(context.Background(), tool, json.RawMessage(args))
	}
	if res := call("ls", `{}`); !res.Success || !strings.Contains(res.Text(), "prices.txt") ||
		strings.Contains(res.Text(), "out.txt") || strings.Contains(res.Text(), "err.txt") {
		fails = append(fails, "ls: "+res.String())
	}
	if res := call("grep_search", `{"pattern":"lira"}`); !res.Success || !strings.Contains(res.Text(), "prices.txt") ||
		strings.Contains(res.Text(), "err.txt") {
		fails = append(fails, "grep_search: "+res.String())
	}
	for _, c := range []struct{ tool, args, which string }{
		{"read_file", `{"path":"err.txt"}`, "standard error"},
		{"read_file", `{"path":"out.txt"}`, "standard output"},
		{"ls", `{"path":"err.txt"}`, "standard error"},
		{"write_file", `{"path":"out.txt","content":"x"}`, "standard output"},
		{"replace_lines", `{"path":"err.txt","line_start":1,"line_end":1,"new_content":"x"}`, "standard error"},
	} {
		res := call(c.tool, c.args)
		if res.Success || res.ErrorType != TypePermissionDenied || !strings.Contains(res.Message(), c.which) {
			fails = append(fails, c.tool+" "+c.args+": "+res.String())
		}
	}
	files, _, err := Files(context.Background(), root, 10)
	if err != nil || strings.Join(files, " ") != "prices.txt" {
		fails = append(fails, fmt.Sprintf("Files: %q, %v", files, err))
	}
	sb, err := NewSandbox(root)
	if err != nil {
		return append(fails, err.Error())
	}
	defer sb.dir.Close()
	if _, _, _, err := sb.open("out.txt"); !errors.Is(err, ErrOwnOutput) {
		fails = append(fails, fmt.Sprintf("open out.txt: %v, want ErrOwnOutput", err))
	}
	return fails
}
