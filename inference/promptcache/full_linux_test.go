package promptcache

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// fullChild, when set to a directory, makes TestFullDiskSave the child
// that saves an entry there under an RLIMIT_FSIZE below its size, and
// prints the warnings.
const fullChild = "OFFGRID_TEST_PROMPTCACHE_FULL_CHILD"

// TestFullDiskSave: a save that fills the disk (a small tmpfs where root
// may mount one, and, always, a child process whose RLIMIT_FSIZE is
// below the entry's size) is reported, leaves no temporary file, and
// leaves the entry it was replacing whole.
func TestFullDiskSave(t *testing.T) {
	prefix, old, big := tokens(100, 1), []byte("old state"), bytes.Repeat([]byte("kv"), 64<<10)
	if dir := os.Getenv(fullChild); dir != "" {
		var w warnings
		c := New(dir, modelA, Options{MinTokens: 4, Warn: w.add})
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}); err != nil {
			panic(err)
		}
		c.Save(layout1, prefix, big)
		for _, err := range w {
			os.Stdout.WriteString(err.Error() + "\n")
		}
		os.Exit(0)
	}
	check := func(t *testing.T, dir string, warned []string, want string) {
		t.Helper()
		if len(warned) != 1 || !strings.Contains(warned[0], want) {
			t.Errorf("warnings %q, want one saying %q", warned, want)
		}
		var w warnings
		if got, ok := newCache(t, dir, modelA, &w).Load(layout1, prefix); !ok || !bytes.Equal(got, old) || len(w) > 0 {
			t.Errorf("after the failed save: hit %v, %d bytes, warnings %v; want the old entry", ok, len(got), w)
		}
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if !strings.HasSuffix(de.Name(), ext) && de.Name() != "filler" {
				t.Errorf("%s left in the cache", de.Name())
			}
		}
	}
	t.Run("tmpfs", func(t *testing.T) {
		dir := t.TempDir()
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
			t.Skipf("cannot mount a tmpfs (%v): the full disk is tested through RLIMIT_FSIZE only", err)
		}
		t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
		var w warnings
		c := newCache(t, dir, modelA, &w)
		c.Save(layout1, prefix, old)
		if err := fillUp(dir + "/filler"); err != nil {
			t.Fatal(err)
		}
		c.Save(layout1, prefix, big)
		var warned []string
		for _, err := range w {
			warned = append(warned, err.Error())
		}
		check(t, dir, warned, "no space left on device")
	})
	t.Run("rlimit", func(t *testing.T) {
		dir := t.TempDir()
		var w warnings
		newCache(t, dir, modelA, &w).Save(layout1, prefix, old)
		cmd := exec.Command(os.Args[0], "-test.run=^TestFullDiskSave$")
		cmd.Env = append(os.Environ(), fullChild+"="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		check(t, dir, strings.Split(strings.TrimSpace(string(out)), "\n"), "file too large")
	})
}

// fillUp writes to path until the file system is full.
func fillUp(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for n := len(chunk); ; {
		if _, err := f.Write(chunk[:n]); errors.Is(err, syscall.ENOSPC) {
			if n == 1 {
				return nil
			}
			n = 1 // take every byte left
		} else if err != nil {
			return err
		}
	}
}
