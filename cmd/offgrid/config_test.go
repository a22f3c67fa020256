package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// configEnv is an environment whose config file holds text (name is
// config.toml or config.json in an XDG_CONFIG_HOME of its own).
func configEnv(t *testing.T, name, text string) (*cliEnv, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	if name != "" {
		dir := filepath.Join(home, "config", "offgrid")
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_CACHE_HOME": filepath.Join(home, "cache")}
	var out, errb bytes.Buffer
	return &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return vars[k] }}, &out, &errb
}

func configRows(t *testing.T, env *cliEnv, out *bytes.Buffer, args ...string) map[string]configRow {
	t.Helper()
	out.Reset()
	if code := runMain(t.Context(), env, append([]string{"config", "--json"}, args...)); code != 0 {
		t.Fatalf("config %v: exit %d: %s", args, code, env.stderr)
	}
	var rows []configRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatal(err)
	}
	m := map[string]configRow{}
	for _, r := range rows {
		m[r.Name] = r
	}
	return m
}

// The config file's top-level keys set run's and bench's defaults, a
// table's keys its command's; offgrid config shows each value and where
// it came from; TOML and JSON say the same.
func TestConfigFile(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"config.toml", "model = \"qwen2.5-coder-1.5b\"\nthreads = 1\n[run]\nassist = \"+find-first\"\nyes = true\n[bench]\nsuite = \"general\"\ntask = [\"a\", \"b\"]\n"},
		{"config.json", `{"model": "qwen2.5-coder-1.5b", "threads": 1, "run": {"assist": "+find-first", "yes": true}, "bench": {"suite": "general", "task": ["a", "b"]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, out, _ := configEnv(t, tc.name, tc.text)
			file := filepath.Join(env.getenv("XDG_CONFIG_HOME"), "offgrid", tc.name)
			run := configRows(t, env, out)
			for name, want := range map[string]configRow{
				"--model":       {"--model", "qwen2.5-coder-1.5b", file},
				"--threads":     {"--threads", "1", file},
				"--assist":      {"--assist", "+find-first", file},
				"--yes":         {"--yes", "true", file},
				"--temp":        {"--temp", "0.8", "default"},
				"config file":   {"config file", file, "$XDG_CONFIG_HOME"},
				"model store":   {"model store", filepath.Join(env.getenv("XDG_DATA_HOME"), "offgrid", "models"), "$XDG_DATA_HOME"},
				"--max-tokens":  {"--max-tokens", "1024", "default"},
				"--tool-choice": {"--tool-choice", "auto", "default"},
			} {
				if run[name] != want {
					t.Errorf("run %s = %+v, want %+v", name, run[name], want)
				}
			}
			bench := configRows(t, env, out, "bench")
			if bench["--suite"].Value != "general" || bench["--task"].Value != "[a,b]" || bench["--model"].Value != "[qwen2.5-coder-1.5b]" || bench["--assist"].Source != "default" {
				t.Errorf("bench: suite %+v task %+v model %+v assist %+v", bench["--suite"], bench["--task"], bench["--model"], bench["--assist"])
			}
		})
	}
	// No file: every value is the default, and the files looked for are named.
	env, out, _ := configEnv(t, "", "")
	rows := configRows(t, env, out)
	if rows["--model"].Source != "default" || !strings.Contains(rows["config file"].Value, "config.toml or ") {
		t.Errorf("no config: %+v %+v", rows["--model"], rows["config file"])
	}
}

// Flags given win over the config file's.
func TestConfigFlagsWin(t *testing.T) {
	env, _, _ := configEnv(t, "config.toml", "threads = 1\nseed = 7\n")
	fs := newFlagSet(env, "run", "run")
	threads := fs.Int("threads", 0, "")
	seed := fs.Int("seed", -1, "")
	fs.Bool("yes", false, "")
	if err := parseWithConfig(env, fs, "run", nil, []string{"--threads", "2"}); err != nil {
		t.Fatal(err)
	}
	if *threads != 2 || *seed != 7 {
		t.Errorf("threads %d (flag 2 wins), seed %d (config 7)", *threads, *seed)
	}
}

// A config that cannot apply stops the command with a clear error (exit
// 2 for a setting, 1 for a file that cannot be read); a [bench] key of
// another mode does not make a mode fail.
func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file, text string
		code             int
		want             string
	}{
		{"unknown key", "config.toml", "modle = \"x\"\n", 2, "modle: not a flag of offgrid run or bench"},
		{"unknown run key", "config.toml", "[run]\nsuite = \"general\"\n", 2, "[run] suite: not a flag of offgrid run"},
		{"bad value", "config.toml", "[run]\nthreads = \"many\"\n", 2, "threads = many"},
		{"unknown table", "config.toml", "[runn]\nyes = true\n", 2, "[runn]: not a command"},
		{"bad toml", "config.toml", "[run\n", 1, "config.toml: toml: line"},
		{"bad json", "config.json", "{", 1, "config.json: unexpected end of JSON input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _, errb := configEnv(t, tc.file, tc.text)
			code := runMain(t.Context(), env, []string{"run", "-p", "hi", "-m", filepath.Join(t.TempDir(), "none.gguf")})
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want %d with %q", code, errb.String(), tc.code, tc.want)
			}
		})
	}
	env, _, errb := configEnv(t, "config.toml", "[bench]\nsuite = \"general\"\n")
	if code := runMain(t.Context(), env, []string{"bench", "speed", "--compare", filepath.Join(t.TempDir(), "none.json")}); strings.Contains(errb.String(), "not a flag of bench speed") {
		t.Errorf("bench speed with [bench] suite: exit %d: %s", code, errb.String())
	}
}
