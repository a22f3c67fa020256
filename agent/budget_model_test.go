//go:build cgo

package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/curator"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// TestDefaultModelBudget: on the default model, in a window with little
// room beside the tool definitions, a 200 KB file, far larger than the
// window, is cut to fit as it is paged through until no room is left, and
// a long conversation is compacted: every turn ends with an answer, none
// with "prompt does not fit". (Every output goes through that cut: a
// 5,000-line grep and a command printing 1 MB are TestAgentFitsToolResult's.)
// One context serves both, with the package's prompt cache: the system
// prompt and tools are decoded once. One thread: go test runs two packages
// at once on this 2-core machine, and ggml's spinning thread barrier
// collapses decoding when threads outnumber cores.
func TestDefaultModelBudget(t *testing.T) {
	t.Parallel() // see loadDefault
	if testing.Short() {
		t.Skip("-short: skipping the default-model run")
	}
	m, err := inference.Load(storeModelPath(t, "default"), inference.ModelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	dir := t.TempDir()
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&big, "Line %d: the quick brown fox jumps over the lazy dog again.\n", i)
	}
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big.String()), 0o644)
	exe, err := os.Executable() // the test binary confines bash (see TestMain)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Builtin(dir, tools.WithCurator(curator.New(curator.Options{})), tools.WithConfinement(exe))
	if err != nil {
		t.Fatal(err)
	}
	pol, err := permission.New(permission.Config{AllowAll: true})
	if err != nil {
		t.Fatal(err)
	}
	s := inference.DefaultSampling()
	s.Temperature, s.Seed = 0, 1
	// The catalog's settings for the default model.
	opts := Options{Sampling: s, MaxTokens: 96, OnRepeat: RepeatAnswer, Answer: AnswerSeparate}
	// The window: the system prompt and tools, and 512 tokens beside
	// them, whatever the tool definitions come to. (1,024 took the 200 KB
	// file eight reads, each decoding a window's worth, and a long
	// conversation 24 turns before its first compaction.)
	base, err := BaseTokens(m, InfoFromModel(m), reg, opts)
	if err != nil {
		t.Fatal(err)
	}
	window := base + 512
	c, err := m.NewContext(inference.ContextOptions{ContextSize: window, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sharePromptCache(t, c, m.Path())
	comp := NewCompleter(c, InfoFromModel(m))
	newAgent := func(t *testing.T, o Options) *Agent {
		a, err := New(comp, reg, pol, nil, o)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	// answers checks a turn: an answer, no error, no overflow.
	answers := func(t *testing.T, prompt string, turn Turn, err error) {
		t.Helper()
		for _, r := range turn.Calls {
			t.Logf("  %s %s → %s %v", r.Name, r.Arguments, r.Status(), r.Cut)
		}
		if errors.Is(err, inference.ErrContextFull) {
			t.Fatalf("%s: %v", prompt, err)
		}
		t.Logf("  %d prompt tokens in all; answer %q", turn.Stats.PromptTokens, turn.Content)
		if err != nil || turn.Stop != nil || strings.TrimSpace(turn.Content) == "" {
			t.Fatalf("%s: no answer (err %v, stop %v): %q", prompt, err, turn.Stop, turn.Content)
		}
	}

	// In auto, the catalog's mode: made to call (required), the model
	// writes its usual 1000 as offset 1000000000 and never reads the file.
	t.Run("200KB file", func(t *testing.T) {
		const prompt = "Read big.txt and tell me what it is about."
		start := time.Now()
		o := opts
		o.ToolChoice = grammar.Auto
		o.Trace = func(c Completion) { t.Logf("  reply %q", shorten(c.Content, 300)) }
		a := newAgent(t, o)
		turn, err := a.Send(t.Context(), prompt, nil)
		answers(t, prompt, turn, err)
		var cut *Cut
		for _, r := range turn.Calls {
			if r.Name == "read_file" && r.Cut != nil {
				cut = r.Cut
			}
		}
		if cut == nil {
			t.Fatalf("no cut read_file result; calls: %+v", turn.Calls)
		}
		t.Logf("200KB file in %s: %d calls, the model saw %s (%q); answer %q", time.Since(start).Round(time.Second),
			len(turn.Calls), cut, strings.TrimSpace(cut.Note), turn.Content)
	})

	t.Run("long conversation", func(t *testing.T) {
		start := time.Now()
		o := opts
		o.MaxTokens = 48
		a := newAgent(t, o)
		// Turns go on until two have been answered after the first
		// compaction; the first brings a list of numbers, so that it
		// comes in a few turns, not a dozen.
		const most = 30
		var list strings.Builder
		for i := range 60 {
			fmt.Fprintf(&list, "%d, ", 2000+13*i)
		}
		after := 0
		for i := 0; i < most && after < 2; i++ {
			prompt := fmt.Sprintf("Write one sentence about the number %d.", 1000+7*i)
			if i == 0 {
				prompt = "Here are my numbers: " + strings.TrimSuffix(list.String(), ", ") + ". Write one sentence about them."
			}
			turn, err := a.Send(t.Context(), prompt, nil)
			answers(t, prompt, turn, err)
			if len(a.Compactions()) > 0 {
				after++
			}
		}
		cs := a.Compactions()
		if len(cs) == 0 {
			t.Fatalf("%d turns in a %d-token window and no compaction", most, window)
		}
		t.Logf("%s, %d compactions, the last: %s", time.Since(start).Round(time.Second), len(cs), cs[len(cs)-1])
	})
}
