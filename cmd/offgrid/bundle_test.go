package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/offgrid-ai/offgrid/agent"
	"github.com/offgrid-ai/offgrid/models/bundle"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// asCLI makes the test binary, and every bundle made from it, run as the
// offgrid command instead of the tests.
const asCLI = "OFFGRID_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// cliRun is one run of an executable acting as offgrid.
type cliRun struct {
	code           int
	stdout, stderr string
}

// runExe runs exe as offgrid with a clean environment: an empty model
// store (XDG_DATA_HOME) and the given cache.
func runExe(t *testing.T, exe, data, cache string, args ...string) cliRun {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = []string{asCLI + "=1", "HOME=" + t.TempDir(), "XDG_DATA_HOME=" + data, "XDG_CACHE_HOME=" + cache, "PATH=" + os.Getenv("PATH")}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cliRun{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}

// synthFile writes the tiny synthetic model.
func synthFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(p, synth.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	return p
}

// makeBundle bundles the tiny model into a copy of the test binary.
func makeBundle(t *testing.T, extra ...string) (exe string, info bundle.Info) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe = filepath.Join(t.TempDir(), "agent")
	r := runExe(t, self, t.TempDir(), t.TempDir(), append([]string{"bundle", "-m", synthFile(t), "-o", exe}, extra...)...)
	if r.code != 0 {
		t.Fatalf("bundle: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	info, err = bundle.Read(exe)
	if err != nil {
		t.Fatal(err)
	}
	return exe, info
}

func TestBundleRunsItsModel(t *testing.T) {
	for _, comp := range []string{"zstd", "none"} {
		t.Run(comp, func(t *testing.T) {
			exe, info := makeBundle(t, "--compress", comp)
			if info.Name != "tiny" || info.Compression.String() != comp {
				t.Errorf("bundle carries %+v, want model tiny, %s", info, comp)
			}
			if fi, _ := os.Stat(exe); fi.Mode().Perm()&0o111 == 0 {
				t.Errorf("bundle mode %v is not executable", fi.Mode())
			}
			data, cache := t.TempDir(), t.TempDir() // no model store at all
			want := filepath.Join(cache, "offgrid", "bundled", info.SHA256+".gguf")

			first := runExe(t, exe, data, cache, "models", "show", "default", "--json")
			if first.code != 0 {
				t.Fatalf("models show default: exit %d\n%s", first.code, first.stderr)
			}
			var s modelSummary
			if err := json.Unmarshal([]byte(first.stdout), &s); err != nil {
				t.Fatal(err)
			}
			if s.Path != want || s.Architecture != "llama" || s.Name != "offgrid-synth" {
				t.Errorf("default is %s (%s, %q), want the bundled llama model at %s", s.Path, s.Architecture, s.Name, want)
			}
			if !strings.Contains(first.stderr, "unpacking the bundled model tiny") {
				t.Errorf("first run says %q, want a note about unpacking", first.stderr)
			}
			// Later runs use the extracted file without a word.
			again := runExe(t, exe, data, cache, "models", "show", "default", "--json")
			if again.code != 0 || again.stderr != "" || again.stdout != first.stdout {
				t.Errorf("second run: exit %d, stderr %q, stdout changed: %v", again.code, again.stderr, again.stdout != first.stdout)
			}

			// It answers from the embedded model with no -m.
			gen := runExe(t, exe, data, cache, "run", "-p", "hello", "-n", "4", "--seed", "1", "--temp", "0", "--tool-choice", "none", "--json")
			if gen.code != 0 || !strings.Contains(gen.stdout, `"type":"final"`) || !strings.Contains(gen.stdout, `"generated":4`) {
				t.Errorf("run: exit %d\nstdout %s\nstderr %s", gen.code, gen.stdout, gen.stderr)
			}

			ls := runExe(t, exe, data, cache, "models", "ls")
			if ls.code != 0 || !strings.Contains(ls.stdout, "tiny *") || !strings.Contains(ls.stdout, exe) {
				t.Errorf("models ls: exit %d\n%s%s", ls.code, ls.stdout, ls.stderr)
			}
			def := runExe(t, exe, data, cache, "models", "default")
			if def.stdout != "tiny (bundled in "+exe+")\n" {
				t.Errorf("models default = %q", def.stdout)
			}
			ver := runExe(t, exe, data, cache, "models", "verify", "default")
			if ver.code != 0 || !strings.Contains(ver.stdout, "tiny (bundled in "+exe+"): ok") {
				t.Errorf("models verify default: exit %d\n%s%s", ver.code, ver.stdout, ver.stderr)
			}
		})
	}
}

func TestBundleDamaged(t *testing.T) {
	exe, info := makeBundle(t)
	orig, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mangle func([]byte) []byte
		want   string
	}{
		{"flipped payload byte", func(b []byte) []byte {
			b[info.Offset+info.Length/2] ^= 0xff
			return b
		}, "corrupt bundle: payload"},
		{"truncated", func(b []byte) []byte { return b[:info.Offset+info.Length/2] }, "no bundle trailer ends the file"},
		{"truncated trailer", func(b []byte) []byte { return b[:len(b)-10] }, "no bundle trailer ends the file"},
		{"flipped trailer byte", func(b []byte) []byte {
			b[len(b)-bundle.TrailerSize+20] ^= 1
			return b
		}, "trailer checksum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "agent")
			if err := os.WriteFile(p, tc.mangle(bytes.Clone(orig)), 0o755); err != nil {
				t.Fatal(err)
			}
			data, cache := t.TempDir(), t.TempDir()
			r := runExe(t, p, data, cache, "models", "show", "default")
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, tc.want)
			}
			// Nothing half-extracted is left behind.
			var left []string
			filepath.WalkDir(cache, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					left = append(left, path)
				}
				return nil
			})
			if len(left) > 0 {
				t.Errorf("left in the cache: %v", left)
			}
			// A model named explicitly still works.
			m := runExe(t, p, data, cache, "models", "show", synthFile(t))
			if m.code != 0 {
				t.Errorf("models show PATH from a damaged bundle: exit %d, %s", m.code, m.stderr)
			}
			in := runExe(t, p, data, cache, "bundle", "--inspect", p, "--verify")
			if in.code != 1 || !strings.Contains(in.stderr, "corrupt bundle") {
				t.Errorf("bundle --inspect --verify: exit %d, %q", in.code, in.stderr)
			}
		})
	}
}

