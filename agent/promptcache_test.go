//go:build cgo

package agent

import (
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/inference/promptcache"
)

// TestDefaultModelPromptCache: on the default model with two built-in
// tools, a reply is the same without the prompt cache, with a cold one
// (the prefix decoded and saved) and with a warm one in a new context
// (the prefix loaded), and the loaded prefix is everything before the
// text of the user's message. (Three prompt decodes: minutes on a busy
// 2-core machine.)
func TestDefaultModelPromptCache(t *testing.T) {
	t.Parallel() // see loadDefault
	m, _ := loadDefault(t)
	// Two tools: what is cached does not depend on how many, and the full
	// set would be decoded three times on one thread.
	_, all := builtinDir(t)
	var defs []grammar.Tool
	for _, d := range all {
		if d.Name == "ls" || d.Name == "read_file" {
			defs = append(defs, d)
		}
	}
	if len(defs) != 2 {
		t.Fatalf("tools %v: want ls and read_file", all)
	}
	sum, err := promptcache.ModelSHA256(t.TempDir(), m.Path())
	if err != nil {
		t.Fatal(err)
	}
	var warned []error
	cache := promptcache.New(t.TempDir(), sum, promptcache.Options{Warn: func(err error) { warned = append(warned, err) }})
	const user = "List the files in this directory."
	reply := func(pc inference.PrefixCache) Completion {
		t.Helper()
		c, err := m.NewContext(inference.ContextOptions{ContextSize: 4096, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if pc != nil {
			c.SetPrefixCache(pc)
		}
		s := inference.DefaultSampling()
		s.Temperature, s.Seed = 0, 1
		comp, err := NewCompleter(c, InfoFromModel(m)).Complete(t.Context(), CompletionRequest{
			Messages: []Message{{Role: RoleUser, Content: user}},
			Tools:    defs, Sampling: s, MaxTokens: 48,
		})
		if err != nil {
			t.Fatal(err)
		}
		return comp
	}
	want := reply(nil)
	cold := reply(cache)
	warm := reply(cache)
	if cold.Stats.PromptLoaded != 0 || warm.Stats.PromptLoaded == 0 {
		t.Fatalf("loaded %d tokens cold and %d warm; want 0 and the prefix", cold.Stats.PromptLoaded, warm.Stats.PromptLoaded)
	}
	for name, got := range map[string]Completion{"cold": cold, "warm": warm} {
		if got.Raw != want.Raw {
			t.Errorf("%s cache: %q\nwithout the cache: %q", name, got.Raw, want.Raw)
		}
	}
	toks, err := m.Tokenize(warm.Prompt, false, true)
	if err != nil {
		t.Fatal(err)
	}
	head, err := m.Detokenize(toks[:warm.Stats.PromptLoaded], true)
	if err != nil {
		t.Fatal(err)
	}
	rest := strings.TrimPrefix(warm.Prompt, head)
	if rest == warm.Prompt || strings.Contains(head, user) || !strings.HasPrefix(rest, user) {
		t.Errorf("the loaded prefix ends at %q, want just before the user's text", rest[:min(len(rest), 40)])
	}
	if len(warned) > 0 {
		t.Errorf("warnings: %v", warned)
	}
}
