package tools

import (
	"github.com/offgrid-ai/offgrid/internal/atomicfile"

	"bufio"
	"bytes"
	"context"
	"encoding/json"
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
		if de.Name() != "file.txt" && !atomicfile.IsTempName(de.Name()) {
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
	if err := sb.writeFile(filepath.Base(dir), []byte("x"), 0o644); TypeOf(err) != TypeValidationFailed {
		t.Errorf("writing over a directory: %v, want validation_failed", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestStaleTempSweep: temporary files a killed write left behind (our
// naming, ours, older than atomicfile.StaleAge) are removed from the root when
// the tools start and from a directory when a tool first writes there;
// anything else stays.
func TestStaleTempSweep(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-2 * atomicfile.StaleAge)
	mk := func(name string, mod time.Time) string {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
		return name
	}
	gone := []string{mk(".og-abc123.tmp", old), mk("sub/.og-zz9999.tmp", old)}
	kept := []string{
		mk(".og-fresh1.tmp", time.Now()),     // a write may be under way
		mk(".og-abc12.tmp", old),             // not our naming: too short
		mk(".og-ABC123.tmp", old),            // not our naming: upper case
		mk(".notes.txt.tmp-123456", old),     // someone else's naming
		mk("sub/deeper/.og-aaaaaa.tmp", old), // no tool wrote there
	}
	if err := os.Mkdir(filepath.Join(root, ".og-dir000.tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(filepath.Join(root, ".og-dir000.tmp"), old, old)
	kept = append(kept, ".og-dir000.tmp") // not a regular file
	if os.Geteuid() == 0 {
		other := mk(".og-other1.tmp", old)
		if err := os.Chown(filepath.Join(root, other), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, other) // not ours
	}

	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(name string) bool {
		_, err := os.Lstat(filepath.Join(root, name))
		return err == nil
	}
	if exists(gone[0]) {
		t.Errorf("start-up left the stale %s in the root", gone[0])
	}
	if !exists(gone[1]) {
		t.Errorf("start-up swept sub/, where no tool has written yet")
	}
	res := r.Execute(context.Background(), "write_file", json.RawMessage(`{"path":"sub/new.txt","content":"x"}`))
	if !res.Success {
		t.Fatal(res)
	}
	if exists(gone[1]) {
		t.Errorf("writing into sub/ left the stale %s", gone[1])
	}
	for _, name := range kept {
		if !exists(name) {
			t.Errorf("%s was removed", name)
		}
	}
}
