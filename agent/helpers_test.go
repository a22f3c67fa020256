package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/tools"
)

// testRegistry returns the tools of the loop tests: echo and add (safe)
// and write_note (high risk; writes note.txt in dir). Strings are
// bounded so that even a random model's calls end.
func testRegistry(t testing.TB, dir string) *tools.Registry {
	t.Helper()
	reg := tools.NewRegistry()
	add := func(name, desc string, risk tools.Risk, params string, run func(map[string]any) (string, error)) {
		t.Helper()
		err := reg.Add(&tools.Tool{Name: name, Description: desc, Risk: risk, Parameters: json.RawMessage(params),
			Run: func(_ context.Context, raw json.RawMessage) (string, error) {
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err != nil {
					return "", err
				}
				return run(m)
			}})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("echo", "Repeat a text.", tools.Safe,
		`{"type":"object","properties":{"text":{"type":"string","maxLength":12,"description":"what to repeat"}},"required":["text"]}`,
		func(m map[string]any) (string, error) { return m["text"].(string), nil })
	add("add", "Add two whole numbers.", tools.Safe,
		`{"type":"object","properties":{"a":{"type":"integer","minimum":0,"maximum":99},"b":{"type":"integer","minimum":0,"maximum":99}},"required":["a","b"]}`,
		func(m map[string]any) (string, error) {
			b, _ := json.Marshal(m["a"].(float64) + m["b"].(float64))
			return string(b), nil
		})
	add("write_note", "Write a short note to note.txt.", tools.High,
		`{"type":"object","properties":{"text":{"type":"string","maxLength":12}},"required":["text"]}`,
		func(m map[string]any) (string, error) {
			return "written", os.WriteFile(filepath.Join(dir, "note.txt"), []byte(m["text"].(string)), 0o644)
		})
	return reg
}

// testPolicy returns a permission policy for tests.
func testPolicy(t testing.TB, cfg permission.Config) *permission.Policy {
	t.Helper()
	p, err := permission.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFiles writes files (slash-separated paths under dir, and their
// content), making their folders.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// toolsOver writes files into a new temporary folder (writeFiles) and
// returns the folder and the built-in tools over it.
func toolsOver(t testing.TB, files map[string]string) (string, *tools.Registry) {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, reg
}

// dirAgent returns an agent over the built-in tools in dir, every call
// allowed, the files a request names found in dir (Options.Mentions), and
// the scripted engine that replies to it.
func dirAgent(t testing.TB, dir string, replies []string, opts Options) (*Agent, *fakeEngine) {
	t.Helper()
	reg, err := tools.Builtin(dir)
	if err != nil {
		t.Fatal(err)
	}
	eng := &fakeEngine{t: t, replies: replies}
	opts.Mentions = func(r string) []tools.Mention { return tools.Mentioned(dir, r) }
	a, err := New(NewCompleter(eng, hermesInfo), reg, testPolicy(t, permission.Config{AllowAll: true}), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	return a, eng
}
