//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// panicAtSend makes the test binary, run as offgrid, panic before it
// sends a message to the model (see beforeSend).
const panicAtSend = "OFFGRID_TEST_PANIC_AT_SEND"

func init() {
	if os.Getenv(panicAtSend) == "1" {
		beforeSend = func() { panic("offgrid test: a panic before sending a message") }
	}
}

// startCLI starts the test binary as offgrid with private directories and
// returns it with its stdout and its stdin (left open).
func startCLI(t *testing.T, args ...string) (*exec.Cmd, *bufio.Reader, io.WriteCloser, *strings.Builder) {
	t.Helper()
	return startCLIEnv(t, nil, args...)
}

// startCLIEnv is startCLI with more variables in the environment.
func startCLIEnv(t *testing.T, env []string, args ...string) (*exec.Cmd, *bufio.Reader, io.WriteCloser, *strings.Builder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append([]string{asCLI + "=1", "HOME=" + t.TempDir(), "XDG_DATA_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(),
		"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewReader(stdout), stdin, &stderr
}

// TestRunSIGTERM: SIGTERM during a one-shot run stops it as Ctrl-C does:
// the --json stream ends with an error event and offgrid says why.
func TestRunSIGTERM(t *testing.T) {
	cmd, out, _, stderr := startCLI(t, "run", "-m", tinyModel(t), "--root", t.TempDir(), "--json", "--tool-choice", "none",
		"-p", "Tell me a long story.", "-n", "100000", "-t", "1", "--seed", "1")
	var last agent.Event
	signalled := false
	for {
		line, err := out.ReadString('\n')
		if err != nil {
			break
		}
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("stdout line is not an event: %v: %q", err, line)
		}
		if last.Type == agent.EventToken && !signalled {
			cmd.Process.Signal(syscall.SIGTERM)
			signalled = true
		}
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !signalled || !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("signalled %v, exit %v; stderr:\n%s", signalled, err, stderr)
	}
	if last.Type != agent.EventError || last.Text != "interrupted" {
		t.Errorf("the stream ends with %+v, want the error event", last)
	}
	if !strings.Contains(stderr.String(), "offgrid run: context canceled") {
		t.Errorf("stderr: %s", stderr)
	}
}

// TestREPLSIGTERM: SIGTERM ends an interactive session waiting for input:
// offgrid dies of the signal instead of ignoring it.
func TestREPLSIGTERM(t *testing.T) {
	cmd, out, _, stderr := startCLI(t, "run", "-m", tinyModel(t), "--root", t.TempDir(), "-t", "1")
	prompt := make([]byte, 2)
	if _, err := io.ReadFull(out, prompt); err != nil || string(prompt) != "> " {
		t.Fatalf("no prompt (%q, %v); stderr:\n%s", prompt, err, stderr)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("exit %v", err)
		}
		ws := ee.Sys().(syscall.WaitStatus)
		if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
			t.Fatalf("exit %v, want death by SIGTERM; stderr:\n%s", err, stderr)
		}
	case <-time.After(time.Minute):
		t.Fatalf("offgrid still runs a minute after SIGTERM; stderr:\n%s", stderr)
	}
}

