package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/internal/sandbox"
)

// confinedBash returns a registry whose bash tool runs confined in
// dir/root, and that root. It skips, saying why, where the kernel cannot
// confine commands, and fails instead under CI=true.
func confinedBash(t *testing.T) (*Registry, string) {
	t.Helper()
	what, err := sandbox.Check()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the bash sandbox cannot be tested: %v", err)
		}
		t.Skipf("SKIP: this kernel cannot confine commands, so the sandbox is not tested: %v", err)
	}
	t.Logf("confinement: %s", what)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "root")
	for _, d := range []string{root, filepath.Join(dir, "outside")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Builtin(root, WithConfinement(helperExe(t)))
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := r.Lookup("bash")
	if tool.Description != bashDescription {
		t.Fatalf("confined bash's description: %s", tool.Description)
	}
	return r, root
}

// bash runs command with the bash tool and returns its result text.
func bash(t *testing.T, r *Registry, command string) string {
	t.Helper()
	args, _ := json.Marshal(bashArgs{Command: command, TimeoutSeconds: 20})
	res := r.Execute(context.Background(), "bash", args)
	if !res.Success {
		t.Fatalf("bash %q: %s", command, res)
	}
	return res.Text()
}

func TestBashSandboxFiles(t *testing.T) {
	r, root := confinedBash(t)
	outside := filepath.Join(filepath.Dir(root), "outside")
	for _, c := range []struct {
		name, command string
		has           []string
	}{
		{"system files are readable", "head -c 5 /etc/passwd >/dev/null && echo readable", []string{"exit code: 0", "readable"}},
		{"the root is writable", "mkdir -p d && echo made > d/x.txt && cat d/x.txt && rm d/x.txt", []string{"exit code: 0", "made"}},
		{"outside is not", "echo x > ../outside/x", []string{"exit code: 1", "Permission denied"}},
		{"nor by absolute path", "echo x > " + outside + "/y; touch /tmp/offgrid-escape-$$", []string{"exit code: 1", "Permission denied"}},
		{"nor through a link", "ln -s ../outside out && echo x > out/z", []string{"exit code: 1", "Permission denied"}},
		{"home is not readable", "ls " + filepath.Dir(root), []string{"exit code: 2", "Permission denied"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := bash(t, r, c.command)
			for _, want := range c.has {
				if !strings.Contains(out, want) {
					t.Errorf("%q lacks %q:\n%s", c.command, want, out)
				}
			}
		})
	}
	if entries, err := os.ReadDir(outside); err != nil || len(entries) > 0 {
		t.Errorf("the directory outside the root holds %v (%v), want nothing", entries, err)
	}
}

func TestBashSandboxTmpdir(t *testing.T) {
	r, _ := confinedBash(t)
	out := bash(t, r, `test "$HOME" = "$TMPDIR" && echo kept > "$TMPDIR/f" && cat "$TMPDIR/f" && echo "tmp=$TMPDIR"`)
	if !strings.Contains(out, "kept") {
		t.Fatalf("TMPDIR is not writable:\n%s", out)
	}
	_, tmp, _ := strings.Cut(out, "tmp=")
	tmp = strings.TrimSpace(strings.SplitN(tmp, "\n", 2)[0])
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command's temporary directory %q outlived it: %v", tmp, err)
	}
}

func TestBashSandboxEnv(t *testing.T) {
	r, _ := confinedBash(t)
	t.Setenv("OFFGRID_TEST_SECRET", "s3cret-value")
	out := bash(t, r, `env`)
	if strings.Contains(out, "s3cret-value") || !strings.Contains(out, "PATH=") {
		t.Fatalf("the environment is not the allowlist:\n%s", out)
	}
	// Nor can the command read the parent's environment (or memory) from
	// /proc: Landlock denies ptrace-class access out of the sandbox.
	out = bash(t, r, `cat /proc/$PPID/environ >/dev/null && echo parent-readable`)
	if strings.Contains(out, "parent-readable") || !strings.Contains(out, "Permission denied") {
		t.Fatalf("/proc/$PPID/environ:\n%s", out)
	}
	// Root's capabilities, which would pass over that, are dropped.
	out = bash(t, r, `grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status`)
	if strings.Count(out, "0000000000000000") != 4 {
		t.Errorf("the command has capabilities:\n%s", out)
	}
}

