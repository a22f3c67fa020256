//go:build unix

package curator

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// killChild, when set to a directory, makes TestKillDuringCacheSave the
// child that curates request after request, caching each answer there,
// until it is killed.
const killChild = "OFFGRID_TEST_CURATOR_KILL_CHILD"

// killRequest is the i-th request the child curates.
func killRequest(i int) string {
	return fmt.Sprintf("Which request %d was served, and in how many ms?", i)
}

// TestKillDuringCacheSave: a process SIGKILLed while it saves a cached
// answer leaves no torn entry: the next run reads every answer that was
// saved, curates the one that was being saved again and caches it, and
// removes the temporary file of the killed save once it is stale.
func TestKillDuringCacheSave(t *testing.T) {
	text := logFile()
	if dir := os.Getenv(killChild); dir != "" {
		c := New(Options{ID: "m1", CacheDir: dir})
		for i := 0; ; i++ {
			if _, err := c.Curate(t.Context(), killRequest(i), "server.log", text); err != nil {
				panic(err)
			}
			fmt.Printf("%d\n", i)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 1; ; attempt++ {
		dir := t.TempDir()
		cmd := exec.Command(exe, "-test.run=^TestKillDuringCacheSave$")
		cmd.Env = append(os.Environ(), killChild+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		if !lines.Scan() {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child saved nothing: %v", lines.Err())
		}
		// Kill it as soon as a save is under way.
		tmp := ""
		for deadline := time.Now().Add(5 * time.Second); tmp == "" && time.Now().Before(deadline); {
			tmp = findTemp(dir)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		// The child prints the number of each answer once saved: those up
		// to the last printed are on disk, the next is the one killed.
		saved, _ := strconv.Atoi(lines.Text())
		for lines.Scan() {
			saved, _ = strconv.Atoi(lines.Text())
		}
		cmd.Wait()
		if tmp == "" || !exists(tmp) {
			if attempt == 20 {
				t.Fatal("the child was never killed in the middle of a save")
			}
			continue // the save ended before the kill: try again
		}
		t.Logf("killed during a save after %d answers were saved (attempt %d)", saved+1, attempt)

		// Every answer saved is read whole; the next one, that was being
		// saved, is curated again (as without a cache) and saved.
		ref := New(Options{ID: "m1"})
		for i := 0; i <= saved+1; i++ {
			want, _ := ref.Curate(t.Context(), killRequest(i), "server.log", text)
			got, err := New(Options{ID: "m1", CacheDir: dir}).Curate(t.Context(), killRequest(i), "server.log", text)
			if err != nil || got.Cached != (i <= saved) || !reflect.DeepEqual(got.Ranges, want.Ranges) {
				t.Errorf("request %d: %+v (%v), want %+v, cached %v", i, got, err, want.Ranges, i <= saved)
			}
		}
		if s, _ := New(Options{ID: "m1", CacheDir: dir}).Curate(t.Context(), killRequest(saved+1), "server.log", text); !s.Cached {
			t.Errorf("the answer of the killed save was not saved by the next run")
		}
		if !exists(tmp) {
			t.Errorf("a fresh temporary file was removed: it may be a save in progress")
		}
		// A later run's first save beside it removes it once it is stale.
		past := time.Now().Add(-2 * atomicfile.StaleAge)
		os.Chtimes(tmp, past, past)
		c := New(Options{ID: "m1", CacheDir: dir})
		sub := filepath.Base(filepath.Dir(tmp))
		i := saved + 2
		for !strings.HasPrefix(c.key(killRequest(i), text), sub) {
			i++
		}
		c.Curate(t.Context(), killRequest(i), "server.log", text)
		if exists(tmp) {
			t.Errorf("the stale temporary file %s of the killed save is still there", tmp)
		}
		return
	}
}

// findTemp returns the path of a temporary file in the cache dir, or "".
func findTemp(dir string) string {
	found := ""
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && atomicfile.IsTempName(d.Name()) {
			found = path
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
