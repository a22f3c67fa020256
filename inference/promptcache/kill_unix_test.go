//go:build unix

package promptcache

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// killChild, when set to a directory, makes TestKillDuringSave the
// child that saves a large entry there and is killed midway.
const killChild = "OFFGRID_TEST_PROMPTCACHE_KILL_CHILD"

// killState is the size of the entry the child saves: large enough that
// its write and sync take a while.
const killState = 64 << 20

// TestKillDuringSave: a process SIGKILLed while it saves an entry leaves
// the entry it was replacing whole (the partial write is a temporary
// file, never read as an entry); the next run loads the old entry,
// replaces it, and, once the temporary file is old enough to be sure no
// save is still writing it, removes it.
func TestKillDuringSave(t *testing.T) {
	if dir := os.Getenv(killChild); dir != "" {
		c := New(dir, modelA, Options{MinTokens: 4})
		os.Stdout.WriteString("saving\n")
		c.Save(layout1, tokens(100, 1), bytes.Repeat([]byte{'B'}, killState))
		os.Exit(0)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	prefix, old := tokens(100, 1), bytes.Repeat([]byte("old"), 1000)
	for attempt := 1; ; attempt++ {
		dir := t.TempDir()
		var w warnings
		newCache(t, dir, modelA, &w).Save(layout1, prefix, old)
		cmd := exec.Command(exe, "-test.run=^TestKillDuringSave$")
		cmd.Env = append(os.Environ(), killChild+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "saving\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("child: %q, %v", line, err)
		}
		tmp := waitTemp(dir, cmd)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if tmp == "" || !exists(filepath.Join(dir, tmp)) {
			// The save ended before the kill: try again.
			if attempt == 10 {
				t.Fatal("the child was never killed in the middle of a save")
			}
			continue
		}
		fi, _ := os.Stat(filepath.Join(dir, tmp))
		t.Logf("killed with %d of %d bytes written (attempt %d)", fi.Size(), headerSize+killState, attempt)

		// The next run: the old entry, whole.
		c := newCache(t, dir, modelA, &w)
		got, ok := c.Load(layout1, prefix)
		if !ok || !bytes.Equal(got, old) {
			t.Fatalf("after the kill: hit %v, %d bytes; want the old entry's %d", ok, len(got), len(old))
		}
		if len(w) > 0 {
			t.Errorf("warnings: %v", w)
		}
		// It replaces it; the temporary file stays while it may still be
		// another process's save in progress.
		c.Save(layout1, prefix, []byte("new state"))
		if got, ok := c.Load(layout1, prefix); !ok || string(got) != "new state" {
			t.Fatalf("after replacing: hit %v, %q", ok, got)
		}
		if !exists(filepath.Join(dir, tmp)) {
			t.Errorf("a fresh temporary file was removed: it may be a save in progress")
		}
		// A later run removes it once it is stale.
		past := time.Now().Add(-2 * atomicfile.StaleAge)
		os.Chtimes(filepath.Join(dir, tmp), past, past)
		c.Save(layout1, tokens(100, 2), []byte("another"))
		if exists(filepath.Join(dir, tmp)) {
			t.Errorf("the stale temporary file %s of the killed save is still there", tmp)
		}
		if len(entries(t, dir)) != 2 || len(w) > 0 {
			t.Errorf("entries %v, warnings %v", entries(t, dir), w)
		}
		return
	}
}

// waitTemp returns the name of the temporary file a save creates in dir,
// as soon as it appears, or "" if cmd exits first.
func waitTemp(dir string, cmd *exec.Cmd) string {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if atomicfile.IsTempName(de.Name()) {
				return de.Name()
			}
		}
		if cmd.ProcessState != nil || syscall.Kill(cmd.Process.Pid, 0) != nil {
			return ""
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
