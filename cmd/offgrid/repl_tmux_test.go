package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent/permission"
	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// terminal is a tmux session running one command in a window of its own
// size, on a private server.
type terminal struct {
	t    *testing.T
	tmux string
	sock string
}

// newTerminal starts script in a 120x40 tmux window. tmux is required:
// without it the test is Missing (a failure under CI=true).
func newTerminal(t *testing.T, script string) *terminal {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		testenv.Missing(t, "tmux is not installed (%v); the REPL's terminal test needs it", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "run.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+script), 0o755); err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, tmux: tmux, sock: filepath.Join(dir, "tmux.sock")}
	term.run("new-session", "-d", "-x", "120", "-y", "40", "-s", "offgrid", path)
	t.Cleanup(func() { exec.Command(tmux, "-S", term.sock, "kill-server").Run() })
	return term
}

func (term *terminal) run(args ...string) string {
	term.t.Helper()
	out, err := exec.Command(term.tmux, append([]string{"-S", term.sock}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the window's text with its history, wrapped lines joined.
func (term *terminal) screen() string {
	term.t.Helper()
	return term.run("capture-pane", "-p", "-J", "-S", "-1000", "-t", "offgrid")
}

// lastLine is the last line of the window that is not blank.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, " \n"), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// typeLine types text literally, then the keys (e.g. "Enter").
func (term *terminal) typeLine(text string, keys ...string) {
	term.t.Helper()
	if text != "" {
		term.run("send-keys", "-t", "offgrid", "-l", text)
	}
	if len(keys) > 0 {
		term.run(append([]string{"send-keys", "-t", "offgrid"}, keys...)...)
	}
}

// waitFor polls the screen until ok holds; it fails the test with the
// screen after timeout.
func (term *terminal) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	term.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := term.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("waited %v for %s; the screen:\n%s", timeout, what, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// atPrompt reports whether the REPL waits at an empty prompt, having
// printed want n times.
func atPrompt(want string, n int) func(string) bool {
	return func(s string) bool { return strings.Count(s, want) >= n && lastLine(s) == ">" }
}

// modelReply bounds the wait for a reply of the default model in a
// terminal test. It guards against a hang, not a slow machine: at one
// thread on a loaded 2-core machine a first reply, its prompt decoded
// cold, took more than five minutes.
const modelReply = 15 * time.Minute

// TestREPLTerminal runs `offgrid run` in a real terminal (tmux) on
// qwen2.5-coder-0.5b and uses it as a person would: a prompt that makes
// the model insert a line in a file (one round of calls: --tool-choice required
// makes the first reply a call, --max-iterations 1 ends the turn after
// it, so the run does not depend on how the model goes on; --read-first
// is off, so that the first permission prompt is the model's call), the
// permission prompt showing the call's arguments exactly ("line_start" spelled so), answered "Allow
// once"; /tools, /context, /undo until the file is back byte for byte
// (mode included), the up arrow to repeat a command, Tab to complete one,
// and Ctrl-D to leave; the history is kept in the state directory.
func TestREPLTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the real-terminal run on a real model")
	}
	env, _ := runEnv(t, "", &bytes.Buffer{})
	model, err := resolveModel(context.Background(), env, "qwen2.5-coder-0.5b")
	if err != nil {
		t.Fatalf("qwen2.5-coder-0.5b is not installed (%v): run 'make model'", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	root, state := t.TempDir(), t.TempDir()
	orig := []byte("original\r\nsecond line ü\t\x01 without a final newline")
	target := filepath.Join(root, "a.txt")
	if err := os.WriteFile(target, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	term := newTerminal(t, fmt.Sprintf(`cd %q
%s=1 XDG_STATE_HOME=%q XDG_CONFIG_HOME=%q XDG_CACHE_HOME=%q %q run -m %q --root . --tool-choice required --read-first=false -t 1 --seed 1 -n 256 --max-iterations 1
echo "offgrid exited: $?"
sleep 600
`, root, asCLI, state, t.TempDir(), t.TempDir(), exe, model))

	term.waitFor("the banner and the prompt", 2*time.Minute, atPrompt("/help lists commands", 1))
	term.typeLine(`Insert "hi" as line 2 of a.txt.`, "Enter")
	// The write asks first, showing the arguments exactly as they will run.
	s := term.waitFor("the permission prompt", modelReply, shows(" to run?"))
	call := regexp.MustCompile(`(?m)^→ (\w+) (\{.*\})$`).FindStringSubmatch(s)
	if call == nil {
		t.Fatalf("no call line before the permission prompt; the screen:\n%s", s)
	}
	if want := "Allow " + call[1] + " to run?"; !strings.Contains(s, want) {
		t.Fatalf("the prompt lacks %q; the screen:\n%s", want, s)
	}
	if want := "Arguments:\n" + permission.FormatArgs(json.RawMessage(call[2])) + "\n"; !strings.Contains(s, want) {
		t.Fatalf("the prompt lacks the arguments as they run:\n%s\nthe screen:\n%s", want, s)
	}
	// The name markdown once mangled, spelled as it runs.
	if call[1] != "insert_lines" || !strings.Contains(s, `  "line_start": 2,`) {
		t.Fatalf("want insert_lines with \"line_start\": 2 in the prompt; the screen:\n%s", s)
	}
	term.typeLine("", "Down") // Allow once
	term.waitFor("Allow once selected", time.Minute, shows("> Allow once"))
	term.typeLine("", "Enter")
	s = term.waitFor("the reply and its stats line", modelReply, atPrompt("tokens/s", 1))
	writes := len(regexp.MustCompile(`(?m)^✅ (write_file|replace_lines|insert_lines) .*a\.txt`).FindAllString(s, -1))
	if now, _ := os.ReadFile(target); writes == 0 || bytes.Equal(now, orig) {
		t.Fatalf("the model did not change a.txt (%d writes, content %q); the screen:\n%s", writes, now, s)
	}

	term.typeLine("/tools", "Enter")
	term.waitFor("/tools", time.Minute, func(s string) bool {
		return regexp.MustCompile(`(?m)^write_file +high +Create a file`).MatchString(s) && lastLine(s) == ">"
	})
	term.typeLine("/context", "Enter")
	term.waitFor("/context", time.Minute, atPrompt("system + tools", 1))
	for i := 1; i <= writes; i++ {
		term.typeLine("/undo", "Enter")
		term.waitFor(fmt.Sprintf("undo %d of %d", i, writes), time.Minute, atPrompt("restored a.txt", i))
	}
	now, err := os.ReadFile(target)
	if err != nil || !bytes.Equal(now, orig) {
		t.Fatalf("after /undo a.txt holds %q (%v), want %q", now, err, orig)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o640 {
		t.Fatalf("after /undo a.txt has mode %v, want 0640", fi.Mode().Perm())
	}

	// Up walks back through the history: /undo, then /context, which
	// runs again.
	term.typeLine("", "Up")
	term.waitFor("/undo from the history", time.Minute, func(s string) bool { return lastLine(s) == "> /undo" })
	term.typeLine("", "Up")
	term.waitFor("/context from the history", time.Minute, func(s string) bool { return lastLine(s) == "> /context" })
	term.typeLine("", "Enter")
	term.waitFor("/context again", time.Minute, atPrompt("system + tools", 2))
	// Tab completes a command.
	term.typeLine("/ta", "Tab")
	term.waitFor("/ta completed", time.Minute, func(s string) bool { return lastLine(s) == "> /tasks" })
	term.typeLine("", "Enter")
	term.waitFor("/tasks", time.Minute, atPrompt("No tasks yet", 1))

	term.typeLine("", "C-d")
	term.waitFor("the exit", time.Minute, func(s string) bool { return strings.Contains(s, "offgrid exited: 0") })
	hist, err := os.ReadFile(filepath.Join(state, "offgrid", "history"))
	if err != nil || !strings.Contains(string(hist), "Insert \"hi\" as line 2 of a.txt.\n/tools\n/context\n/undo\n") {
		t.Fatalf("history %q (%v)", hist, err)
	}
}
