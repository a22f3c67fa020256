package offgrid

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/internal/launch"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// tinyModel writes the random-weight test model and returns its path.
func tinyModel(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(p, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return p
}

// isolated keeps Open's store and caches in temporary directories.
func isolated(t *testing.T) Option {
	dir := t.TempDir()
	vars := map[string]string{"OFFGRID_MODELS": filepath.Join(dir, "models"), "XDG_CACHE_HOME": filepath.Join(dir, "cache")}
	return WithGetenv(func(k string) string { return vars[k] })
}

type pair struct {
	A int `json:"a"`
	B int `json:"b"`
}

func TestToolSet(t *testing.T) {
	add := Func("add", "Add two integers", func(_ context.Context, p pair) (int, error) { return p.A + p.B, nil })
	root := t.TempDir()
	reg, gotRoot, err := Tools(Builtin(root), add).registry()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range reg.Tools() {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"ls", "read_file", "write_file", "bash", "add"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	if gotRoot != root {
		t.Errorf("root %q, want %q", gotRoot, root)
	}
	// The typed tool decodes the call and shows a non-string result as JSON.
	if r := reg.Execute(t.Context(), "add", []byte(`{"a": 2, "b": 3}`)); r.Text() != "5" {
		t.Errorf("add(2, 3) = %q", r.Text())
	}
	strs := Func("pair", "Echo a pair", func(_ context.Context, p pair) (pair, error) { return p, nil })
	reg, _, err = Tools(strs).registry()
	if err != nil {
		t.Fatal(err)
	}
	if r := reg.Execute(t.Context(), "pair", []byte(`{"a": 1, "b": 2}`)); r.Text() != `{"a":1,"b":2}` {
		t.Errorf("pair = %q", r.Text())
	}
	for _, tc := range []struct {
		name string
		ts   *ToolSet
		want string
	}{
		{"two builtins", Tools(Builtin(root), Builtin(root)), "more than one Builtin"},
		{"duplicate", Tools(add, add), "add"},
		{"bad args", Tools(Func("f", "bad", func(context.Context, struct{ F func() }) (string, error) { return "", nil })), "func"},
		{"zero", Tools(Tool{}), "zero Tool"},
	} {
		if _, _, err := tc.ts.registry(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// The library's agent is the command's: its window, profile and settings
// come from package launch, and bad settings are errors.
func TestAgentDefaults(t *testing.T) {
	ctx := t.Context()
	m, err := Open(ctx, tinyModel(t), isolated(t), WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Name() != "tiny" {
		t.Errorf("Name() = %q", m.Name())
	}
	a, err := m.Agent(nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.s.Context.Size() != launch.DefaultContextSize || a.Profile() != "plain" {
		t.Errorf("window %d, profile %q; want %d, plain (the CLI's)", a.s.Context.Size(), a.Profile(), launch.DefaultContextSize)
	}
	q, err := m.Agent(nil, WithProfile("qwen2.5"), WithAssists("-rewrite"))
	if err != nil || q.Profile() != "qwen2.5" {
		t.Errorf("WithProfile(qwen2.5) -rewrite: %v", err)
	}
	if _, err := m.Agent(nil, WithAssists("+no-such")); err == nil || !strings.Contains(err.Error(), "assist") {
		t.Errorf("unknown assist: %v", err)
	}
	// Close frees the agents; using one after is ErrClosed.
	q.Close()
	if _, err := q.Ask(ctx, "hi"); !errors.Is(err, ErrClosed) {
		t.Errorf("Ask after Agent.Close = %v", err)
	}
	m.Close()
	if _, err := a.Ask(ctx, "hi"); !errors.Is(err, ErrClosed) {
		t.Errorf("Ask after Model.Close = %v", err)
	}
	if _, err := m.Agent(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Agent after Close = %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "missing.gguf"), isolated(t)); err == nil {
		t.Error("Open(missing file) succeeded")
	}
	bad := filepath.Join(t.TempDir(), "bad.gguf")
	os.WriteFile(bad, []byte("GGUF but not really"), 0o644)
	if _, err := Open(ctx, bad, isolated(t)); err == nil {
		t.Error("Open(bad file) succeeded")
	}
	if _, err := Open(ctx, "http://127.0.0.1:1/m.gguf", isolated(t)); !errors.Is(err, ErrNotStored) {
		t.Errorf("Open(unreachable URL) = %v, want ErrNotStored", err)
	}
	if _, err := Open(ctx, "", isolated(t)); err == nil || !strings.Contains(err.Error(), "default") {
		t.Errorf("Open(default) on an empty store = %v", err)
	}
}

// By default an agent reads and searches but does not change files or
// run commands: nobody is there to ask. WithPermissions decides instead.
func TestDefaultPermissions(t *testing.T) {
	reg, _, err := Tools(Builtin(t.TempDir())).registry()
	if err != nil {
		t.Fatal(err)
	}
	verdicts := func(opts ...AgentOption) map[string]permission.Verdict {
		var c agentConfig
		for _, o := range opts {
			o(&c)
		}
		p, err := c.policy()
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]permission.Verdict{}
		for _, name := range []string{"ls", "read_file", "grep_search", "write_file", "bash"} {
			tool, _ := reg.Lookup(name)
			out[name] = p.Evaluate(tool, []byte(`{}`))
		}
		return out
	}
	def := verdicts()
	for name, want := range map[string]permission.Verdict{"ls": permission.Allow, "read_file": permission.Allow, "grep_search": permission.Allow, "write_file": permission.Deny, "bash": permission.Deny} {
		if def[name] != want {
			t.Errorf("default: %s = %v, want %v", name, def[name], want)
		}
	}
	if all := verdicts(WithPermissions(permission.Config{AllowAll: true})); all["bash"] != permission.Allow || all["write_file"] != permission.Allow {
		t.Errorf("AllowAll: %v", all)
	}
	if safe := verdicts(WithPermissions(permission.Config{})); safe["read_file"] != permission.Deny || safe["ls"] != permission.Allow {
		t.Errorf("zero Config: %v", safe)
	}
}

// Agent.Warm fills the prompt cache for the agent's own tools: a second
// agent's first reply loads its head.
func TestAgentWarm(t *testing.T) {
	ctx := t.Context()
	m, err := Open(ctx, tinyModel(t), isolated(t), WithThreads(1))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	add := Func("add", "Add two integers", func(_ context.Context, p pair) (int, error) { return p.A + p.B, nil })
	a, err := m.Agent(Tools(add))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	var loaded int
	b, err := m.Agent(Tools(add), WithEvents(func(e Event) {
		if e.Type == "stats" && loaded == 0 {
			loaded = e.Stats.PromptLoaded
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Send(ctx, "What is 2 + 3?"); err != nil {
		t.Fatal(err)
	}
	if loaded == 0 {
		t.Error("the first reply loaded nothing from the cache Warm filled")
	}
	a.Close()
	if err := a.Warm(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Warm after Close = %v", err)
	}
}
