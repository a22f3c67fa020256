package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/internal/launch"
)

// modelsCLI runs `offgrid models ARGS` in-process against the store in dir.
func modelsCLI(t *testing.T, dir string, args ...string) cliRun {
	t.Helper()
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		switch k {
		case "OFFGRID_MODELS":
			return dir
		case "HOME":
			return filepath.Dir(dir)
		}
		return ""
	}}
	code := runMain(t.Context(), env, append([]string{"models"}, args...))
	return cliRun{code: code, stdout: out.String(), stderr: errb.String()}
}

// modelServer serves the tiny model at /tiny.gguf.
func modelServer(t *testing.T) (url string, sum string) {
	t.Helper()
	b, err := os.ReadFile(synthFile(t))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/tiny.gguf":
			http.ServeContent(w, r, "tiny.gguf", time.Time{}, bytes.NewReader(b))
		case "/page.gguf":
			w.Write([]byte("<html>not a model</html>"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, hex.EncodeToString(h[:])
}

func TestModelsCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	url, sum := modelServer(t)

	// An empty store lists nothing and says how to get a model.
	r := modelsCLI(t, dir, "ls")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "offgrid models ls --available") {
		t.Errorf("ls on an empty store: %+v", r)
	}
	// The catalog lists the default first, with sizes and licences, and
	// says what is stored.
	r = modelsCLI(t, dir, "ls", "--available")
	for _, want := range []string{"qwen2.5-coder-0.5b *", "468.6 MiB", "Apache-2.0", "qwen2.5-coder-1.5b", "gemma3-270m", "Gemma Terms of Use", "no"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("ls --available lacks %q: %+v", want, r)
		}
	}
	if r := modelsCLI(t, dir, "pull", "qwen2.5-coder-0.5b", "--name", "x"); r.code != 2 || !strings.Contains(r.stderr, "do not apply to catalog models") {
		t.Errorf("pull NAME --name: %+v", r)
	}
	if r := modelsCLI(t, dir, "ls", "--json"); r.code != 0 || r.stdout != "[]\n" {
		t.Errorf("ls --json on an empty store: %+v", r)
	}
	if r := modelsCLI(t, dir, "default"); r.code != 1 || !strings.Contains(r.stderr, "no default model") {
		t.Errorf("default on an empty store: %+v", r)
	}

	// Pull with a progress bar; the first model becomes the default.
	r = modelsCLI(t, dir, "pull", url+"/tiny.gguf", "--sha256", sum)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "tiny\t"+filepath.Join(dir, "tiny.gguf")) || !strings.Contains(r.stdout, sum) {
		t.Fatalf("pull: %+v", r)
	}
	if !strings.Contains(r.stderr, "pull tiny [########################]") {
		t.Errorf("pull drew no full progress bar: %q", r.stderr)
	}
	r = modelsCLI(t, dir, "pull", url+"/tiny.gguf", "--name", "second")
	if r.code != 0 {
		t.Fatalf("pull --name: %+v", r)
	}

	r = modelsCLI(t, dir, "ls")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "NAME") ||
		!strings.HasPrefix(lines[1], "second ") || !strings.HasPrefix(lines[2], "tiny *") || lines[3] != "* default" {
		t.Errorf("ls:\n%s", r.stdout)
	}
	var entries []modelEntry
	r = modelsCLI(t, dir, "ls", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &entries); err != nil || len(entries) != 2 {
		t.Fatalf("ls --json: %v\n%s", err, r.stdout)
	}
	if e := entries[1]; e.Name != "tiny" || !e.Default || e.SHA256 != sum || e.Path != filepath.Join(dir, "tiny.gguf") || e.Source != url+"/tiny.gguf" {
		t.Errorf("ls --json entry %+v", e)
	}

	if r := modelsCLI(t, dir, "default", "second"); r.code != 0 || r.stdout != "default: second\n" {
		t.Errorf("default second: %+v", r)
	}
	if r := modelsCLI(t, dir, "default"); r.stdout != "second\n" {
		t.Errorf("default: %+v", r)
	}
	if r := modelsCLI(t, dir, "verify", "default"); r.code != 0 || !strings.HasPrefix(r.stdout, "second: ok") {
		t.Errorf("verify default: %+v", r)
	}

	// A changed byte fails verify.
	p := filepath.Join(dir, "tiny.gguf")
	b, _ := os.ReadFile(p)
	b[len(b)-1] ^= 1
	os.WriteFile(p, b, 0o644)
	if r := modelsCLI(t, dir, "verify", "tiny"); r.code != 1 || !strings.Contains(r.stderr, "SHA-256 mismatch") {
		t.Errorf("verify of a changed model: %+v", r)
	}

	// rm takes the default with it, and the model's prompt cache entries.
	prompts := filepath.Join(filepath.Dir(dir), ".cache", "offgrid", "prompts")
	os.MkdirAll(prompts, 0o700)
	mine, other := filepath.Join(prompts, entries[0].SHA256[:16]+"-0123456789abcdef.kv"), filepath.Join(prompts, strings.Repeat("0", 16)+"-0123456789abcdef.kv")
	os.WriteFile(mine, []byte("x"), 0o600)
	os.WriteFile(other, []byte("x"), 0o600)
	if r := modelsCLI(t, dir, "rm", "second"); r.code != 0 || r.stdout != "removed second\n" {
		t.Errorf("rm: %+v", r)
	}
	if _, err := os.Stat(mine); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the removed model's prompt cache entry is still there (%v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another model's prompt cache entry went too: %v", err)
	}
	if r := modelsCLI(t, dir, "default"); r.code != 1 {
		t.Errorf("default after removing it: %+v", r)
	}
	if r := modelsCLI(t, dir, "rm", "second"); r.code != 1 || !strings.Contains(r.stderr, "model not found") {
		t.Errorf("rm twice: %+v", r)
	}
	if r := modelsCLI(t, dir, "default", "nope"); r.code != 1 || !strings.Contains(r.stderr, "model not found") {
		t.Errorf("default of a missing model: %+v", r)
	}
}

