package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Server
		err  string
	}{
		{in: "fs=npx -y @modelcontextprotocol/server-filesystem /tmp/a",
			want: Server{Name: "fs", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp/a"}, Origin: "--mcp"}},
		{in: `db=sqlite-server --db "my data.db" 'it''s' a\ b`,
			want: Server{Name: "db", Command: "sqlite-server", Args: []string{"--db", "my data.db", "its", "a b"}, Origin: "--mcp"}},
		{in: `e=server '' x`, want: Server{Name: "e", Command: "server", Args: []string{"", "x"}, Origin: "--mcp"}},
		{in: "git=server --x=1", want: Server{Name: "git", Command: "server", Args: []string{"--x=1"}, Origin: "--mcp"}},
		{in: "npx server", err: "want NAME=COMMAND"},
		{in: "=npx server", err: "empty server name"},
		{in: "my.fs=npx", err: "may hold only"},
		{in: "fs=", err: "no command"},
		{in: "fs=server $HOME/x", err: "only plain and quoted words"},
		{in: "fs=server; rm -rf /", err: "`;` is not a valid word"},
		{in: "fs=a | b", err: "`|` is not a valid word"},
		{in: "fs=a `x`", err: "only plain and quoted words"},
		{in: `fs=server "unclosed`, err: "reached EOF"},
	} {
		got, err := ParseFlag(tc.in)
		if tc.err != "" {
			if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseFlag(%q) = %+v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseFlag(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "mcp.json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if s, w, err := LoadConfig(filepath.Join(dir, "none.json")); s != nil || w != nil || err != nil {
		t.Errorf("missing file: %v %v %v", s, w, err)
	}
	p := write(`{"mcpServers": {
		"zz": {"command": "z-server", "args": ["--root", "/srv"], "env": {"TOKEN": "t", "A": "1"}, "timeout": 1.5, "connectTimeout": 30},
		"aa": {"command": "a-server"},
		"web": {"url": "https://example.com/mcp"},
		"old": {"command": "x", "disabled": true}
	}, "other": 1}`)
	servers, warnings, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []Server{
		{Name: "aa", Command: "a-server", Optional: true, Origin: p},
		{Name: "zz", Command: "z-server", Args: []string{"--root", "/srv"}, Env: []string{"A=1", "TOKEN=t"}, Timeout: 1500 * time.Millisecond, ConnectTimeout: 30 * time.Second, Optional: true, Origin: p},
	}
	if !reflect.DeepEqual(servers, want) {
		t.Errorf("servers %+v\nwant %+v", servers, want)
	}
	if len(warnings) != 2 || !strings.Contains(strings.Join(warnings, "\n"), "mcpServers.web: skipped: only servers started by a command") ||
		!strings.Contains(strings.Join(warnings, "\n"), "mcpServers.old is disabled") {
		t.Errorf("warnings %q", warnings)
	}

	for _, tc := range []struct{ body, err string }{
		{`[1]`, "not a JSON object"},
		{`{"servers":{}}`, "mcpServers: missing"},
		{`{"mcpServers":[]}`, "mcpServers: want an object"},
		{`{"mcpServers":{"a":{"args":["x"]}}}`, "mcpServers.a.command: missing"},
		{`{"mcpServers":{"a":{"command":["x"]}}}`, "mcpServers.a.command: want a string"},
		{`{"mcpServers":{"a":{"command":"x","args":"-y"}}}`, "mcpServers.a.args: want an array of strings"},
		{`{"mcpServers":{"a":{"command":"x","env":{"K":1}}}}`, "mcpServers.a.env: want an object of strings"},
		{`{"mcpServers":{"a":{"command":"x","timeout":-1}}}`, "mcpServers.a.timeout: want a positive"},
		{`{"mcpServers":{"a":{"command":"x","connectTimeout":"10s"}}}`, "mcpServers.a.connectTimeout: want a number of seconds"},
		{`{"mcpServers":{"a b":{"command":"x"}}}`, "mcpServers.a b: server name"},
		{`{"mcpServers":{"a":"x"}}`, "mcpServers.a: want an object"},
	} {
		_, _, err := LoadConfig(write(tc.body))
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err %v; want one naming the file and %q", tc.body, err, tc.err)
		}
	}
}

func TestMerge(t *testing.T) {
	file := []Server{{Name: "a", Command: "file-a"}, {Name: "b", Command: "file-b"}}
	flags := []Server{{Name: "b", Command: "flag-b"}, {Name: "c", Command: "flag-c"}}
	got, err := Merge(file, flags)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, s := range got {
		cmds = append(cmds, s.Command)
	}
	if strings.Join(cmds, " ") != "file-a flag-b flag-c" {
		t.Errorf("merged %v", cmds)
	}
	if _, err := Merge(nil, []Server{{Name: "x"}, {Name: "x"}}); err == nil {
		t.Error("two flags with one name: no error")
	}
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ server, tool, want string }{
		{"fs", "read_file", "fs_read_file"},
		{"git", "git.log/all", "git_git_log_all"},
		{"x", "ümlaut", "x___mlaut"},
		{"s", strings.Repeat("a", 80), "s_" + strings.Repeat("a", 62)},
	} {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
}

func TestObjectSchema(t *testing.T) {
	for in, want := range map[string]string{
		`{}`:                                `{"type":"object"}`,
		`{"properties":{"a":{}}}`:           `{"type":"object","properties":{"a":{}}}`,
		`{"type":"object","properties":{}}`: `{"type":"object","properties":{}}`,
		` { "required" : [] } `:             `{"type":"object", "required" : [] }`,
	} {
		if got := string(objectSchema([]byte(in))); got != want {
			t.Errorf("objectSchema(%s) = %s, want %s", in, got, want)
		}
	}
}
