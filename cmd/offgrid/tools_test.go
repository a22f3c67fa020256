package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/internal/sandbox"
	"github.com/offgrid-ai/offgrid/tools"
)

// runTools runs `offgrid tools ARGS` in-process with a private config
// directory and no terminal.
func runTools(t *testing.T, config, stdin string, args ...string) (code int, res tools.Result, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return config
		}
		return ""
	}}
	code = runMain(context.Background(), env, append([]string{"tools"}, args...))
	if len(args) > 0 && args[0] == "call" && out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("stdout is not a ToolResult: %v\n%s", err, out.String())
		}
	}
	return code, res, out.String(), errb.String()
}

func toolsRoot(t *testing.T) string {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "cmd"), 0o755)
	os.WriteFile(filepath.Join(root, "cmd", "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "README"), []byte("hello\n"), 0o644)
	return root
}

func TestToolsCall(t *testing.T) {
	root, config := toolsRoot(t), t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	os.WriteFile(outside, []byte("outside\n"), 0o644)
	if err := os.Link(outside, filepath.Join(root, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		stdin string
		args  []string
		code  int
		typ   tools.ErrorType
		has   string
	}{
		{"escape", "", []string{"call", "ls", `{"path":"../"}`}, 1, tools.TypePermissionDenied, "outside the working directory"},
		{"ls", "", []string{"call", "ls"}, 0, tools.TypeNone, "cmd/"},
		{"grep with --yes", "", []string{"call", "grep_search", `{"pattern":"func*main","file_filter":"**/*.go"}`, "--yes"}, 0, tools.TypeNone, "cmd/main.go:3: func main() {}"},
		{"medium without terminal", "", []string{"call", "read_file", `{"path":"README"}`}, 1, tools.TypePermissionDenied, "--allow read_file"},
		{"--allow", "", []string{"call", "read_file", `{"path":"README"}`, "--allow", "read_file"}, 0, tools.TypeNone, "1: hello"},
		{"--max-risk", "", []string{"call", "read_file", `{"path":"README"}`, "--max-risk", "medium"}, 0, tools.TypeNone, "1: hello"},
		{"--max-risk below", "", []string{"call", "bash", `{"command":"true"}`, "--max-risk", "medium"}, 1, tools.TypePermissionDenied, "high-risk"},
		{"--deny", "", []string{"call", "ls", "--deny", "ls", "--yes"}, 1, tools.TypePermissionDenied, "--deny ls"},
		{"arguments from stdin", `{"path":"README"}`, []string{"call", "read_file", "-", "--yes"}, 0, tools.TypeNone, "1: hello"},
		{"string arguments", "", []string{"call", "read_file", `"{\"path\":\"README\"}"`, "--yes"}, 0, tools.TypeNone, "1: hello"},
		{"unknown tool", "", []string{"call", "rm", "{}"}, 1, tools.TypeNotFound, "the tools are ls"},
		{"invalid arguments", "", []string{"call", "ls", `{"sort_by":"date"}`}, 1, tools.TypeValidationFailed, `"sort_by" must be one of`},
		{"bash", "", []string{"call", "bash", `{"command":"ls"}`, "--yes"}, 0, tools.TypeNone, "README"},
		{"bash is confined", "", []string{"call", "bash", `{"command":"touch ../escape"}`, "--yes"}, 0, tools.TypeNone, "Permission denied"},
		{"hard link", "", []string{"call", "read_file", `{"path":"linked.txt"}`, "--yes"}, 1, tools.TypePermissionDenied, "--allow-hardlinks"},
		{"--allow-hardlinks", "", []string{"call", "read_file", `{"path":"linked.txt"}`, "--yes", "--allow-hardlinks"}, 0, tools.TypeNone, "1: outside"},
	}
	if _, err := sandbox.Check(); err != nil {
		t.Logf("bash is refused here, the kernel cannot confine it: %v", err)
		for i, c := range cases {
			if c.args[1] == "bash" && c.code == 0 {
				cases[i].code, cases[i].typ, cases[i].has = 1, tools.TypePermissionDenied, "--bash-unconfined"
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, res, out, errs := runTools(t, config, c.stdin, append(c.args, "--root", root)...)
			if code != c.code || res.ErrorType != c.typ {
				t.Fatalf("exit %d, %s; want exit %d, %s\n%s%s", code, res.ErrorType, c.code, c.typ, out, errs)
			}
			text := res.Text() + res.Message()
			if !strings.Contains(text, c.has) {
				t.Errorf("result lacks %q: %s", c.has, out)
			}
		})
	}
}

func TestToolsCallUsage(t *testing.T) {
	config := t.TempDir()
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"call"},
		{"call", "ls", "{}", "extra"},
		{"call", "ls", "--max-risk", "extreme"},
		{"call", "ls", "--allow", "nope"},
		{"list", "extra"},
	} {
		if code, _, _, _ := runTools(t, config, "", args...); code != 2 {
			t.Errorf("tools %v: exit %d, want 2", args, code)
		}
	}
}

func TestToolsCallCorruptPolicies(t *testing.T) {
	root, config := toolsRoot(t), t.TempDir()
	file := filepath.Join(config, "offgrid", "policies.json")
	os.MkdirAll(filepath.Dir(file), 0o700)
	os.WriteFile(file, []byte("{not json"), 0o600)
	code, res, _, errs := runTools(t, config, "", "call", "read_file", `{"path":"README"}`, "--root", root)
	if code != 1 || res.ErrorType != tools.TypePermissionDenied || !strings.Contains(errs, "warning: policies file") {
		t.Errorf("exit %d, %s, stderr %q", code, res.ErrorType, errs)
	}
	code, _, _, _ = runTools(t, config, "", "call", "ls", "--root", root)
	if code != 0 {
		t.Errorf("safe tool with a corrupt policies file: exit %d", code)
	}
}

func TestToolsList(t *testing.T) {
	config := t.TempDir()
	code, _, out, errs := runTools(t, config, "", "list")
	if code != 0 || !strings.Contains(out, "bash") || !strings.Contains(out, "read_file              medium  builtin  path [offset]") {
		t.Errorf("exit %d:\n%s%s", code, out, errs)
	}
	code, _, out, _ = runTools(t, config, "", "list", "--json")
	var list []struct {
		Name       string          `json:"name"`
		Risk       string          `json:"risk"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || code != 0 {
		t.Fatalf("list --json: exit %d, %v\n%s", code, err, out)
	}
	if len(list) != 12 || list[0].Name != "ls" || list[0].Risk != "safe" || list[11].Name != "bash" || list[11].Risk != "high" {
		t.Errorf("list --json: %+v", list)
	}
	var compact bytes.Buffer
	json.Compact(&compact, list[0].Parameters)
	if !strings.HasPrefix(compact.String(), `{"type":"object","properties":{"path":`) {
		t.Errorf("ls schema: %s", compact.String())
	}
}