// TestSignalExitPathsCloseMCP: every way out of offgrid run (/exit,
// Ctrl-C then Ctrl-D, SIGTERM or a hang-up at the prompt, and SIGTERM,
// a hang-up or Ctrl-C during run -p), and SIGTERM or a hang-up during
// offgrid tools call, closes the MCP servers first: no process of a
// server's group, its child included, outlives offgrid.
func TestSignalExitPathsCloseMCP(t *testing.T) {
	python := testenv.Python(t)
	model := tinyModel(t)
	for _, tc := range []struct {
		name   string
		prompt string // -p; "" for the REPL; "call" for tools call of the hanging tool
		exit   func(cmd *exec.Cmd, stdin io.WriteCloser)
		status string // how offgrid ends: "exit N" or the signal's name
	}{
		{"exit", "", func(_ *exec.Cmd, in io.WriteCloser) { io.WriteString(in, "/exit\n") }, "exit 0"},
		{"ctrl-c-ctrl-d", "", func(cmd *exec.Cmd, in io.WriteCloser) {
			cmd.Process.Signal(syscall.SIGINT)
			time.Sleep(100 * time.Millisecond)
			in.Close()
		}, "exit 0"},
		{"sigterm", "", func(cmd *exec.Cmd, _ io.WriteCloser) { cmd.Process.Signal(syscall.SIGTERM) }, "terminated"},
		{"sighup", "", func(cmd *exec.Cmd, _ io.WriteCloser) { cmd.Process.Signal(syscall.SIGHUP) }, "hangup"},
		{"prompt-sighup", "Tell me a long story.", func(cmd *exec.Cmd, _ io.WriteCloser) { cmd.Process.Signal(syscall.SIGHUP) }, "exit 1"},
		{"prompt-sigterm", "Tell me a long story.", func(cmd *exec.Cmd, _ io.WriteCloser) { cmd.Process.Signal(syscall.SIGTERM) }, "exit 1"},
		{"prompt-ctrl-c", "Tell me a long story.", func(cmd *exec.Cmd, _ io.WriteCloser) { cmd.Process.Signal(syscall.SIGINT) }, "exit 1"},
		{"call-sighup", "call", func(cmd *exec.Cmd, _ io.WriteCloser) { cmd.Process.Signal(syscall.SIGHUP) }, "exit 1"},
		{"call-sigterm", "call", func(cmd *exec.Cmd, _ io.WriteCloser) { cmd.Process.Signal(syscall.SIGTERM) }, "exit 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			script, log := filepath.Join(dir, "hang.py"), filepath.Join(dir, "log")
			os.WriteFile(script, []byte(hangServer), 0o644)
			mcpArg := "s=" + python + " " + script + " " + log
			args := []string{"run", "-m", model, "--root", dir, "-t", "1", "--seed", "1", "--mcp", mcpArg}
			switch tc.prompt {
			case "":
			case "call":
				args = []string{"tools", "call", "s_hang", "--yes", "--root", dir, "--mcp", mcpArg}
			default:
				// --json: in a pipe the text of a reply is held until its
				// answer; the token events show that generation runs.
				args = append(args, "--json", "--tool-choice", "none", "-n", "100000", "-p", tc.prompt)
			}
			cmd, out, stdin, stderr := startCLI(t, args...)
			var pids []string
			if tc.prompt == "call" {
				// The call hangs once the server logged it.
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(pids) < 3; time.Sleep(20 * time.Millisecond) {
					data, _ := os.ReadFile(log)
					pids = strings.Fields(string(data))
				}
				if len(pids) != 3 || pids[2] != "called" {
					t.Fatalf("the call did not reach the server: %q; stderr:\n%s", pids, stderr)
				}
				pids = pids[:2]
				go io.Copy(io.Discard, out)
			} else {
				// The servers are up once the REPL prompts or the reply streams.
				if _, err := out.ReadByte(); err != nil {
					t.Fatalf("no output: %v; stderr:\n%s", err, stderr)
				}
				go io.Copy(io.Discard, out)
				pids = strings.Fields(readFile(t, log))
			}
			if len(pids) != 2 {
				t.Fatalf("the server wrote %q, want its pid and its child's; stderr:\n%s", pids, stderr)
			}
			tc.exit(cmd, stdin)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("offgrid still runs 20s after the %s; stderr:\n%s", tc.name, stderr)
			}
			want := tc.status
			if want == "hangup" && signal.Ignored(syscall.SIGHUP) {
				// Started under nohup: offgrid inherits SIGHUP ignored, so
				// it cannot die of it and exits 128 + 1 instead.
				want = "exit 129"
			}
			if got := exitStatus(err); got != want {
				t.Errorf("offgrid ended with %s (%v), want %s; stderr:\n%s", got, err, want, stderr)
			}
			reaped(t, pids, "of the MCP server outlived offgrid")
		})
	}
}

