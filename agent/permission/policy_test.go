package permission

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/tools"
)

func tool(name string, risk tools.Risk) *tools.Tool {
	return &tools.Tool{Name: name, Risk: risk, Description: name + " things"}
}

var (
	lsTool   = tool("ls", tools.Safe)
	readTool = tool("read_file", tools.Medium)
	bashTool = tool("bash", tools.High)
)

func TestEvaluate(t *testing.T) {
	args := json.RawMessage(`{"command":"go test ./..."}`)
	cases := []struct {
		name string
		cfg  Config
		tool *tools.Tool
		want Verdict
	}{
		{"safe runs", Config{Interactive: true}, lsTool, Allow},
		{"medium asks", Config{Interactive: true}, readTool, Ask},
		{"high asks", Config{Interactive: true}, bashTool, Ask},
		{"no terminal denies medium", Config{}, readTool, Deny},
		{"no terminal denies high", Config{}, bashTool, Deny},
		{"no terminal still runs safe", Config{}, lsTool, Allow},
		{"--yes", Config{AllowAll: true}, bashTool, Allow},
		{"--allow", Config{Allow: []string{"bash"}}, bashTool, Allow},
		{"--allow other", Config{Allow: []string{"read_file"}}, bashTool, Deny},
		{"--deny beats --yes", Config{AllowAll: true, Deny: []string{"bash"}}, bashTool, Deny},
		{"--deny a safe tool", Config{Deny: []string{"ls"}}, lsTool, Deny},
		{"--max-risk medium allows medium", Config{MaxRisk: tools.Medium}, readTool, Allow},
		{"--max-risk medium asks high", Config{MaxRisk: tools.Medium, Interactive: true}, bashTool, Ask},
		{"--max-risk high", Config{MaxRisk: tools.High}, bashTool, Allow},
	}
	for _, c := range cases {
		p, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Evaluate(c.tool, args); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRecordSession(t *testing.T) {
	p, _ := New(Config{Interactive: true})
	args := json.RawMessage(`{"pattern":"x"}`)
	grep := tool("grep_search", tools.Medium)
	for _, a := range []Answer{AllowOnce, DenyOnce} {
		if err := p.Record(grep, args, a); err != nil {
			t.Fatal(err)
		}
		if v := p.Evaluate(grep, args); v != Ask {
			t.Fatalf("after %v: %v, want ask", a, v)
		}
	}
	if err := p.Record(grep, args, AllowSession); err != nil {
		t.Fatal(err)
	}
	if v := p.Evaluate(grep, json.RawMessage(`{"pattern":"other"}`)); v != Allow {
		t.Errorf("after AllowSession: %v, want allow for any arguments", v)
	}
	if v := p.Evaluate(readTool, nil); v != Ask {
		t.Errorf("AllowSession leaked to another tool: %v", v)
	}
	if err := p.Record(grep, args, AlwaysAllow); err == nil {
		t.Error("AlwaysAllow without a policies file: no error")
	}
}

func TestAlwaysAllowPersists(t *testing.T) {
	file := filepath.Join(t.TempDir(), "config", "offgrid", "policies.json")
	p, err := New(Config{Interactive: true, File: file})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Record(bashTool, nil, AlwaysAllow); err != nil {
		t.Fatal(err)
	}
	if err := p.Record(bashTool, nil, AlwaysAllow); err != nil { // no duplicate rule
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("policies file mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(file)
	var f policyFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != 1 || len(f.Rules) != 1 || f.Rules[0].Tool != "bash" {
		t.Fatalf("policies file: %s (%v)", data, err)
	}
	// A new session reads the rule back, even without a terminal.
	p2, err := New(Config{File: file})
	if err != nil {
		t.Fatal(err)
	}
	if v := p2.Evaluate(bashTool, nil); v != Allow {
		t.Errorf("new session: %v, want allow", v)
	}
	if v := p2.Evaluate(readTool, nil); v != Deny {
		t.Errorf("new session, other tool without terminal: %v, want deny", v)
	}
	// Another process's rule is kept when this one saves.
	p3, _ := New(Config{File: file, Interactive: true})
	os.WriteFile(file, []byte(`{"version":1,"rules":[{"tool":"bash"},{"tool":"write_file"}]}`), 0o600)
	if err := p3.Record(readTool, nil, AlwaysAllow); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(file)
	for _, name := range []string{"bash", "write_file", "read_file"} {
		if !strings.Contains(string(data), `"`+name+`"`) {
			t.Errorf("policies file lost %s: %s", name, data)
		}
	}
}

func TestArgumentRules(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policies.json")
	os.WriteFile(file, []byte(`{"version":1,"rules":[
		{"tool":"bash","args":{"command":"go test *"}},
		{"tool":"read_file","args":{"path":"docs/*","limit":"1?"}}
	]}`), 0o600)
	p, err := New(Config{File: file, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		tool *tools.Tool
		args string
		want Verdict
	}{
		{bashTool, `{"command":"go test ./tools/..."}`, Allow},
		{bashTool, `"{\"command\":\"go test -run X\"}"`, Allow},
		{bashTool, `{"command":"rm -rf / ; go test x"}`, Ask},
		{bashTool, `{}`, Ask},
		{readTool, `{"path":"docs/a/b.md","limit":12}`, Allow},
		{readTool, `{"path":"docs/a.md","limit":120}`, Ask},
		{readTool, `{"path":"src/a.md","limit":12}`, Ask},
		{readTool, `not json`, Ask},
	}
	for _, c := range cases {
		if got := p.Evaluate(c.tool, json.RawMessage(c.args)); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.tool.Name, c.args, got, c.want)
		}
	}
}

func TestCorruptPolicyFile(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":          `{"version":1,"rules":[`,
		"wrong shape":       `{"version":1,"rules":{"tool":"bash"}}`,
		"unknown field":     `{"version":1,"rulez":[]}`,
		"future version":    `{"version":2,"rules":[]}`,
		"rule without tool": `{"version":1,"rules":[{"args":{}}]}`,
		"trailing data":     `{"version":1,"rules":[]} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "policies.json")
			os.WriteFile(file, []byte(content), 0o600)
			p, err := New(Config{File: file, Interactive: true})
			if !errors.Is(err, ErrPolicyFile) || !strings.Contains(err.Error(), file) {
				t.Fatalf("New: %v, want an ErrPolicyFile error naming the file", err)
			}
			if p == nil {
				t.Fatal("no policy returned with the error")
			}
			if v := p.Evaluate(bashTool, nil); v != Ask {
				t.Errorf("with a corrupt file: %v, want ask", v)
			}
			if err := p.Record(bashTool, nil, AlwaysAllow); err == nil {
				t.Error("Record overwrote a corrupt policies file")
			}
			if got, _ := os.ReadFile(file); string(got) != content {
				t.Errorf("corrupt file changed to %s", got)
			}
			if v := p.Evaluate(bashTool, nil); v != Allow {
				t.Errorf("the session answer should still hold: %v", v)
			}
		})
	}
}

func TestDefaultFile(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/offgrid/policies.json"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/offgrid/policies.json"},
		{map[string]string{"HOME": "/h"}, "/h/.config/offgrid/policies.json"},
	}
	for _, c := range cases {
		got, err := DefaultFile(env(c.env))
		if err != nil || got != filepath.FromSlash(c.want) {
			t.Errorf("DefaultFile(%v) = %q, %v; want %q", c.env, got, err, c.want)
		}
	}
	if _, err := DefaultFile(env(nil)); err == nil {
		t.Error("DefaultFile with no HOME: no error")
	}
}

func TestWildcard(t *testing.T) {
	cases := []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"*", "", true},
		{"*", "anything/at all", true},
		{"go test *", "go test ./...", true},
		{"go test *", "go vet ./...", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"?", "é", true},
		{"??", "é", false},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{"docs/*", "docs/a/b", true},
		{"*.md", "a.md.bak", false},
	}
	for _, c := range cases {
		if got := wildcard(c.pattern, c.s); got != c.want {
			t.Errorf("wildcard(%q, %q) = %v, want %v", c.pattern, c.s, got, c.want)
		}
	}
}

func TestAuthorize(t *testing.T) {
	ctx := context.Background()
	var asked []Request
	answer := func(a Answer) Prompter {
		return PrompterFunc(func(_ context.Context, r Request) (Answer, error) {
			asked = append(asked, r)
			return a, nil
		})
	}
	p, _ := New(Config{Interactive: true})
	if err := p.Authorize(ctx, answer(DenyOnce), bashTool, json.RawMessage(`"{\"command\":\"ls\"}"`), nil); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("denied answer: %v", err)
	}
	if len(asked) != 1 || asked[0].Tool != "bash" || asked[0].Risk != tools.High || string(asked[0].Args) != `{"command":"ls"}` {
		t.Errorf("request: %+v", asked)
	}
	if err := p.Authorize(ctx, answer(AllowSession), bashTool, nil, nil); err != nil {
		t.Errorf("allowed answer: %v", err)
	}
	if err := p.Authorize(ctx, answer(DenyOnce), bashTool, nil, nil); err != nil || len(asked) != 2 {
		t.Errorf("session answer not used: %v, asked %d times", err, len(asked))
	}
	failing := PrompterFunc(func(context.Context, Request) (Answer, error) { return AllowOnce, errors.New("tty gone") })
	if err := p.Authorize(ctx, failing, readTool, nil, nil); !errors.Is(err, ErrDenied) {
		t.Errorf("prompt failure: %v, want denied", err)
	}
	if err := p.Authorize(ctx, nil, readTool, nil, nil); !errors.Is(err, ErrDenied) {
		t.Errorf("no prompter: %v, want denied", err)
	}
	nonInteractive, _ := New(Config{})
	err := nonInteractive.Authorize(ctx, answer(AllowOnce), bashTool, nil, nil)
	if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("no terminal: %v, want a denial that names --yes", err)
	}
	var warned error
	always, _ := New(Config{Interactive: true}) // no file: the answer still allows, with a warning
	if err := always.Authorize(ctx, answer(AlwaysAllow), bashTool, nil, func(err error) { warned = err }); err != nil || warned == nil {
		t.Errorf("always without file: err %v, warning %v", err, warned)
	}
}
