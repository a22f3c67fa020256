package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The bash script completes commands, sub-commands, flags and, after -m,
// the store's model names (through a real offgrid on PATH: this test
// binary run as the command).
func TestCompletionBash(t *testing.T) {
	env, out, _ := configEnv(t, "", "")
	if code := runMain(t.Context(), env, []string{"completion", "bash"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	script := filepath.Join(t.TempDir(), "offgrid.bash")
	os.WriteFile(script, out.Bytes(), 0o644)
	// offgrid on PATH: a wrapper running this test binary as the command,
	// with a store holding one model.
	self, _ := os.Executable()
	bin := t.TempDir()
	data := t.TempDir()
	wrapper := "#!/bin/sh\n" + asCLI + "=1 XDG_DATA_HOME=" + data + " exec " + self + " \"$@\"\n"
	os.WriteFile(filepath.Join(bin, "offgrid"), []byte(wrapper), 0o755)
	if r := runExe(t, self, data, t.TempDir(), "models", "pull", synthFile(t), "--name", "tiny-one", "--no-warm"); r.code != 0 {
		t.Fatalf("pull: %s", r.stderr)
	}
	for _, tc := range []struct {
		words []string // the command line, the last word being completed
		want  []string
		not   []string
	}{
		{[]string{"offgrid", "ru"}, []string{"run"}, []string{"bench"}},
		{[]string{"offgrid", ""}, []string{"run", "bench", "models", "config", "completion", "help"}, nil},
		{[]string{"offgrid", "run", "--ass"}, []string{"--assist"}, []string{"--read-first"}},
		{[]string{"offgrid", "run", "--no-"}, []string{"--no-mmap", "--no-prompt-cache"}, nil},
		{[]string{"offgrid", "bench", ""}, []string{"agent", "bfcl", "merge"}, nil},
		{[]string{"offgrid", "bench", "agent", "--sp"}, []string{"--split"}, nil},
		{[]string{"offgrid", "bench", "bfcl", "--da"}, []string{"--data"}, nil},
		{[]string{"offgrid", "models", "p"}, []string{"pull"}, nil},
		{[]string{"offgrid", "run", "-m", "t"}, []string{"tiny-one"}, nil},
		{[]string{"offgrid", "completion", ""}, []string{"bash", "zsh", "fish"}, nil},
	} {
		line := strings.Join(tc.words, " ")
		var words []string
		for _, w := range tc.words {
			words = append(words, "'"+w+"'")
		}
		sh := "source " + script + "; COMP_WORDS=(" + strings.Join(words, " ") + "); COMP_CWORD=" + strconv.Itoa(len(tc.words)-1) + "; _offgrid; printf '%s\\n' \"${COMPREPLY[@]}\""
		cmd := exec.Command("bash", "-c", sh)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"))
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%q: %v\n%s", line, err, stderr.String())
		}
		got := strings.Fields(stdout.String())
		for _, w := range tc.want {
			if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+w+" ") {
				t.Errorf("%q completes to %v, want %s among them", line, got, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(" "+strings.Join(got, " ")+" ", " "+w+" ") {
				t.Errorf("%q completes to %v, with %s", line, got, w)
			}
		}
	}
}

// zsh uses the bash script through bashcompinit; fish gets its own lines.
// (Neither shell is installed here: their text is checked.)
func TestCompletionZshFish(t *testing.T) {
	for shell, want := range map[string][]string{
		"zsh":  {"#compdef offgrid", "bashcompinit", "complete -o default -F _offgrid offgrid"},
		"fish": {"complete -c offgrid -n __fish_use_subcommand -a run -d 'chat with a model that can call tools'", "__fish_seen_subcommand_from run' -l assist", "__fish_seen_subcommand_from run' -s m -r -a '(offgrid models ls"},
	} {
		env, out, _ := configEnv(t, "", "")
		if code := runMain(t.Context(), env, []string{"completion", shell}); code != 0 {
			t.Fatalf("%s: exit %d", shell, code)
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s script lacks %q", shell, w)
			}
		}
	}
	env, _, errb := configEnv(t, "", "")
	if code := runMain(t.Context(), env, []string{"completion", "tcsh"}); code != 2 || !strings.Contains(errb.String(), "bash, zsh or fish") {
		t.Errorf("completion tcsh: exit %d, %q", code, errb.String())
	}
}