func TestModelsPullErrors(t *testing.T) {
	url, _ := modelServer(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"wrong sha256", []string{url + "/tiny.gguf", "--sha256", strings.Repeat("0", 64)}, "SHA-256 mismatch"},
		{"bad sha256", []string{url + "/tiny.gguf", "--sha256", "xyz"}, "not 64 hex digits"},
		{"not found", []string{url + "/missing.gguf"}, "404"},
		{"not gguf", []string{url + "/page.gguf"}, "not a GGUF file"},
		{"bad name", []string{url + "/tiny.gguf", "--name", "default"}, "reserved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "models")
			r := modelsCLI(t, dir, append([]string{"pull", "--retries", "0"}, tc.args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, %q; want 1 and %q", r.code, r.stderr, tc.want)
			}
			if r := modelsCLI(t, dir, "ls", "--json"); r.stdout != "[]\n" {
				t.Errorf("store after a failed pull: %s", r.stdout)
			}
		})
	}
}

func TestModelsUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{},
		{"frob"},
		{"ls", "x"},
		{"pull"},
		{"pull", "a", "b"},
		{"verify"},
		{"rm"},
		{"default", "a", "b"},
	} {
		if r := modelsCLI(t, dir, args...); r.code != 2 {
			t.Errorf("models %v: exit %d, %q; want 2", args, r.code, r.stderr)
		}
	}
}

