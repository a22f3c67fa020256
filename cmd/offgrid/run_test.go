package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/models"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// runEnv is an environment for `offgrid run` tests: a private config
// directory (no remembered permissions) and cache (no prompt cache), the
// real model store, no terminal.
func runEnv(t *testing.T, stdin string, stdout *bytes.Buffer) (*cliEnv, *bytes.Buffer) {
	t.Helper()
	config, cache := t.TempDir(), t.TempDir()
	var errb bytes.Buffer
	return &cliEnv{stdin: strings.NewReader(stdin), stdout: stdout, stderr: &errb, getenv: func(k string) string {
		switch k {
		case "XDG_CONFIG_HOME":
			return config
		case "XDG_CACHE_HOME":
			return cache
		}
		return os.Getenv(k)
	}}, &errb
}

// withCache makes env's runs keep their prompt cache in dir, as one
// user's runs share one: the first run decodes the system prompt and the
// heads of the model's choices, and the runs after it load them.
func withCache(env *cliEnv, dir string) {
	getenv := env.getenv
	env.getenv = func(k string) string {
		if k == "XDG_CACHE_HOME" {
			return dir
		}
		return getenv(k)
	}
}

// jsonEvents parses offgrid run --json output: one event per line, and
// nothing else.
func jsonEvents(t *testing.T, out string) []agent.Event {
	t.Helper()
	var events []agent.Event
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e agent.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("stdout line is not an event: %v\n%s", err, line)
		}
		events = append(events, e)
	}
	return events
}

func tinyModel(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(path, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRunFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		has  string
	}{
		{[]string{"--tool-choice", "sometimes"}, 2, "--tool-choice"},
		{[]string{"--tool-format", "xml"}, 2, "--tool-format"},
		{[]string{"hello"}, 2, "unexpected argument"},
		{[]string{"--max-iterations", "0"}, 2, "--max-iterations"},
		{[]string{"--answer", "later"}, 2, "--answer"},
		{[]string{"--assist", "+read-frist"}, 2, `unknown assist "read-frist"`},
		{[]string{"--rewrite=maybe"}, 2, "rewrite"},
		{[]string{"--profile", "qwen9"}, 2, `unknown profile "qwen9"`},
		{[]string{"--profile", "/no/such/profile.json"}, 2, "profile.json"},
		{[]string{"-f", "/no/such/prompt.txt"}, 2, "--file"},
		{[]string{"-p", "hi", "-f", "/no/such/prompt.txt"}, 2, "both given"},
		{[]string{"--system-prompt-file", "/no/such/system.txt"}, 2, "--system-prompt-file"},
		{[]string{"--allow", "no_such_tool"}, 2, "no such tool"},
		{[]string{"--root", "/no/such/dir", "-p", "x"}, 1, "sandbox root"},
		{[]string{"-m", "/no/such/model.gguf", "-p", "x"}, 1, "model.gguf"},
		{[]string{"-h"}, 0, "-ngl"},
	} {
		env, errb := runEnv(t, "", &bytes.Buffer{})
		if code := runMain(t.Context(), env, append([]string{"run"}, tc.args...)); code != tc.code || !strings.Contains(errb.String(), tc.has) {
			t.Errorf("%v: exit %d, want %d; stderr:\n%s", tc.args, code, tc.code, errb.String())
		}
	}
	got := llamaAliases([]string{"-ngl", "99", "-ngl=-1", "-n", "5"})
	if want := []string{"--gpu-layers", "99", "--gpu-layers=-1", "-n", "5"}; !slices.Equal(got, want) {
		t.Errorf("aliases %v", got)
	}
}