func TestBundleInspect(t *testing.T) {
	exe, info := makeBundle(t)
	self, _ := os.Executable()
	data, cache := t.TempDir(), t.TempDir()

	r := runExe(t, self, data, cache, "bundle", "--inspect", exe, "--verify", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep bundleReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Info != info || !rep.Verified || rep.File != exe {
		t.Errorf("inspect = %+v, want %+v, verified", rep, info)
	}
	if !strings.Contains(r.stdout, `"compression": "zstd"`) {
		t.Errorf("JSON lacks the compression name:\n%s", r.stdout)
	}
	txt := runExe(t, self, data, cache, "bundle", "--inspect", exe)
	for _, want := range []string{"model       tiny", "sha256      " + info.SHA256, "payload     zstd"} {
		if !strings.Contains(txt.stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, txt.stdout)
		}
	}
	plain := runExe(t, self, data, cache, "bundle", "--inspect", self)
	if plain.code != 1 || !strings.Contains(plain.stderr, "carries no model") {
		t.Errorf("inspect of a plain executable: exit %d, %q", plain.code, plain.stderr)
	}
}

// A bundle made from a bundle carries the new model only.
func TestRebundle(t *testing.T) {
	exe, first := makeBundle(t)
	other := filepath.Join(t.TempDir(), "other.gguf")
	if err := synth.Write(other, synth.Options{Seed: 2, Name: "second"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "agent2")
	r := runExe(t, exe, t.TempDir(), t.TempDir(), "bundle", "-m", other, "-o", out, "--compress", "none")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	info, err := bundle.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if info.Offset != first.Offset || info.Name != "other" || info.SHA256 == first.SHA256 {
		t.Errorf("rebundled %+v; want offset %d and the other model", info, first.Offset)
	}
	// Bundling the default from a bundle re-bundles its own model.
	out3 := filepath.Join(t.TempDir(), "agent3")
	if r := runExe(t, out, t.TempDir(), t.TempDir(), "bundle", "-o", out3); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if again, err := bundle.Read(out3); err != nil || again.SHA256 != info.SHA256 || again.Name != "other" {
		t.Errorf("bundle of the default from a bundle = %+v, %v", again, err)
	}
}

func TestBundleUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bundle"}, "want -o OUT"},
		{[]string{"bundle", "-o", "x", "--compress", "gzip"}, "unknown compression"},
		{[]string{"bundle", "-o", "x", "--level", "30"}, "--level 30"},
		{[]string{"bundle", "--inspect", "x", "-o", "y"}, "do not go together"},
		{[]string{"bundle", "-o", "x", "--verify"}, "go with --inspect"},
		{[]string{"bundle", "-o", "x", "extra"}, "unexpected argument"},
	} {
		var out, errb bytes.Buffer
		env := &cliEnv{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
		if code := runMain(t.Context(), env, tc.args); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// --exe bundles another program (one built with the offgrid library);
// what is not an executable file is a usage error.
func TestBundleExe(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	program := filepath.Join(t.TempDir(), "program")
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(program, b, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "program-offline")
	r := runExe(t, self, t.TempDir(), t.TempDir(), "bundle", "-m", synthFile(t), "--exe", program, "-o", out, "--compress", "none")
	if r.code != 0 || !strings.Contains(r.stdout, "program ") {
		t.Fatalf("bundle --exe: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(got, b) {
		t.Fatalf("the bundle does not start with the program (%v)", err)
	}
	notExe := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notExe, []byte("hi"), 0o644)
	for _, bad := range []string{notExe, t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		r := runExe(t, self, t.TempDir(), t.TempDir(), "bundle", "-m", synthFile(t), "--exe", bad, "-o", filepath.Join(t.TempDir(), "x"))
		if r.code != 2 || !strings.Contains(r.stderr, "--exe") {
			t.Errorf("--exe %s: exit %d, stderr %q; want a usage error", bad, r.code, r.stderr)
		}
	}
}

// A bundle carries its model's prompt cache, as `models warm` makes it:
// on a machine with an empty cache, the bundle's first request loads the
// system prompt and tool definitions instead of decoding them.
// --no-prompt-cache leaves the cache out.
func TestBundleCarriesPromptCache(t *testing.T) {
	exe, info := makeBundle(t, "--compress", "none")
	if info.Extras == 0 {
		t.Fatalf("the bundle carries no prompt cache: %+v", info)
	}
	data, cache := t.TempDir(), t.TempDir()
	root := t.TempDir()
	r := runExe(t, exe, data, cache, "run", "--root", root, "-p", "list the files", "--json", "-n", "8", "-t", "1", "--seed", "1", "--max-iterations", "1")
	if r.code > 1 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	var first *agent.Stats
	for _, line := range strings.Split(r.stdout, "\n") {
		var e agent.Event
		if json.Unmarshal([]byte(line), &e) == nil && e.Type == agent.EventStats && first == nil {
			first = e.Stats
		}
	}
	if first == nil || first.PromptLoaded == 0 {
		t.Fatalf("first reply's stats %+v: want its head loaded from the carried cache\n%s", first, r.stderr)
	}
	_, plain := makeBundle(t, "--compress", "none", "--no-prompt-cache")
	if plain.Extras != 0 || plain.Version != 1 {
		t.Errorf("--no-prompt-cache: %+v", plain)
	}
}