// TestHelp: offgrid help CMD [SUB] and CMD [SUB] --help print the
// command's own usage and exit 0, models lists its subcommands, and
// models show names the agent profile of a model outside the catalog.
func TestHelp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	for _, tc := range []struct {
		args []string
		has  string
	}{
		{[]string{"help", "run"}, "Usage: offgrid run"},
		{[]string{"help", "run"}, "--assist"},
		{[]string{"help", "models"}, "fetch-default  fetch the default model"},
		{[]string{"models", "--help"}, "Subcommands:"},
		{[]string{"models", "help"}, "Subcommands:"},
		{[]string{"help", "models", "pull"}, "Usage: offgrid models pull"},
		{[]string{"models", "show", "-h"}, "Usage: offgrid models show"},
		{[]string{"help", "bench"}, "--profile"},
	} {
		var out, errb bytes.Buffer
		env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
			if k == "OFFGRID_MODELS" {
				return dir
			}
			return ""
		}}
		if code := runMain(t.Context(), env, tc.args); code != 0 || !strings.Contains(errb.String()+out.String(), tc.has) {
			t.Errorf("%v: exit %d, want 0 and %q in:\n%s", tc.args, code, tc.has, errb.String())
		}
	}
	// help run says what each assist does, on a line of its own.
	var out, errb bytes.Buffer
	env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	runMain(t.Context(), env, []string{"help", "run"})
	lines := strings.Split(errb.String(), "\n")
	for _, a := range agent.Assists() {
		if !slices.ContainsFunc(lines, func(l string) bool {
			f := strings.Fields(l)
			return len(f) > 1 && f[0] == a.Name && strings.HasSuffix(l, "  "+a.Doc)
		}) {
			t.Errorf("help run does not describe the assist %s (%q):\n%s", a.Name, a.Doc, errb.String())
		}
	}
	// Every command and sub-command answers help X and X --help.
	cmds := [][]string{}
	for _, c := range commands() {
		cmds = append(cmds, []string{c.name})
	}
	for _, sub := range strings.Split(modelsSubcommands, ", ") {
		cmds = append(cmds, []string{"models", sub})
	}
	for _, sub := range []string{"bfcl", "agent", "speed", "curator", "merge"} {
		cmds = append(cmds, []string{"bench", sub})
	}
	cmds = append(cmds, []string{"tools", "list"}, []string{"tools", "call"})
	for _, c := range cmds {
		for _, args := range [][]string{append([]string{"help"}, c...), append(slices.Clone(c), "--help")} {
			var out, errb bytes.Buffer
			env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return "" }}
			if code := runMain(t.Context(), env, args); code != 0 || !strings.Contains(errb.String()+out.String(), "Usage:") {
				t.Errorf("%v: exit %d, usage shown: %v", args, code, strings.Contains(errb.String()+out.String(), "Usage:"))
			}
		}
	}
	r := modelsCLI(t, dir, "show", synthFile(t), "--json")
	var s modelSummary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || r.code != 0 || s.Profile != "plain" {
		t.Errorf("models show: profile %q (%v) %+v", s.Profile, err, r)
	}
}

// The default model of a plain executable is the store's.
func TestResolveDefaultFromStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "models")
	url, sum := modelServer(t)
	if r := modelsCLI(t, dir, "pull", url+"/tiny.gguf"); r.code != 0 {
		t.Fatal(r.stderr)
	}
	env := &cliEnv{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string {
		if k == "OFFGRID_MODELS" {
			return dir
		}
		return ""
	}}
	for _, ref := range []string{"", "default", "tiny"} {
		m, err := lookupModel(t.Context(), env, ref)
		if err != nil || m.Path != filepath.Join(dir, "tiny.gguf") || m.Name != "tiny" || m.SHA256 != sum || m.Bundle != "" {
			t.Errorf("lookupModel(%q) = %+v, %v", ref, m, err)
		}
	}
	m, err := lookupModel(t.Context(), env, filepath.Join(dir, "tiny.gguf"))
	if err != nil || m.Name != "tiny" || m.SHA256 != "" {
		t.Errorf("lookupModel(path) = %+v, %v", m, err)
	}
	// -m URL: the model pulled from that URL (see also launch's tests).
	m, err = lookupModel(t.Context(), env, url+"/tiny.gguf")
	if err != nil || m.Name != "tiny" || m.SHA256 != sum {
		t.Errorf("lookupModel(its URL) = %+v, %v", m, err)
	}
	// A URL that cannot be fetched says the model is not in the store and
	// how to bring it in.
	_, err = lookupModel(t.Context(), env, "http://127.0.0.1:1/other.gguf")
	if !errors.Is(err, launch.ErrNotStored) || !strings.Contains(err.Error(), "offgrid models pull http://127.0.0.1:1/other.gguf") {
		t.Errorf("lookupModel(unreachable URL) = %v, want ErrNotStored with how to bring it in", err)
	}
}
