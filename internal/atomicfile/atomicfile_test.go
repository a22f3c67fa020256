package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, content := range []string{"old", "new"} {
		if err := atomicfile.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("directory holds %d entries, want only the file", len(left))
	}
	// A failed write leaves the old file and no temporary file.
	if err := atomicfile.WriteFile(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory: no error")
	}
	if err := atomicfile.WriteFile(dir, []byte("x"), 0o644); err == nil {
		t.Error("rename over a directory: no error")
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("failed writes left %d entries", len(left))
	}
}
