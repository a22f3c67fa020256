//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/bench"
	"github.com/offgrid-ai/offgrid/internal/testenv"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// hangServer is an MCP server in Python whose one tool never answers;
// it starts a child process and writes its pid, its child's and, once
// called, "called" to the file of its first argument. It answers after
// sleeping the seconds of its second argument, if any.
const hangServer = `
import json, os, subprocess, sys, time
log = open(sys.argv[1], "a", buffering=1)
log.write("%d\n%d\n" % (os.getpid(), subprocess.Popen(["sleep", "300"]).pid))
time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 0)
def send(mid, r):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": r}) + "\n")
    sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line)
    meth, mid = m.get("method"), m.get("id")
    if mid is None:
        continue
    if meth == "initialize":
        send(mid, {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "hang", "version": "1"}})
    elif meth == "tools/list":
        send(mid, {"tools": [{"name": "hang", "inputSchema": {"type": "object"}}]})
    elif meth == "tools/call":
        log.write("called\n")
    elif meth == "ping":
        send(mid, {})
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no"}}) + "\n")
        sys.stdout.flush()
`

// TestMCPSignalReaps: SIGTERM or Ctrl-C while an MCP call hangs ends
// offgrid promptly, and the server's process group with it.
func TestMCPSignalReaps(t *testing.T) {
	python := testenv.Python(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			script, log := filepath.Join(dir, "hang.py"), filepath.Join(dir, "log")
			os.WriteFile(script, []byte(hangServer), 0o644)
			cmd, _, _, stderr := startCLI(t, "tools", "call", "s_hang", "--yes", "--root", dir, "--mcp", "s="+python+" "+script+" "+log)
			var lines []string
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				data, _ := os.ReadFile(log)
				if lines = strings.Fields(string(data)); len(lines) == 3 {
					break
				}
			}
			if len(lines) != 3 {
				t.Fatalf("the call did not reach the server: %q; stderr:\n%s", lines, stderr)
			}
			begin := time.Now()
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("offgrid still runs 10s after %s", sig)
			}
			if d := time.Since(begin); d > 4*time.Second {
				t.Errorf("offgrid took %s to end after %s", d, sig)
			}
			reaped(t, lines[:2], "outlived offgrid")
		})
	}
}

// alive reports whether process pid runs (a zombie does not).
// reaped fails the test for each of pids (decimal; "0" and words are
// skipped) still alive 3 s on, saying the process "what", and kills it.
func reaped(t *testing.T, pids []string, what string) {
	t.Helper()
	for _, l := range pids {
		pid, err := strconv.Atoi(strings.TrimSpace(l))
		if err != nil || pid == 0 {
			continue
		}
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && alive(pid); {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d %s", pid, what)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}

// TestBenchAgentMCPConnectTimeout: bench --agent --mcp takes
// --mcp-connect-timeout as run does: a task whose server never answers
// fails at that deadline, saying so, and the server is not left running.
func TestBenchAgentMCPConnectTimeout(t *testing.T) {
	python := testenv.Python(t)
	model := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(model, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script, pidFile := filepath.Join(dir, "mute.py"), filepath.Join(dir, "pid")
	os.WriteFile(script, []byte("import os, sys, time\nopen(sys.argv[1], 'w').write(str(os.getpid()))\ntime.sleep(300)\n"), 0o644)
	out := t.TempDir()
	// 3s: long enough for python3 to write its pid on a loaded machine
	// (700ms was not).
	begin := time.Now()
	code, _, stderr := runBench(t, "--agent", "-m", model, "--task", "ls-root", "--max-tokens", "8", "--threads", "1",
		"--mcp", "mute="+python+" "+script+" "+pidFile, "--mcp-connect-timeout", "3s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("bench took %s with a 3s connect timeout", d)
	}
	var res bench.AgentResults
	if b, err := os.ReadFile(filepath.Join(out, "results.json")); err != nil || json.Unmarshal(b, &res) != nil || len(res.Runs) != 1 || len(res.Runs[0].Tasks) != 1 {
		t.Fatalf("results.json: %v %+v", err, res)
	}
	if task := res.Runs[0].Tasks[0]; task.Pass || !strings.Contains(task.Error, "within 3s") {
		t.Errorf("task %s: pass %v, error %q, want the connect timeout", task.ID, task.Pass, task.Error)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	reaped(t, []string{string(data)}, "of the server outlived its task")

	code, _, stderr = runBench(t, "--agent", "-m", model, "--mcp-connect-timeout", "0s")
	if code != 2 || !strings.Contains(stderr, "--mcp-connect-timeout must be positive") {
		t.Errorf("--mcp-connect-timeout 0s: exit %d, stderr %q", code, stderr)
	}
}

// TestToolsListSlowServer: a server slow to start is waited for, and the
// wait is said on stderr; a quick one starts without a word.
func TestToolsListSlowServer(t *testing.T) {
	python := testenv.Python(t)
	dir := t.TempDir()
	script, log := filepath.Join(dir, "hang.py"), filepath.Join(dir, "log")
	os.WriteFile(script, []byte(hangServer), 0o644)
	for _, tc := range []struct {
		sleep  string
		waited bool
	}{{"0", false}, {"3", true}} {
		t.Run(tc.sleep, func(t *testing.T) {
			code, _, out, errb := runTools(t, t.TempDir(), "", "list", "--mcp", "s="+python+" "+script+" "+log+" "+tc.sleep, "--mcp-connect-timeout", "20s")
			if code != 0 || !regexp.MustCompile(`(?m)^s_hang\s+\S+\s+mcp:s`).MatchString(out) {
				t.Fatalf("exit %d, want 0 with s_hang listed; stdout:\n%s\nstderr:\n%s", code, out, errb)
			}
			said := regexp.MustCompile(`\Aoffgrid: waiting for MCP servers to start: s \(at most 20s\)\.\.\.\noffgrid: MCP servers done starting in [0-9.]+s\n\z`)
			if got := said.MatchString(errb); got != tc.waited || !tc.waited && errb != "" {
				t.Errorf("stderr, want the wait said %v:\n%s", tc.waited, errb)
			}
		})
	}
}
