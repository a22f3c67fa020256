//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
)

// startCLI starts the test binary as offgrid with private directories and
// returns it with its stdout and its stdin (left open).
func startCLI(t *testing.T, args ...string) (*exec.Cmd, *bufio.Reader, io.WriteCloser, *strings.Builder) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = []string{asCLI + "=1", "HOME=" + t.TempDir(), "XDG_DATA_HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir(),
		"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
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