// TestPanicClosesMCP: a panic in offgrid run, with -p or at the REPL,
// after the MCP servers started still closes them before offgrid dies of
// it: no process of a server's group, its child included, outlives it.
func TestPanicClosesMCP(t *testing.T) {
	python := testenv.Python(t)
	model := tinyModel(t)
	for _, repl := range []bool{false, true} {
		name := "prompt"
		if repl {
			name = "repl"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			script, log := filepath.Join(dir, "hang.py"), filepath.Join(dir, "log")
			os.WriteFile(script, []byte(hangServer), 0o644)
			args := []string{"run", "-m", model, "--root", dir, "-t", "1", "--seed", "1", "--mcp", "s=" + python + " " + script + " " + log}
			if !repl {
				args = append(args, "--tool-choice", "none", "-n", "16", "-p", "Hello.")
			}
			cmd, out, stdin, stderr := startCLIEnv(t, []string{panicAtSend + "=1"}, args...)
			if repl {
				prompt := make([]byte, 2)
				if _, err := io.ReadFull(out, prompt); err != nil || string(prompt) != "> " {
					t.Fatalf("no prompt (%q, %v); stderr:\n%s", prompt, err, stderr)
				}
				io.WriteString(stdin, "Hello.\n")
			}
			go io.Copy(io.Discard, out)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatalf("offgrid still runs a minute after it started; stderr:\n%s", stderr)
			}
			if got := exitStatus(err); got != "exit 2" || !strings.Contains(stderr.String(), "panic: offgrid test: a panic before sending a message") {
				t.Fatalf("offgrid ended with %s (%v), want the panic's exit 2; stderr:\n%s", got, err, stderr)
			}
			pids := strings.Fields(readFile(t, log))
			if len(pids) != 2 {
				t.Fatalf("the server wrote %q, want its pid and its child's; stderr:\n%s", pids, stderr)
			}
			reaped(t, pids, "of the MCP server outlived offgrid's panic")
		})
	}
}

// TestBenchAgentSignalClosesMCP: a hang-up or SIGTERM during bench
// --agent ends it through its clean-ups: no process of a task's MCP
// server, its child included, outlives offgrid.
func TestBenchAgentSignalClosesMCP(t *testing.T) {
	python := testenv.Python(t)
	model := tinyModel(t)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			script, log := filepath.Join(dir, "hang.py"), filepath.Join(dir, "log")
			os.WriteFile(script, []byte(hangServer), 0o644)
			// Every task of the suite starts the server anew, so one
			// runs whenever the signal comes.
			cmd, out, _, stderr := startCLI(t, "bench", "--agent", "-m", model, "--suite", "builtin", "-t", "1", "--seed", "1",
				"--max-tokens", "100000", "--no-prompt-cache", "--out", filepath.Join(dir, "out"), "--mcp", "s="+python+" "+script+" "+log)
			go io.Copy(io.Discard, out)
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if data, _ := os.ReadFile(log); len(strings.Fields(string(data))) >= 2 {
					break
				}
			}
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				t.Fatalf("offgrid still runs 20s after the %s; stderr:\n%s", sig, stderr)
			}
			if got := exitStatus(err); got != "exit 1" {
				t.Errorf("offgrid ended with %s (%v), want exit 1; stderr:\n%s", got, err, stderr)
			}
			pids := strings.Fields(readFile(t, log))
			if len(pids) < 2 {
				t.Fatalf("the server wrote %q, want its pid and its child's; stderr:\n%s", pids, stderr)
			}
			reaped(t, pids, "of the MCP server outlived offgrid")
		})
	}
}

// readFile returns the content of path, or fails the test.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// exitStatus describes how a process ended: "exit N", or the name of the
// signal that killed it.
func exitStatus(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit 0"
	case !errors.As(err, &ee):
		return err.Error()
	}
	if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
		return ws.Signal().String()
	}
	return "exit " + strconv.Itoa(ee.ExitCode())
}
