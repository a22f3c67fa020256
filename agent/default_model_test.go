//go:build cgo

package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/grammar"
	"github.com/offgrid-ai/offgrid/inference"
	"github.com/offgrid-ai/offgrid/tools"
)

// loadDefault loads the store's default model (the catalog default after
// `make model`) with a context for agent turns.
//
// The tests of the default model call t.Parallel: each loads its own
// model and context at one thread, so two run at once, and this package,
// the longest of make test, uses the core other packages leave idle.
func loadDefault(t *testing.T) (*inference.Model, *inference.Context) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the default-model run")
	}
	// One thread: go test runs two packages, and here two tests, at once
	// on a 2-core machine.
	path := storeModelPath(t, "default")
	m, c := loadModel(t, path, 1)
	sharePromptCache(t, c, path)
	return m, c
}

// builtinDir returns the built-in tools, bash confined, over a directory
// holding notes.txt and main.go.
func builtinDir(t *testing.T) (*tools.Registry, []grammar.Tool) {
	t.Helper()
	reg, defs, _ := builtinIn(t)
	return reg, defs
}

// builtinIn is builtinDir that also returns the directory.
func builtinIn(t *testing.T) (*tools.Registry, []grammar.Tool, string) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("Buy milk\nCall Bob at 5pm\nThe launch code is 7421.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	// bash confined as offgrid run confines it (the test binary is the
	// sandbox helper, see TestMain); unconfined it would be refused.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reg, err := tools.Builtin(dir, tools.WithConfinement(exe))
	if err != nil {
		t.Fatal(err)
	}
	defs, err := grammar.ParseTools(reg.OpenAI())
	if err != nil {
		t.Fatal(err)
	}
	return reg, defs, dir
}

// TestDefaultModelAnswersFromResults: with the catalog's loop policy for
// the default model (a repeated call is not run; the answer is written
// without the tools in the prompt), the model's answers hold what the
// tools returned, every call is of an offered tool, and no successful
// call runs three times with the same arguments (the repeat guard).
//
// In auto mode the default model opens its first call of the listing with
// a ```json fence, not the template's <tool_call>: the reply must still
// become one valid call of an offered tool, in the fence.
func TestDefaultModelAnswersFromResults(t *testing.T) {
	t.Parallel() // see loadDefault
	m, c := loadDefault(t)
	reg, _ := builtinDir(t)
	pol, err := permission.New(permission.Config{AllowAll: true})
	if err != nil {
		t.Fatal(err)
	}
	s := inference.DefaultSampling()
	s.Temperature, s.Seed = 0, 1
	for _, tc := range []struct {
		prompt  string
		want    []string
		lenient bool // the first reply opens its call another way
	}{
		{"List the files in this directory.", []string{"notes.txt", "main.go"}, true},
		{"What is the launch code in notes.txt?", []string{"7421"}, false},
	} {
		var first *Completion
		a, err := New(NewCompleter(c, InfoFromModel(m)), reg, pol, nil,
			Options{Sampling: s, MaxTokens: 256, OnRepeat: RepeatAnswer, Answer: AnswerSeparate,
				Trace: func(c Completion) {
					if first == nil {
						first = &c
					}
				}})
		if err != nil {
			t.Fatal(err)
		}
		turn, err := a.Send(t.Context(), tc.prompt, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.prompt, err)
		}
		if turn.Stop != nil || len(turn.Calls) == 0 {
			t.Fatalf("%s: turn %+v", tc.prompt, turn)
		}
		if tc.lenient {
			if first == nil {
				t.Fatalf("%s: no reply traced", tc.prompt)
			}
			st, ok, _ := grammar.FindCall(first.Format, first.Raw)
			if !ok || st.Canonical {
				t.Errorf("want a call opened another way than <tool_call> (what this model writes); reply:\n%s", first.Raw)
			}
			if first.ParseErr != nil || len(first.Calls) != 1 {
				t.Errorf("reply did not become one call (%v):\n%s", first.ParseErr, first.Raw)
			}
			if r := turn.Calls[0].Result; r.ErrorType == tools.TypeNotFound || r.ErrorType == tools.TypeValidationFailed {
				t.Errorf("the call is not valid: %s %s: %s", turn.Calls[0].Name, turn.Calls[0].Arguments, r.Compact())
			}
			t.Logf("opening %q", st.Opening.Open)
		}
		seen := map[string]int{}
		for _, r := range turn.Calls {
			if k := repeatKey(grammar.Call{Name: r.Name, Arguments: r.Arguments}); r.OK() {
				if seen[k]++; seen[k] > 2 {
					t.Errorf("%s: %s %s ran %d times", tc.prompt, r.Name, r.Arguments, seen[k])
				}
			}
			if r.Code == ToolNotFound {
				t.Errorf("%s: call of an unknown tool %s (the grammar admits only offered tools)", tc.prompt, r.Name)
			}
		}
		for _, w := range tc.want {
			if !strings.Contains(turn.Content, w) {
				t.Errorf("%s: the answer lacks %q: %q", tc.prompt, w, turn.Content)
			}
		}
		t.Logf("%s → %d calls, %q", tc.prompt, len(turn.Calls), turn.Content)
	}
}

