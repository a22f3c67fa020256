package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSandboxSwapRace runs the file tools on paths under root/d while a
// goroutine swaps the directory root/d with a symbolic link to a directory
// outside the root (renameat2 RENAME_EXCHANGE in a loop), and counts every
// escape: a read returning outside content, a listing or search showing it,
// a write or edit creating or changing an outside file. There must be none,
// and no temporary file may be left behind.
func TestSandboxSwapRace(t *testing.T) {
	const ops = 6000
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	outside := filepath.Join(tmp, "outside")
	inside := map[string]string{"f.txt": "inside f\n", "g.txt": "inside g\n", "in-only.txt": "inside\n"}
	outer := map[string]string{"f.txt": "OUTSIDE f\n", "g.txt": "OUTSIDE g\n", "out-only.txt": "OUTSIDE\n"}
	for dir, files := range map[string]map[string]string{filepath.Join(root, "d"): inside, outside: outer} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink("../outside", filepath.Join(root, "s")); err != nil {
		t.Fatal(err)
	}
	d, s := filepath.Join(root, "d"), filepath.Join(root, "s")
	if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, s, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("renameat2 RENAME_EXCHANGE unsupported here: %v", err)
	}
	r, err := Builtin(root)
	if err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, s, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				return
			}
			swaps.Add(1)
		}
	})

	type tally struct{ ops, ok, escapes int }
	kinds := []string{"read_file", "write_file create", "write_file overwrite", "replace_lines", "insert_lines", "ls", "grep_search"}
	stats := map[string]*tally{}
	for _, k := range kinds {
		stats[k] = &tally{}
	}
	outsideIs := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(outside, name))
		return string(b)
	}
	restore := func(name string) bool { // reports whether the outside file had changed
		if got := outsideIs(name); got != outer[name] {
			os.WriteFile(filepath.Join(outside, name), []byte(outer[name]), 0o644)
			return true
		}
		return false
	}
	ctx := context.Background()
	call := func(tool string, args any) Result {
		b, _ := json.Marshal(args)
		return r.Execute(ctx, tool, b)
	}
	for i := range ops {
		kind := kinds[i%len(kinds)]
		st := stats[kind]
		st.ops++
		var res Result
		escaped := false
		switch kind {
		case "read_file":
			res = call("read_file", map[string]any{"path": "d/f.txt"})
			escaped = strings.Contains(res.Text(), "OUTSIDE")
		case "write_file create":
			res = call("write_file", map[string]any{"path": "d/w.txt", "content": "written\n"})
			if _, err := os.Lstat(filepath.Join(outside, "w.txt")); err == nil {
				escaped = true
				os.Remove(filepath.Join(outside, "w.txt"))
			}
			// Remove the inside copy, wherever the swap has put the
			// directory, so that the next call creates it again.
			for _, dir := range []string{d, s} {
				if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
					os.Remove(filepath.Join(dir, "w.txt"))
				}
			}
		case "write_file overwrite":
			res = call("write_file", map[string]any{"path": "d/f.txt", "content": "inside f\n"})
			escaped = restore("f.txt")
		case "replace_lines":
			res = call("replace_lines", map[string]any{"path": "d/g.txt", "line_start": 1, "line_end": 1, "new_content": "inside g"})
			escaped = restore("g.txt")
		case "insert_lines":
			res = call("insert_lines", map[string]any{"path": "d/g.txt", "line_start": 1, "new_content": "inside g"})
			escaped = restore("g.txt")
		case "ls":
			res = call("ls", map[string]any{"path": "d"})
			escaped = strings.Contains(res.Text(), "out-only")
		case "grep_search":
			res = call("grep_search", map[string]any{"pattern": "side"}) // matches both sides
			escaped = strings.Contains(res.Text(), "OUTSIDE") || strings.Contains(res.Text(), "out-only")
		}
		if res.Success && (kind != "grep_search" || strings.Contains(res.Text(), "inside")) {
			st.ok++
		}
		if escaped {
			st.escapes++
		}
	}
	stop.Store(true)
	wg.Wait()

	total, escapes := 0, 0
	for _, k := range kinds {
		st := stats[k]
		total += st.ops
		escapes += st.escapes
		t.Logf("%-21s %5d calls, %5d succeeded, %3d escapes", k, st.ops, st.ok, st.escapes)
		if st.ok == 0 {
			t.Errorf("no %s call succeeded: the test exercised nothing", k)
		}
	}
	// Whatever is left in either directory beyond the files the test made
	// is a stray: a temporary file of an interrupted write.
	var strays []string
	for dir, want := range map[string]map[string]string{filepath.Join(root, "d"): inside, outside: outer} {
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			dir = s // the swap stopped with the directory under the other name
		}
		des, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			if _, ok := want[de.Name()]; !ok && de.Name() != "w.txt" {
				strays = append(strays, filepath.Join(filepath.Base(dir), de.Name()))
			}
		}
	}
	sort.Strings(strays)
	t.Logf("%d calls during %d swaps: %d escapes, %d stray files", total, swaps.Load(), escapes, len(strays))
	if escapes > 0 {
		t.Errorf("%d of %d calls escaped the root", escapes, total)
	}
	if len(strays) > 0 {
		t.Errorf("%d stray files left behind: %s", len(strays), fmt.Sprint(strays[:min(len(strays), 10)]))
	}
}
