package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/internal/testenv"
)

// tmuxPane is a 120x40 terminal in a private tmux server running one
// command.
type tmuxPane struct {
	t            *testing.T
	tmux, socket string
}

// startTmux runs script (a sh command line) in a new detached tmux
// session with its own server; the pane stays after the script ends
// (it waits for a line of input).
func startTmux(t *testing.T, dir, script string) *tmuxPane {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		testenv.Missing(t, "tmux is not installed; the permission prompt is tested in a real terminal")
	}
	p := &tmuxPane{t: t, tmux: tmux, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "TERM=xterm-256color", "LANG=C.UTF-8"}
	cmd := exec.Command(tmux, "-S", p.socket, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-c", dir,
		"sh", "-c", script+`; echo "EXIT=$?"; read done`)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command(tmux, "-S", p.socket, "kill-server").Run() })
	return p
}

// screen returns the pane's text.
func (p *tmuxPane) screen() string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, "-S", p.socket, "capture-pane", "-p", "-J").Output()
	if err != nil {
		p.t.Fatalf("tmux capture-pane: %v", err)
	}
	return string(out)
}

// waitFor polls the screen until it holds s and returns it; it fails the
// test if s does not appear within a generous time.
func (p *tmuxPane) waitFor(s string) string {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := p.screen()
		if strings.Contains(scr, s) {
			return scr
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen never showed %q:\n%s", s, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// keys types keys with tmux send-keys (key names such as Down and Enter).
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	args := append([]string{"-S", p.socket, "send-keys", "-t", "0"}, keys...)
	if out, err := exec.Command(p.tmux, args...).CombinedOutput(); err != nil {
		p.t.Fatalf("tmux send-keys: %v\n%s", err, out)
	}
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestPermissionPromptInTmux runs offgrid tools call in a real terminal
// (tmux) and checks that the permission prompt shows the arguments
// exactly as they will run (underscores kept, escape sequences visible)
// and a preview of the change, then answers it with keys.
func TestPermissionPromptInTmux(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	offgrid := "env " + asCLI + "=1 " + shellQuote(self)

	t.Run("allow insert_lines", func(t *testing.T) {
		dir := t.TempDir()
		file := filepath.Join(dir, "notes_v2.txt")
		if err := os.WriteFile(file, []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		args := `{"path":"notes_v2.txt","line_start":3,"line_end":3,"new_content":"a_b \u001b[31mred"}`
		p := startTmux(t, dir, offgrid+" tools call insert_lines "+shellQuote(args))
		scr := p.waitFor("Allow insert_lines to run?")
		for _, want := range []string{
			"⚠ Tool call: insert_lines (high risk)",
			"Arguments:\n{\n" +
				`  "path": "notes_v2.txt",` + "\n" +
				`  "line_start": 3,` + "\n" +
				`  "line_end": 3,` + "\n" +
				`  "new_content": "a_b \x1b[31mred"` + "\n}\n",
			"Change to notes_v2.txt:\n@@ -1,5 +1,6 @@\n one\n two\n+a_b \\x1b[31mred\n three\n four\n five\n",
			"> Deny",
		} {
			if !strings.Contains(scr, want) {
				t.Errorf("the prompt lacks %q:\n%s", want, scr)
			}
		}
		if strings.Contains(scr, "linestart") || strings.Contains(scr, "notesv2") {
			t.Errorf("underscores lost:\n%s", scr)
		}
		p.keys("Down") // Allow once
		p.waitFor("> Allow once")
		p.keys("Enter")
		scr = p.waitFor("EXIT=")
		if !strings.Contains(scr, "EXIT=0") || !strings.Contains(scr, `"success":true`) {
			t.Fatalf("allowed call did not succeed:\n%s", scr)
		}
		got, _ := os.ReadFile(file)
		if want := "one\ntwo\na_b \x1b[31mred\nthree\nfour\nfive\n"; string(got) != want {
			t.Errorf("file holds %q, want %q", got, want)
		}
	})

	t.Run("deny a new file", func(t *testing.T) {
		dir := t.TempDir()
		args := `{"path":"cmd/new_tool.go","content":"package main\n\nfunc main() {}\n"}`
		p := startTmux(t, dir, offgrid+" tools call write_file "+shellQuote(args))
		scr := p.waitFor("Allow write_file to run?")
		want := "New file cmd/new_tool.go:\n@@ -0,0 +1,3 @@\n+package main\n+\n+func main() {}\n"
		if !strings.Contains(scr, want) || !strings.Contains(scr, `"content": "package main\n\nfunc main() {}\n"`) {
			t.Errorf("the prompt lacks the arguments or %q:\n%s", want, scr)
		}
		p.keys("Enter") // Deny is preselected
		scr = p.waitFor("EXIT=")
		if !strings.Contains(scr, "EXIT=1") || !strings.Contains(scr, `"error_type":"permission_denied"`) {
			t.Fatalf("denied call:\n%s", scr)
		}
		if _, err := os.Stat(filepath.Join(dir, "cmd", "new_tool.go")); !os.IsNotExist(err) {
			t.Errorf("a denied write_file created the file: %v", err)
		}
	})
}
