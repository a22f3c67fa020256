package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/internal/testenv"
	"github.com/offgrid-ai/offgrid/tools"
)

// fsServer returns the flags that attach the reference filesystem server
// over dir, skipping the test when npx is missing. Its connect timeout
// is generous: on a clean machine npx first fetches the package.
func fsServer(t *testing.T, dir string) []string {
	t.Helper()
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx is not installed (install Node.js to run the reference MCP filesystem server)")
	}
	return []string{"--mcp", "fs=npx -y @modelcontextprotocol/server-filesystem " + strconv.Quote(dir), "--mcp-connect-timeout", "3m"}
}

// TestToolsMCP: tools list shows an MCP server's tools with their source
// and risk; tools call runs one; permissions apply to them by name.
func TestToolsMCP(t *testing.T) {
	root, config := toolsRoot(t), t.TempDir()
	srv := fsServer(t, root)
	code, _, out, errb := runTools(t, config, "", append([]string{"list", "--root", root}, srv...)...)
	if code != 0 {
		testenv.Missing(t, "tools list with the filesystem server: exit %d (npx needs the npm registry once)\n%s", code, errb)
		return
	}
	for _, re := range []string{`(?m)^ls\s+safe\s+builtin\s`, `(?m)^fs_list_directory\s+safe\s+mcp:fs\s+path$`, `(?m)^fs_write_file\s+high\s+mcp:fs\s+path content$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("tools list lacks %s:\n%s", re, out)
		}
	}
	code, _, out, errb = runTools(t, config, "", append([]string{"list", "--root", root, "--tools", "fs_list*,ls"}, srv...)...)
	if got := regexp.MustCompile(`(?m)^\S+`).FindAllString(out, -1); code != 0 ||
		strings.Join(got, " ") != "NAME fs_list_directory fs_list_directory_with_sizes fs_list_allowed_directories ls" {
		t.Errorf("tools list --tools: exit %d, tools %v\n%s", code, got, errb)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		typ  tools.ErrorType
		has  string
	}{
		{"safe MCP tool", []string{"fs_list_directory", `{"path":` + strconv.Quote(root) + `}`}, 0, tools.TypeNone, "[FILE] README"},
		{"high-risk MCP tool without a terminal", []string{"fs_write_file", `{"path":` + strconv.Quote(filepath.Join(root, "x")) + `,"content":"x"}`}, 1, tools.TypePermissionDenied, "fs_write_file"},
		{"--deny an MCP tool", []string{"fs_list_directory", `{"path":"."}`, "--deny", "fs_list_directory", "--yes"}, 1, tools.TypePermissionDenied, "--deny fs_list_directory"},
		{"invalid arguments", []string{"fs_list_directory", `{"dir":"."}`, "--yes"}, 1, tools.TypeValidationFailed, "path"},
	} {
		code, res, _, errb := runTools(t, config, "", append(append(append([]string{"call"}, tc.args...), "--root", root), srv...)...)
		if code != tc.code || res.ErrorType != tc.typ || !strings.Contains(res.Text()+res.Message(), tc.has) {
			t.Errorf("%s: exit %d, %s; want exit %d, %s with %q\n%s", tc.name, code, res, tc.code, tc.typ, tc.has, errb)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Error("the denied write happened")
	}
}

// TestMCPConfig: bad --mcp values and config files are errors that name
// the problem; a server of the file that does not start is a warning.
func TestMCPConfig(t *testing.T) {
	config := t.TempDir()
	file := filepath.Join(config, "offgrid", "mcp.json")
	os.MkdirAll(filepath.Dir(file), 0o755)
	for _, tc := range []struct {
		name, json string
		args       []string
		code       int
		has        string
	}{
		{"flag without name", "", []string{"--mcp", "npx server"}, 2, "want NAME=COMMAND"},
		{"flag with expansion", "", []string{"--mcp", "x=server $HOME"}, 2, "only plain and quoted words"},
		{"timeout", "", []string{"--mcp", "x=server", "--mcp-timeout", "0s"}, 2, "--mcp-timeout"},
		{"--tools matching nothing", "", []string{"--tools", "ls,nope*"}, 2, "--tools nope*: no such tool"},
		{"--tools bad pattern", "", []string{"--tools", "[x"}, 2, "--tools \"[x\""},
		{"bad file", `{"mcpServers":{"fs":{"command":"npx","args":"-y"}}}`, nil, 1, file + ": mcpServers.fs.args: want an array of strings"},
		{"bad file, not read", `{"mcpServers":{"fs":{"command":"npx","args":"-y"}}}`, []string{"--mcp-config", "none"}, 0, ""},
		{"connect timeout", "", []string{"--mcp", "x=server", "--mcp-connect-timeout", "0s"}, 2, "--mcp-connect-timeout"},
		{"bad connect timeout in the file", `{"mcpServers":{"fs":{"command":"npx","connectTimeout":-1}}}`, nil, 1, file + ": mcpServers.fs.connectTimeout: want a positive number"},
		{"server of the file that does not start", `{"mcpServers":{"gone":{"command":"/no/such/server"}}}`, nil, 1, "warning: MCP server gone (/no/such/server, from " + file + ") did not start"},
		{"server of a flag that does not start", "", []string{"--mcp", "gone=/no/such/server"}, 1, "warning: MCP server gone (/no/such/server, from --mcp) did not start"},
	} {
		os.Remove(file)
		if tc.json != "" {
			os.WriteFile(file, []byte(tc.json), 0o600)
		}
		code, _, _, errb := runTools(t, config, "", append([]string{"list"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errb, tc.has) {
			t.Errorf("%s: exit %d, want %d; stderr:\n%s", tc.name, code, tc.code, errb)
		}
	}
}

// TestRunMCPDefaultModel is the acceptance run of an MCP server on the
// default model, with its catalog settings: `offgrid run --mcp 'fs=npx -y
// @modelcontextprotocol/server-filesystem DIR' -p PROMPT --yes --json`
// must go through the server, every call a valid call of an offered tool,
// and answer with the files. The prompts: the issue's "List the files in
// DIR", and the server's own question, "What files are in the allowed
// directory?", with only the server's tools offered (--tools 'fs_*', as
// the question is about them) and --on-repeat another: the model calls
// fs_list_allowed_directories twice, and only with that tool kept out of
// the second reply goes on to fs_list_directory. -short skips it.
func TestRunMCPDefaultModel(t *testing.T) {
	// Parallel with TestCuratorModel, after the package's serial tests: by
	// then the agent package's tests may have left the second core idle.
	// (The terminal tests stay serial: they wait on the clock.)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the default-model MCP run")
	}
	// A fixed path: the prompt holds it, and the 0.5B's greedy replies
	// turned on the random digits of a t.TempDir() name.
	dir := filepath.Join(os.TempDir(), "offgrid-mcp-acceptance")
	os.RemoveAll(dir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for f, content := range map[string]string{"notes.txt": "Buy milk\n", "main.go": "package main\n"} {
		os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644)
	}
	os.Mkdir(filepath.Join(dir, "docs"), 0o755)
	srv := fsServer(t, dir)
	cache := t.TempDir() // the two runs offer the same tools: one prompt cache
	for _, tc := range []struct {
		prompt string
		args   []string
	}{
		// Only the server's tools: offered the built-in ones too, the 0.5B
		// on a Xeon with AVX-512 (not on an EPYC) called the built-in
		// read_file and ls on this path outside the working directory,
		// were refused, and answered with the refusal.
		{"List the files in " + dir, []string{"--tools", "fs_*"}},
		{"What files are in the allowed directory?", []string{"--tools", "fs_*", "--on-repeat", "another"}},
	} {
		t.Run(tc.prompt, func(t *testing.T) {
			var out bytes.Buffer
			env, errb := runEnv(t, "", &out)
			withCache(env, cache)
			if _, err := resolveModel(context.Background(), env, ""); err != nil {
				t.Fatalf("the default model is not installed (%v): run 'make model'", err)
			}
			// Reads and listings run; a change is denied (nobody is asked):
			// the questions need none, and the server's writes answer with
			// temporary names of random digits that the 0.5B's greedy
			// replies then turn on.
			args := append([]string{"run", "-p", tc.prompt, "--max-risk", "medium", "--json", "--seed", "1", "-t", "1"}, append(srv, tc.args...)...)
			code := runMain(t.Context(), env, args)
			if code != 0 {
				if strings.Contains(errb.String(), "MCP server fs") {
					testenv.Missing(t, "the filesystem server did not start (npx needs the npm registry once):\n%s", errb.String())
					return
				}
				t.Fatalf("exit %d\n%s", code, errb.String())
			}
			var mcpCalls int
			var final string
			var trace []string
			for _, e := range jsonEvents(t, out.String()) {
				switch e.Type {
				case agent.EventToolResult:
					r := e.Record
					trace = append(trace, fmt.Sprintf("call %s %s: %s", r.Name, r.Arguments, r.Summary()))
					if r.Code == agent.ToolNotFound || r.Code == agent.InvalidToolSignature || r.Result.ErrorType == tools.TypeValidationFailed {
						t.Errorf("invalid call %s %s: %s", r.Name, r.Arguments, r.Result.Compact())
					}
					if strings.HasPrefix(r.Name, "fs_") && r.OK() {
						mcpCalls++
					}
				case agent.EventError:
					if e.Code == agent.InvalidToolSignature {
						t.Errorf("a reply was not a valid call: %s", e.Text)
					}
				case agent.EventFinal:
					final = e.Text
					trace = append(trace, "final "+e.Text)
				}
			}
			if mcpCalls == 0 || !strings.Contains(final, "notes.txt") || !strings.Contains(final, "main.go") {
				t.Fatalf("want a successful fs_ call and an answer naming notes.txt and main.go; got:\n%s", strings.Join(trace, "\n"))
			}
			t.Logf("%s", strings.Join(trace, "\n"))
		})
	}
}

// TestToolsListMuteServer: tools list with a server that never answers
// gives up on it at the connect timeout, lists the other tools, names
// the server and exits non-zero.
func TestToolsListMuteServer(t *testing.T) {
	python := testenv.Python(t)
	script := filepath.Join(t.TempDir(), "mute.py")
	os.WriteFile(script, []byte("import sys, time\nprint('mute: up', file=sys.stderr, flush=True)\ntime.sleep(3600)\n"), 0o644)
	// 3s: long enough for python3 to say its first words on a loaded
	// machine (1s was not).
	begin := time.Now()
	code, _, out, errb := runTools(t, t.TempDir(), "", "list", "--mcp", "m="+python+" "+script, "--mcp-connect-timeout", "3s")
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("tools list took %s with a 3s connect timeout", d)
	}
	if code != 1 || !regexp.MustCompile(`(?m)^ls\s+safe\s+builtin`).MatchString(out) {
		t.Errorf("exit %d, want 1 with the built-in tools listed; stdout:\n%s", code, out)
	}
	for _, want := range []string{"offgrid: waiting for MCP servers to start: m (at most 3s)...\n",
		"warning: MCP server m (" + python + " " + script + ", from --mcp) did not start: no answer to initialize within 3s, its connect timeout; its stderr ends: mute: up",
		"offgrid: MCP servers done starting in ",
		"MCP servers did not start: m"} {
		if !strings.Contains(errb, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb)
		}
	}
}
