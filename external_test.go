package offgrid_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/models/bundle"
	"github.com/offgrid-ai/offgrid/models/synth"
)

// TestExternalModule builds the examples as a module outside this
// repository would: a go.mod that requires offgrid (replaced by this
// checkout), nothing but `go build` with the README's CGO_* flags, no
// network (GOPROXY=off) and no `make` step. Then it runs them on the tiny
// random-weight model: add from a store, zookeeper bundled into one
// executable with the model and run with an empty store.
func TestExternalModule(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("offgrid builds on unix")
	}
	checkout, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// offgrid's own requirements too, as `go get` writes them: without
	// them Go loads the go.mod of every module in the graph, which a
	// fresh module cache lacks (github.com/davecgh/go-spew v1.1.1).
	edit, err := exec.Command("go", "mod", "edit", "-json", "go.mod").Output()
	if err != nil {
		t.Fatalf("go mod edit -json: %v", err)
	}
	var ours struct {
		Require []struct{ Path, Version string }
	}
	if err := json.Unmarshal(edit, &ours); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("module example.com/zoo\n\ngo 1.26.0\n\nrequire github.com/offgrid-ai/offgrid v0.0.0\n\nrequire (\n")
	for _, r := range ours.Require {
		fmt.Fprintf(&b, "\t%s %s\n", r.Path, r.Version)
	}
	b.WriteString(")\n\nreplace github.com/offgrid-ai/offgrid => " + checkout + "\n")
	goMod := b.String()
	write(t, filepath.Join(dir, "go.mod"), goMod)
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "go.sum"), string(sum))
	for _, ex := range []string{"add", "zookeeper"} {
		src, err := os.ReadFile(filepath.Join("examples", ex, "main.go"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, ex, "main.go"), string(src))
	}
	// The engine's headers as the README finds them: in the module Go
	// downloaded, named by go list in this module.
	goEnv := append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	list := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ollama/ollama")
	list.Dir, list.Env = dir, goEnv
	engine, err := list.Output()
	if err != nil {
		t.Fatalf("go list the engine module: %v", err)
	}
	e := strings.TrimSpace(string(engine))
	goEnv = append(goEnv, "CGO_CPPFLAGS=-I"+e+"/llama/llama.cpp/include -I"+e+"/ml/backend/ggml/ggml/include")
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./...")
	build.Dir = dir
	build.Env = goEnv
	start := time.Now()
	defer func() { t.Logf("took %s", time.Since(start)) }()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build in a module outside the repository: %v\n%s", err, out)
	}

	t.Logf("built in %s", time.Since(start))
	// add, on the store's default model (TestMain's tiny one).
	run := func(exe string, env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(exe, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", filepath.Base(exe), err, out.String(), errb.String())
		}
		t.Logf("%s ran by %s", filepath.Base(exe), time.Since(start))
		return errb.String()
	}
	run(filepath.Join(bin, "add"), os.Environ(), "What is 2 + 3?")

	// zookeeper with the model inside, on a machine with no store.
	gguf := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := synth.Write(gguf, synth.Options{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	bundled := filepath.Join(t.TempDir(), "zookeeper-offline")
	if _, err := bundle.Write(t.Context(), bundled, filepath.Join(bin, "zookeeper"), gguf, bundle.Options{Name: "tiny-zoo"}); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + empty, "OFFGRID_MODELS=" + filepath.Join(empty, "models"), "XDG_CACHE_HOME=" + filepath.Join(empty, "cache")}
	stderr := run(bundled, env, "Has the lion been fed today?")
	if !strings.Contains(stderr, "unpacking the bundled model tiny-zoo") {
		t.Errorf("the bundled model was not the one used; stderr:\n%s", stderr)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
