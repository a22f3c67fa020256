//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangServer is an MCP server in Python whose one tool never answers;
// it starts a child process and writes its pid, its child's and, once
// called, "called" to the file of its argument.
const hangServer = `
import json, os, subprocess, sys
log = open(sys.argv[1], "a", buffering=1)
log.write("%d\n%d\n" % (os.getpid(), subprocess.Popen(["sleep", "300"]).pid))
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
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			script, log := filepath.Join(dir, "hang.py"), filepath.Join(dir, "log")
			os.WriteFile(script, []byte(hangServer), 0o644)
			cmd, _, _, stderr := startCLI(t, "tools", "call", "s_hang", "--yes", "--root", dir, "--mcp", "s=python3 "+script+" "+log)
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
			for _, l := range lines[:2] {
				pid, _ := strconv.Atoi(l)
				for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline) && alive(pid); {
					time.Sleep(20 * time.Millisecond)
				}
				if alive(pid) {
					t.Errorf("process %d outlived offgrid", pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// alive reports whether process pid runs (a zombie does not).
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
