package tools

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

const atomicWriterEnv = "OFFGRID_TEST_ATOMIC_WRITER"

// atomicPayload is what the helper process writes: large enough that a
// kill lands in the middle of a write.
func atomicPayload() []byte { return bytes.Repeat([]byte("new content line\n"), 1<<20) }

// TestAtomicWriterProcess is the helper process of
// TestWriteFileAtomicSurvivesKill: it rewrites the file in a loop until it
// is killed.
func TestAtomicWriterProcess(t *testing.T) {
	path := os.Getenv(atomicWriterEnv)
	if path == "" {
		t.Skip("helper process for TestWriteFileAtomicSurvivesKill")
	}
	sb, err := NewSandbox(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	data := atomicPayload()
	os.Stdout.WriteString("writing\n")
	for {
		if err := sb.writeFile(filepath.Base(path), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriteFileAtomicSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "file.txt")
	old := []byte("old content\n")
	if err := os.WriteFile(path, old, 0o640); err != nil {
		t.Fatal(err)
	}
	want := atomicPayload()
	var sawNew int
	for i := range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAtomicWriterProcess$")
		cmd.Env = append(os.Environ(), atomicWriterEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatalf("helper did not start: %v", err)
		}
		time.Sleep(time.Duration(5+i*25) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()

		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case bytes.Equal(got, old):
		case bytes.Equal(got, want):
			sawNew++
		default:
			t.Fatalf("kill %d left a partial file: %d bytes, want %d (old) or %d (new)", i, len(got), len(old), len(want))
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want the original 0640", fi.Mode().Perm())
		}
	}
	t.Logf("after 6 kills the file held the new content %d times", sawNew)
	// What a kill leaves beside the file is a temporary file of our
	// naming, which a later sweep can recognise.
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if de.Name() != "file.txt" && !isTempName(de.Name()) {
			t.Errorf("unrecognisable leftover %q", de.Name())
		}
	}
}

func TestWriteFileAtomicRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	sb, err := NewSandbox(filepath.Dir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := sb.writeFile(filepath.Base(dir), []byte("x"), 0o644); TypeOf(err) != ErrValidationFailed {
		t.Errorf("writing over a directory: %v, want validation_failed", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}