func TestBashSandboxNetwork(t *testing.T) {
	r, _ := confinedBash(t)
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tport := strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port)
	uport := strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port)
	commands := []string{
		"echo hi > /dev/tcp/127.0.0.1/" + tport,
		"echo hi > /dev/udp/127.0.0.1/" + uport,
	}
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		commands = append(commands,
			`/usr/bin/python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"hi", ("127.0.0.1", `+uport+`))'`,
			`/usr/bin/python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_STREAM)'`,
			`/usr/bin/python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)'`)
	} else {
		t.Log("no /usr/bin/python3: only bash's /dev/tcp and /dev/udp are tried")
	}
	for _, c := range commands {
		out := bash(t, r, c)
		if !strings.Contains(out, "exit code: 1") || !(strings.Contains(out, "Operation not permitted") || strings.Contains(out, "PermissionError")) {
			t.Errorf("%s: not refused:\n%s", c, out)
		}
	}
	// Nothing arrived. (Any connection or datagram was sent before the
	// commands ended; the deadlines only end the waits.)
	tcp.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
	if c, err := tcp.Accept(); err == nil {
		c.Close()
		t.Error("the TCP listener got a connection")
	}
	udp.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 16)); err == nil {
		t.Errorf("the UDP socket got a %d-byte datagram", n)
	}
	// AF_UNIX sockets still work.
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		out := bash(t, r, `/usr/bin/python3 -c 'import socket; a, b = socket.socketpair(); a.send(b"ok"); print(b.recv(2).decode())'`)
		if !strings.Contains(out, "exit code: 0") || !strings.Contains(out, "ok") {
			t.Errorf("a unix socket pair failed:\n%s", out)
		}
	}
}

func TestBashSandboxProcessGroup(t *testing.T) {
	r, root := confinedBash(t)
	// The command cannot leave the process group the tool kills.
	out := bash(t, r, "setsid sleep 30; echo rc=$?")
	if strings.Contains(out, "rc=0") {
		t.Fatalf("setsid succeeded:\n%s", out)
	}
	// A timeout kills a grandchild.
	args := `{"command":"(sleep 30; echo late) & echo $! > grandchild.pid; wait","timeout_seconds":1}`
	res := r.Execute(context.Background(), "bash", json.RawMessage(args))
	if res.Success || !strings.Contains(res.Message(), "timed out") {
		t.Fatalf("timeout: %s", res)
	}
	pid, err := os.ReadFile(filepath.Join(root, "grandchild.pid"))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(strings.TrimSpace(string(pid))) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %s survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBashUnconfined: without confinement the tool says so and refuses,
// unless unconfined commands are allowed.
func TestBashUnconfined(t *testing.T) {
	root := t.TempDir()
	refusing, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := refusing.Lookup("bash")
	if !strings.Contains(tool.Description, "refused here") || !strings.Contains(tool.Description, "unconfined") {
		t.Errorf("description: %s", tool.Description)
	}
	res := refusing.Execute(context.Background(), "bash", json.RawMessage(`{"command":"touch ran"}`))
	if res.Success || res.ErrorType != TypePermissionDenied || !strings.Contains(res.Message(), "--bash-unconfined") {
		t.Errorf("unconfined call: %s", res)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the refused command ran")
	}
	loose, err := Builtin(root, WithUnconfinedBash())
	if err != nil {
		t.Fatal(err)
	}
	tool, _ = loose.Lookup("bash")
	if !strings.Contains(tool.Description, Unconfined+":") {
		t.Errorf("description: %s", tool.Description)
	}
	if out := bash(t, loose, "touch ran && echo ok"); !strings.Contains(out, "ok") {
		t.Errorf("allowed unconfined command: %s", out)
	}
}

// TestBashConfinementFailure: a helper that cannot confine is an error,
// and the command does not run.
func TestBashConfinementFailure(t *testing.T) {
	if _, err := sandbox.Check(); err != nil {
		t.Skipf("SKIP: this kernel cannot confine commands: %v", err)
	}
	root := t.TempDir()
	r, err := Builtin(root, WithConfinement("/bin/false"))
	if err != nil {
		t.Fatal(err)
	}
	res := r.Execute(context.Background(), "bash", json.RawMessage(`{"command":"touch ran"}`))
	if res.Success || res.ErrorType != TypeInternal || !strings.Contains(res.Message(), "does not serve") {
		t.Errorf("a helper that does not confine: %s", res)
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("the command ran without its helper")
	}
}