// TestRunProfile: a profile file drives the loop (its tool choice none:
// no tools, no call), and a flag given wins over it (--tool-choice
// required: a call), on the real engine.
func TestRunProfile(t *testing.T) {
	prof := filepath.Join(t.TempDir(), "none.json")
	if err := os.WriteFile(prof, []byte(`{"name": "no tools", "tool_choice": "none", "assists": ["remind"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	model := tinyModel(t)
	for _, tc := range []struct {
		flags []string
		calls bool
	}{
		{nil, false},
		{[]string{"--tool-choice", "required"}, true},
	} {
		var out bytes.Buffer
		env, errb := runEnv(t, "", &out)
		args := append([]string{"run", "-m", model, "--root", t.TempDir(), "-p", "Use a tool.", "--json", "--profile", prof,
			"--seed", "3", "-n", "512", "-t", "1", "-c", "8192", "--max-iterations", "1"}, tc.flags...)
		if code := runMain(t.Context(), env, args); code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.flags, code, errb.String())
		}
		calls := 0
		for _, e := range jsonEvents(t, out.String()) {
			if e.Type == agent.EventToolCall {
				calls++
			}
		}
		if (calls > 0) != tc.calls {
			t.Errorf("%v: %d calls\n%s", tc.flags, calls, out.String())
		}
	}
}

// TestRunPromptFile: -f FILE is the prompt and --system-prompt-file the
// system prompt, as llama.cpp's flags are, and -n has its llama.cpp
// spelling --n-predict.
func TestRunPromptFile(t *testing.T) {
	dir := t.TempDir()
	prompt, system := filepath.Join(dir, "prompt.txt"), filepath.Join(dir, "system.txt")
	os.WriteFile(prompt, []byte("Say hello.\n"), 0o644)
	os.WriteFile(system, []byte("You are terse.\n"), 0o644)
	var out bytes.Buffer
	env, errb := runEnv(t, "", &out)
	code := runMain(t.Context(), env, []string{"run", "-m", tinyModel(t), "--root", dir, "-f", prompt, "--system-prompt-file", system,
		"--tool-choice", "none", "--verbose-prompt", "--seed", "1", "--n-predict", "4", "-t", "1", "-c", "2048"})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	for _, want := range []string{"Say hello.", "You are terse."} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("the rendered prompt lacks %q:\n%s", want, errb.String())
		}
	}
}

// TestRunJSON runs a one-shot prompt on the tiny model: every stdout line
// is one JSON event, calls come with their results, the last is final.
func TestRunJSON(t *testing.T) {
	var out bytes.Buffer
	env, errb := runEnv(t, "", &out)
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
	code := runMain(t.Context(), env, []string{"run", "-m", tinyModel(t), "--root", root, "-p", "Use a tool.", "--json",
		"--tool-choice", "required", "--seed", "3", "-n", "512", "-t", "1", "-c", "8192", "--max-iterations", "1"})
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	var types []agent.EventType
	var calls, results int
	for _, e := range jsonEvents(t, out.String()) {
		types = append(types, e.Type)
		switch e.Type {
		case agent.EventToolCall:
			calls++
			if e.ID == "" || e.Tool == "" || !json.Valid(e.Arguments) {
				t.Errorf("tool_call %+v", e)
			}
		case agent.EventToolResult:
			results++
			if e.Record == nil || e.Record.Name != e.Tool {
				t.Errorf("tool_result %+v", e)
			}
		}
	}
	if calls == 0 || calls != results || types[len(types)-1] != agent.EventFinal || !slices.Contains(types, agent.EventStats) {
		t.Fatalf("events %v\n%s", types, out.String())
	}
}

// interruptingWriter raises an interrupt at the first token event (of
// --json output), and returns only once the REPL has acted on it.
type interruptingWriter struct {
	bytes.Buffer
	mu   sync.Mutex
	sigs chan os.Signal
	done bool
}

func (w *interruptingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	fire := !w.done && strings.Contains(string(p), `"type":"token"`)
	n, err := w.Buffer.Write(p)
	if fire {
		w.done = true
		// The second send completes only after the REPL has handled the
		// first, so the reply is cancelled before this write returns.
		w.sigs <- os.Interrupt
		w.sigs <- os.Interrupt
	}
	return n, err
}

// TestRunREPLInterrupt: Ctrl-C during a reply at the REPL stops the
// reply, which ends with an error event, and the session goes on: the
// next message is answered and the end of input exits cleanly. --json:
// in a pipe a reply's text is held until its answer, so only the token
// events show the reply under way.
func TestRunREPLInterrupt(t *testing.T) {
	w := &interruptingWriter{sigs: make(chan os.Signal)}
	config := t.TempDir()
	var errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader("Write a long story.\nAgain.\n"), stdout: w, stderr: &errb, getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return config
		}
		return os.Getenv(k)
	}}
	err := runCommand(t.Context(), env, []string{"-m", tinyModel(t), "--root", t.TempDir(), "--seed", "1", "-n", "48", "-t", "1", "-c", "8192", "--json"}, w.sigs)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	out := w.String()
	interrupted := strings.Index(out, `{"type":"error","text":"interrupted"`)
	if interrupted < 0 {
		t.Fatalf("no interruption reported; stdout:\n%s\nstderr:\n%s", out, errb.String())
	}
	// The second message is answered after it.
	if !strings.Contains(out[interrupted:], `{"type":"final"`) {
		t.Fatalf("no answer after the interruption; stdout:\n%s", out)
	}
}

// TestRunDefaultModel is the acceptance run of the default model, with
// default flags but one thread (go test runs two packages at once on a
// 2-core machine): `offgrid run -p PROMPT --yes --json` in a directory of a
// few files must read the file asked about and answer from it: a short
// note, a README, and a line near the end of a 3,000-line file (197 KB, larger
// than the context window). The four runs share a prompt cache, as one
// user's runs in a folder do. It takes minutes on a loaded CPU; -short
// skips it.
func TestRunDefaultModel(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the default-model acceptance run")
	}
	var big strings.Builder
	for i := 1; i <= 3000; i++ {
		if i == 2999 {
			big.WriteString("Line 2999: the treasure is buried under the old oak tree.\n")
			continue
		}
		fmt.Fprintf(&big, "Line %d: the quick brown fox jumps over the lazy dog again.\n", i)
	}
	dir := t.TempDir()
	files := map[string]string{"notes.txt": "Buy milk\nCall Bob at 5pm\nThe launch code is 7421.\n", "main.go": "package main\n", "README.md": "# Demo\n",
		"config.json": "{\n  \"name\": \"demo\",\n  \"version\": \"1.4.2\",\n  \"port\": 8080\n}\n", "big.txt": big.String()}
	for f, content := range files {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	cache := t.TempDir()
	for _, tc := range []struct {
		prompt, file string
		want         []string
	}{
		{"What does notes.txt say?", "notes.txt", []string{"milk", "7421"}},
		// Without --look-first (the catalog's setting) it described an
		// SDK it never read.
		{"What does README.md say?", "README.md", []string{"Demo"}},
		// Before --read-first (the catalog's setting) it listed the
		// directory and answered "1".
		{"What version number is in config.json?", "config.json", []string{"1.4.2"}},
		{"What is on line 2999 of big.txt?", "big.txt", []string{"oak tree"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var out bytes.Buffer
			env, errb := runEnv(t, "", &out)
			withCache(env, cache)
			if _, err := resolveModel(context.Background(), env, ""); err != nil {
				t.Fatalf("the default model is not installed (%v): run 'make model'", err)
			}
			code := runMain(t.Context(), env, []string{"run", "-p", tc.prompt, "--yes", "--json", "-t", "1"})
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errb.String())
			}
			var read bool
			var final string
			var trace []string
			for _, e := range jsonEvents(t, out.String()) {
				switch e.Type {
				case agent.EventToolCall:
					read = read || e.Tool == "read_file" && strings.Contains(string(e.Arguments), tc.file)
					trace = append(trace, "call "+e.Tool+" "+string(e.Arguments))
				case agent.EventFinal:
					final = e.Text
					trace = append(trace, "final "+e.Text)
				}
			}
			ok := read
			for _, w := range tc.want {
				ok = ok && strings.Contains(final, w)
			}
			if !ok {
				t.Fatalf("want a read_file of %s and an answer with %q; got:\n%s", tc.file, tc.want, strings.Join(trace, "\n"))
			}
		})
	}
}

// TestRunPromptCache: a second run loads the prompt before the user's
// text from $XDG_CACHE_HOME/offgrid/prompts and answers the same;
// --no-prompt-cache neither loads nor saves.
func TestRunPromptCache(t *testing.T) {
	model, cache := tinyModel(t), t.TempDir()
	run := func(extra ...string) (agent.Stats, string) {
		t.Helper()
		var out bytes.Buffer
		env, errb := runEnv(t, "", &out)
		withCache(env, cache) // one cache for the three runs
		args := append([]string{"run", "-m", model, "--root", t.TempDir(), "-p", "Hello.", "--json", "--tool-choice", "none",
			"--seed", "3", "-n", "16", "-t", "1", "-c", "1024", "--system", strings.Repeat("You are a careful assistant. ", 20)}, extra...)
		if code := runMain(t.Context(), env, args); code != 0 {
			t.Fatalf("exit %d\n%s", code, errb.String())
		}
		var st *agent.Stats
		var final string
		for _, e := range jsonEvents(t, out.String()) {
			if e.Stats != nil && st == nil {
				st = e.Stats
			}
			if e.Type == agent.EventFinal {
				final = e.Text
			}
		}
		if st == nil {
			t.Fatalf("no stats event:\n%s", out.String())
		}
		return *st, final
	}
	entries := func() int { m, _ := filepath.Glob(filepath.Join(cache, "offgrid", "prompts", "*.kv")); return len(m) }

	off, want := run("--no-prompt-cache")
	if off.PromptLoaded != 0 || entries() != 0 {
		t.Fatalf("--no-prompt-cache: %+v, %d entries", off, entries())
	}
	cold, got := run()
	if cold.PromptLoaded != 0 || entries() != 1 || got != want {
		t.Fatalf("cold: %+v, %d entries, %q (want %q)", cold, entries(), got, want)
	}
	warm, got := run()
	if warm.PromptLoaded == 0 || warm.PromptDecoded >= cold.PromptDecoded || got != want {
		t.Fatalf("warm: %+v, %q (want %q)", warm, got, want)
	}
}

// TestRunTruncatedStoredModel: a stored model cut short since it was
// stored fails to load with the engine's reason, its size against the
// manifest's and how to replace it; the store still lists it.
func TestRunTruncatedStoredModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	st := models.NewStore(dir)
	if _, err := st.Import(t.Context(), "tiny", synthFile(t), ""); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(st.Path("tiny"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(st.Path("tiny"), fi.Size()/2); err != nil {
		t.Fatal(err)
	}
	env, errb := runEnv(t, "", &bytes.Buffer{})
	getenv := env.getenv
	env.getenv = func(k string) string {
		if k == "OFFGRID_MODELS" {
			return dir
		}
		return getenv(k)
	}
	code := runMain(t.Context(), env, []string{"run", "-m", "tiny", "-p", "hi", "--root", t.TempDir()})
	for _, want := range []string{"extends past the end of the file", fmt.Sprintf("the file is %d bytes, the store's manifest says %d", fi.Size()/2, fi.Size()), "offgrid models rm tiny"} {
		if code != 1 || !strings.Contains(errb.String(), want) {
			t.Errorf("exit %d, stderr %q, want %q", code, errb, want)
		}
	}
	t.Log(errb)
	if r := modelsCLI(t, dir, "ls"); r.code != 0 || !strings.Contains(r.stdout, "tiny") {
		t.Errorf("models ls: %+v", r)
	}
}

// --chat-template-file replaces the model's template: the prompt is laid
// out by it; a template that does not parse is refused with the reason.
func TestRunChatTemplateFile(t *testing.T) {
	model := tinyModel(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jinja")
	os.WriteFile(good, []byte("CUSTOM-TEMPLATE-MARK\n"+synth.ChatTemplate), 0o644)
	bad := filepath.Join(dir, "bad.jinja")
	os.WriteFile(bad, []byte("{% for m in messages %}{{ m.content }"), 0o644)
	for _, tc := range []struct {
		file string
		code int
		want string
	}{
		{good, 0, "CUSTOM-TEMPLATE-MARK"},
		{bad, 1, "template"},
		{filepath.Join(dir, "missing.jinja"), 2, "--chat-template-file"},
	} {
		env, errb := runEnv(t, "", &bytes.Buffer{})
		code := runMain(t.Context(), env, []string{"run", "-m", model, "--root", t.TempDir(), "-p", "hi", "--chat-template-file", tc.file,
			"--verbose-prompt", "--tool-choice", "none", "-n", "4", "-t", "1", "--seed", "1"})
		if code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%s: exit %d, want %d with %q in stderr:\n%s", filepath.Base(tc.file), code, tc.code, tc.want, errb.String())
		}
	}
}

// Every old spelling is hidden from --help and does what its new name
// does: run's --no-grammar is --grammar off and --compact-tools is
// --tools-prompt compact (the same prompt and reply, and another than
// without them); bench's --after-change and --examples are --assist
// ±answer-after-change and ±tool-examples (see TestBenchAgentProfile).
func TestOldSpellings(t *testing.T) {
	for _, tc := range []struct {
		cmd      []string
		old, new string
	}{
		{[]string{"run"}, "--no-grammar", "--grammar"},
		{[]string{"run"}, "--compact-tools", "--tools-prompt"},
		{[]string{"run"}, "--n-predict", "--max-tokens"},
		{[]string{"run"}, "--rewrite", "--assist"},
		{[]string{"bench", "agent"}, "--after-change", "--assist"},
		{[]string{"bench", "agent"}, "--examples", "--assist"},
		{[]string{"bench", "agent"}, "--read-first", "--assist"},
	} {
		env, errb := runEnv(t, "", &bytes.Buffer{})
		runMain(t.Context(), env, append(tc.cmd, "--help"))
		help := errb.String()
		if strings.Contains(help, tc.old+" ") || !strings.Contains(help, tc.new+" ") {
			t.Errorf("%v --help: %s shown or %s missing", tc.cmd, tc.old, tc.new)
		}
	}
	model := tinyModel(t)
	root := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		env, errb := runEnv(t, "", &bytes.Buffer{})
		base := []string{"run", "-m", model, "--root", root, "-p", "list the files", "--verbose-prompt", "--tool-choice", "required",
			"--max-iterations", "1", "-n", "12", "-t", "1", "--seed", "5", "--temp", "0"}
		if code := runMain(t.Context(), env, append(base, args...)); code > 1 {
			t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
		}
		out := errb.String()
		if i := strings.Index(out, "──── prompt"); i >= 0 {
			out = out[i:]
		}
		if i := strings.LastIndex(out, "────\n"); i >= 0 {
			out = out[:i] // the trace: prompts and replies
		}
		return out
	}
	for _, pair := range [][2][]string{
		{{"--no-grammar"}, {"--grammar", "off"}},
		{{"--compact-tools"}, {"--tools-prompt", "compact"}},
	} {
		old, renamed, plain := run(pair[0]...), run(pair[1]...), run()
		if old != renamed {
			t.Errorf("%v and %v differ:\n%s\n----\n%s", pair[0], pair[1], old, renamed)
		}
		if old == plain {
			t.Errorf("%v changes nothing", pair[0])
		}
	}
	env, errb := runEnv(t, "", &bytes.Buffer{})
	if code := runMain(t.Context(), env, []string{"run", "-m", model, "-p", "x", "--grammar", "maybe"}); code != 2 || !strings.Contains(errb.String(), "--grammar: want on or off") {
		t.Errorf("--grammar maybe: exit %d: %s", code, errb.String())
	}
}