// TestDefaultModelReadFirst: with the default model's catalog settings,
// read-first among them, the model is shown the file a request names and
// edits it at once. Shown the read as its own read_file call instead (a
// form measured and dropped), it inserted the whole file again.
func TestDefaultModelReadFirst(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := catalogAgent(t, nil)
	turn, err := a.Send(t.Context(), "Insert the line 'Shopping list' at the top of notes.txt, before the first line.", nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, r := range turn.Calls {
		calls = append(calls, fmt.Sprintf("%s %s by agent %v: %s", r.Name, r.Arguments, r.ByAgent, r.Summary()))
	}
	b, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Shopping list\nBuy milk\nCall Bob at 5pm\nThe launch code is 7421.\n"; string(b) != want {
		t.Fatalf("notes.txt holds %q, want %q; calls:\n%s", b, want, strings.Join(calls, "\n"))
	}
	if len(turn.Calls) < 2 || !turn.Calls[0].ByAgent || turn.Calls[1].ByAgent {
		t.Fatalf("want offgrid's read, then the model's edit; calls:\n%s", strings.Join(calls, "\n"))
	}
	t.Logf("calls:\n%s\nanswer: %q", strings.Join(calls, "\n"), turn.Content)
}

// TestDefaultModelUsage: with the default model's template, which lays
// out the tools only once a message follows, Usage counts the tool
// definitions as the fixed part of the window (it once counted 585 of
// some 1,800 tokens there), and a first message adds only its own tokens.
func TestDefaultModelUsage(t *testing.T) {
	t.Parallel() // see loadDefault
	m, c := loadDefault(t)
	reg, defs := builtinDir(t)
	a, err := New(NewCompleter(c, InfoFromModel(m)), reg, nil, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := a.Usage()
	if err != nil {
		t.Fatal(err)
	}
	var schemas int
	for _, d := range defs {
		toks, err := m.Tokenize(string(d.Parameters), false, false)
		if err != nil {
			t.Fatal(err)
		}
		schemas += len(toks)
	}
	if u.Fixed < schemas || u.History != 0 {
		t.Fatalf("usage of an empty conversation %+v; the tools' schemas alone are %d tokens", u, schemas)
	}
	if err := a.SetHistory([]Message{{Role: RoleUser, Content: "Hello there, how are you?"}}); err != nil {
		t.Fatal(err)
	}
	after, err := a.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if after.Fixed != u.Fixed || after.History < 7 || after.History > 20 {
		t.Fatalf("usage after one short message %+v (before %+v)", after, u)
	}
}

// TestDefaultModelToolsByTopic: with ToolsByTopic, the default model
// answers a question about no tool's topics without calling one, and
// asked about the clock calls the clock. Shown every tool, it called ls
// for both (bench --agent: notool-math, time-year).
func TestDefaultModelToolsByTopic(t *testing.T) {
	t.Parallel() // see loadDefault
	a, _ := catalogAgent(t, func(o *Options) { o.ToolsByTopic = true })
	turn, err := a.Send(t.Context(), "What is 12 times 12?", nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func() (s []string) {
		for _, r := range turn.Calls {
			s = append(s, fmt.Sprintf("%s %s", r.Name, r.Arguments))
		}
		return s
	}
	// Shown every tool, it called ls, read notes.txt and replaced its
	// lines with one.
	if len(turn.Calls) != 0 || !strings.Contains(turn.Content, "144") {
		t.Fatalf("calls %q, answer %q; want 144 without a call", names(), turn.Content)
	}
	a.Reset()
	turn, err = a.Send(t.Context(), "What year is it? Check the clock.", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(turn.Calls) == 0 || turn.Calls[0].Name != "get_current_time" {
		t.Fatalf("calls %q, want get_current_time first", names())
	}
	if year := strconv.Itoa(time.Now().Year()); !strings.Contains(turn.Content, year) {
		t.Errorf("answer %q lacks the year %s", turn.Content, year)
	}
}

// TestDefaultModelRewrite: with Rewrite, the default model asked to
// change a line of a file it did not number writes the file whole and
// offgrid edits that one line. Without it, the 0.5B read the file again
// and answered with the changed text, the file unchanged (bench --agent:
// replace-milk).
func TestDefaultModelRewrite(t *testing.T) {
	t.Parallel() // see loadDefault
	a, dir := catalogAgent(t, func(o *Options) { o.ToolsByTopic, o.Rewrite = true, true })
	turn, err := a.Send(t.Context(), "In notes.txt, change the line 'Buy milk' to 'Buy oat milk'.", nil)
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	for _, r := range turn.Calls {
		calls = append(calls, fmt.Sprintf("%s %s: %s", r.Name, r.Arguments, r.Summary()))
	}
	b, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "Buy oat milk\nCall Bob at 5pm\nThe launch code is 7421.\n"; string(b) != want {
		t.Fatalf("notes.txt holds %q, want %q; calls:\n%s", b, want, strings.Join(calls, "\n"))
	}
	if len(turn.Calls) != 2 || turn.Calls[1].Name != "replace_lines" || !strings.Contains(string(turn.Calls[1].Arguments), `"line_start":1,"line_end":1`) {
		t.Errorf("want offgrid's read, then replace_lines of line 1; calls:\n%s", strings.Join(calls, "\n"))
	}
}

// catalogAgent returns an agent over the real default model and the
// built-in tools in a fresh directory (builtinIn), with the 0.5B's
// catalog loop settings of read-first's time, greedy, as changed by set.
func catalogAgent(t *testing.T, set func(*Options)) (*Agent, string) {
	t.Helper()
	m, c := loadDefault(t)
	reg, _, dir := builtinIn(t)
	pol, err := permission.New(permission.Config{AllowAll: true})
	if err != nil {
		t.Fatal(err)
	}
	s := inference.DefaultSampling()
	s.Temperature, s.Seed = 0, 1
	o := Options{Sampling: s, MaxTokens: 256, OnRepeat: RepeatAnswer, Answer: AnswerSeparate, AnswerAfterChange: true,
		LookFirst: true, ReadFirst: true, Mentions: func(r string) []tools.Mention { return tools.Mentioned(dir, r) }}
	if set != nil {
		set(&o)
	}
	a, err := New(NewCompleter(c, InfoFromModel(m)), reg, pol, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	return a, dir
}
