package llamacpp

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The committed headers are the pinned engine's: a go.mod bump that
// changes the engine's API fails here until include/ is refreshed
// (cp "$(go list -m -f '{{.Dir}}' github.com/ollama/ollama)"/… include/).
func TestHeadersMatchEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ollama/ollama").Output()
	if err != nil {
		t.Fatalf("go list the engine module: %v", err)
	}
	dir := strings.TrimSpace(string(out))
	homes := []string{
		filepath.Join(dir, "llama", "llama.cpp", "include"),
		filepath.Join(dir, "ml", "backend", "ggml", "ggml", "include"),
	}
	names, err := filepath.Glob("include/*.h")
	if err != nil || len(names) == 0 {
		t.Fatalf("no committed headers: %v", err)
	}
	for _, name := range names {
		have, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, home := range homes {
			want, err := os.ReadFile(filepath.Join(home, filepath.Base(name)))
			if err != nil {
				continue
			}
			found = true
			if !bytes.Equal(have, want) {
				t.Errorf("%s differs from the engine's %s", name, filepath.Join(home, filepath.Base(name)))
			}
		}
		if !found {
			t.Errorf("%s is not a header of the engine module %s", name, dir)
		}
	}
	// Every header the committed ones include is committed too.
	for _, name := range names {
		b, _ := os.ReadFile(name)
		for _, line := range strings.Split(string(b), "\n") {
			if inc, ok := strings.CutPrefix(strings.TrimSpace(line), `#include "`); ok {
				inc = strings.TrimSuffix(inc, `"`)
				if _, err := os.Stat(filepath.Join("include", inc)); err != nil {
					t.Errorf("%s includes %s, which is not committed", name, inc)
				}
			}
		}
	}
}
