//go:build cgo

package launch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// After Warm, the first request of a new agent (as in a new process:
// a new context over the same cache directory) loads the heads of its
// prompts from the prompt cache: the choice of what the request needs
// and the main prompt, whatever tool set the choice leads to.
func TestWarm(t *testing.T) {
	gguf := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(gguf, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	env := testEnv(t)
	for _, profile := range []string{"", "qwen2.5"} { // plain: one tool set; qwen2.5: tools by topic
		t.Run("profile="+profile, func(t *testing.T) {
			env := env
			cache := t.TempDir()
			env.Getenv = func(k string) string {
				if k == "XDG_CACHE_HOME" {
					return cache
				}
				return testEnv(t).Getenv(k)
			}
			start := func() *Session {
				m, err := Open(t.Context(), env, gguf, inference.ModelOptions{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { m.Close() })
				root := t.TempDir()
				os.WriteFile(filepath.Join(root, "notes.md"), []byte("ship on friday\n"), 0o644)
				reg, err := BuiltinTools(root)
				if err != nil {
					t.Fatal(err)
				}
				policy, _ := permission.New(permission.Config{})
				o := Options(root)
				o.Sampling.Seed, o.MaxTokens = 1, 16
				o.Limits.MaxIterations = 1
				s, err := m.Start(Config{Options: o, Settings: Settings{Profile: profile}, ContextSize: DefaultContextSize, Threads: 1, Tools: reg, Policy: policy})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(s.Close)
				return s
			}
			if err := start().Agent.Warm(t.Context()); err != nil {
				t.Fatal(err)
			}
			var stats []*agent.Stats
			start().Agent.Send(t.Context(), "what files are here?", func(e agent.Event) {
				if e.Type == agent.EventStats {
					stats = append(stats, e.Stats)
				}
			})
			if len(stats) == 0 {
				t.Fatal("no reply")
			}
			want := 1
			if profile == "qwen2.5" {
				want = 2 // the choice of what the request needs, then the reply
			}
			for i, s := range stats[:min(want, len(stats))] {
				if s.PromptLoaded == 0 || s.PromptDecoded > s.PromptTokens/4 {
					t.Errorf("reply %d: %d of %d prompt tokens loaded, %d decoded; want the head loaded", i, s.PromptLoaded, s.PromptTokens, s.PromptDecoded)
				}
			}
		})
	}
}
