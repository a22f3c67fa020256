//go:build cgo

package promptcache_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/inference/promptcache"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// TestEngineRoundTrip runs prompts with a shared prefix through the real
// engine on the tiny generated model: a cold cache decodes and saves the
// prefix, a warm one loads it in a new context, and the output is the
// same with and without the cache; a damaged entry is reported and
// replaced, and a context of another size misses.
func TestEngineRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(path, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	m, err := inference.Load(path, inference.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	sum, err := promptcache.ModelSHA256(t.TempDir(), path)
	if err != nil {
		t.Fatal(err)
	}
	prompt := make([]inference.Token, 150)
	for i := range prompt {
		prompt[i] = inference.Token(10 + i*7%300)
	}
	const prefix = 120
	dir := t.TempDir()
	var warned []error
	cache := promptcache.New(dir, sum, promptcache.Options{Warn: func(err error) { warned = append(warned, err) }})

	run := func(size int, pc inference.PrefixCache) inference.Result {
		t.Helper()
		c, err := m.NewContext(inference.ContextOptions{ContextSize: size, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if pc != nil {
			c.SetPrefixCache(pc)
		}
		s := inference.DefaultSampling()
		s.Seed = 7
		res, err := c.Generate(t.Context(), inference.Request{Prompt: prompt, Prefix: prefix, MaxTokens: 24, Sampling: s}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	want := run(512, nil)
	files := func() []string { f, _ := filepath.Glob(filepath.Join(dir, "*.kv")); return f }

	cold := run(512, cache)
	if cold.Stats.PromptLoaded != 0 || cold.Stats.PromptDecoded != len(prompt) || len(files()) != 1 {
		t.Fatalf("cold: %+v, %d files; want everything decoded and one entry saved", cold.Stats, len(files()))
	}
	warm := run(512, cache)
	if warm.Stats.PromptLoaded != prefix || warm.Stats.PromptDecoded != len(prompt)-prefix {
		t.Fatalf("warm: %+v; want %d tokens loaded", warm.Stats, prefix)
	}
	for name, got := range map[string]inference.Result{"cold": cold, "warm": warm} {
		if !slices.Equal(got.Tokens, want.Tokens) {
			t.Errorf("%s cache: %v, without: %v", name, got.Tokens, want.Tokens)
		}
	}

	if other := run(256, cache); other.Stats.PromptLoaded != 0 {
		t.Errorf("a context of another size loaded the entry: %+v", other.Stats)
	}
	if len(files()) != 2 {
		t.Errorf("%d entries after a second context size, want 2", len(files()))
	}

	// Damage the 512 entry: reported, decoded again, replaced.
	for _, f := range files() {
		data, _ := os.ReadFile(f)
		os.WriteFile(f, data[:len(data)/2], 0o600)
	}
	if got := run(512, cache); got.Stats.PromptLoaded != 0 || !slices.Equal(got.Tokens, want.Tokens) {
		t.Errorf("after damage: %+v %v, want decoded and %v", got.Stats, got.Tokens, want.Tokens)
	}
	if len(warned) != 1 || !errors.Is(warned[0], promptcache.ErrTruncated) {
		t.Errorf("warnings = %v, want one truncation", warned)
	}
	if got := run(512, cache); got.Stats.PromptLoaded != prefix {
		t.Errorf("the entry was not replaced: %+v", got.Stats)
	}
}
