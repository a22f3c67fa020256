package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sandboxTree builds, in a temporary directory:
//
//	outside/secret.txt
//	root/a/b.txt
//	root/in -> a            (link inside)
//	root/abs-in -> <root>/a (absolute link inside)
//	root/out -> ../outside  (link to outside)
//	root/abs-out -> <outside>
//	root/dangling -> ../nothing
//	root/loop -> loop
//	root/a/up -> ../..      (climbs out through a subdirectory)
//	root/a/back -> ../a     (comes back inside)
func sandboxTree(t testing.TB) (sb *Sandbox, outside string) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	outside = filepath.Join(tmp, "outside")
	for _, d := range []string{filepath.Join(root, "a"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{filepath.Join(root, "a", "b.txt"): "b", filepath.Join(outside, "secret.txt"): "s"} {
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"in": "a", "abs-in": filepath.Join(root, "a"), "out": "../outside", "abs-out": outside,
		"dangling": "../nothing", "loop": "loop", "a/up": "../..", "a/back": "../a",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skipf("symlinks unsupported: %v", err)
		}
	}
	sb, err := NewSandbox(root)
	if err != nil {
		t.Fatal(err)
	}
	return sb, outside
}

func TestResolve(t *testing.T) {
	sb, _ := sandboxTree(t)
	root := sb.Root()
	ok := map[string]string{
		"":                 root,
		".":                root,
		"a":                filepath.Join(root, "a"),
		"a/b.txt":          filepath.Join(root, "a", "b.txt"),
		"./a//b.txt":       filepath.Join(root, "a", "b.txt"),
		"a/../a/b.txt":     filepath.Join(root, "a", "b.txt"),
		"in/b.txt":         filepath.Join(root, "a", "b.txt"),
		"abs-in/b.txt":     filepath.Join(root, "a", "b.txt"),
		"a/back/b.txt":     filepath.Join(root, "a", "b.txt"),
		"new/dir/file.txt": filepath.Join(root, "new", "dir", "file.txt"),
		"in/new.txt":       filepath.Join(root, "a", "new.txt"),
		"a/b.txt/x":        filepath.Join(root, "a", "b.txt", "x"), // not a directory: the tool's open fails
		root + "/a/b.txt":  filepath.Join(root, "a", "b.txt"),      // absolute, inside
		root:               root,
	}
	for in, want := range ok {
		got, err := sb.Resolve(in)
		if err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	refused := []string{
		"/etc/passwd",               // absolute
		root + "-other/x",           // absolute, beside the root
		root + "/../outside/secret", // absolute, climbs out
		root + "/out/secret.txt",    // absolute, through a link to outside
		"..",                        // parent
		"../",                       // parent with slash
		"../outside/secret.txt",
		"a/../../outside",    // climbs after descending
		"out",                // symlink to outside
		"out/secret.txt",     // through a symlinked parent
		"abs-out/secret.txt", // absolute symlink to outside
		"dangling",           // dangling link to outside
		"dangling/new.txt",   // creating through a dangling link
		"a/up",               // link climbing out from a subdirectory
		"a/up/outside/secret.txt",
	}
	for _, in := range refused {
		got, err := sb.Resolve(in)
		if !errors.Is(err, ErrOutsideRoot) || TypeOf(err) != TypePermissionDenied {
			t.Errorf("Resolve(%q) = %q, %v; want a permission_denied refusal", in, got, err)
		}
	}
	if _, err := sb.Resolve("loop/x"); err == nil || errors.Is(err, ErrOutsideRoot) {
		t.Errorf("Resolve(loop/x) = %v, want a too-many-links error", err)
	}
	if _, err := sb.Resolve("a\x00b"); TypeOf(err) != TypeValidationFailed {
		t.Errorf("Resolve with NUL = %v, want validation_failed", err)
	}
}

// TestResolveLinkedRoot: a root given through a symbolic link (as macOS's
// /tmp is) takes absolute paths inside it as given and as resolved.
func TestResolveLinkedRoot(t *testing.T) {
	real := filepath.Join(t.TempDir(), "real")
	link := filepath.Join(t.TempDir(), "link")
	os.Mkdir(real, 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symlinks unsupported: %v", err)
	}
	sb, err := NewSandbox(link)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(real)
	for _, name := range []string{link + "/notes.txt", real + "/notes.txt"} {
		if got, err := sb.Resolve(name); err != nil || got != filepath.Join(want, "notes.txt") {
			t.Errorf("Resolve(%q) = %q, %v; want %q", name, got, err, filepath.Join(want, "notes.txt"))
		}
	}
}

func TestNewSandboxErrors(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	for _, dir := range []string{f, filepath.Join(t.TempDir(), "missing")} {
		if _, err := NewSandbox(dir); err == nil {
			t.Errorf("NewSandbox(%q) succeeded", dir)
		}
	}
}

// FuzzResolve checks that no input resolves outside the root: whatever
// Resolve accepts is the root or below it, and stays there when every
// existing component's links are followed by the operating system.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"", ".", "a/b.txt", "..", "../outside", "/etc", "out/secret.txt", "in/../a",
		"a/up/root/a", "dangling/x", "loop", "a/back/../../out", "in/../../outside", `..\x`, "a/./b.txt/..", "abs-out"} {
		f.Add(s)
	}
	sb, outside := sandboxTree(f)
	root := sb.Root()
	f.Fuzz(func(t *testing.T, name string) {
		got, err := sb.Resolve(name)
		if err != nil {
			if TypeOf(err) == TypeInternal {
				t.Fatalf("Resolve(%q): unclassified error %v", name, err)
			}
			return
		}
		if !within(root, got) || got != filepath.Clean(got) {
			t.Fatalf("Resolve(%q) = %q, outside %q", name, got, root)
		}
		if strings.HasPrefix(got, outside) {
			t.Fatalf("Resolve(%q) = %q, in the outside directory", name, got)
		}
		// The OS agrees: the longest existing prefix really lives in root.
		p := got
		for {
			if _, err := os.Lstat(p); err == nil {
				break
			}
			p = filepath.Dir(p)
		}
		real, err := filepath.EvalSymlinks(p)
		if err == nil && !within(root, real) {
			t.Fatalf("Resolve(%q) = %q, which the OS resolves to %q outside the root", name, got, real)
		}
	})
}

// TestMessagesAreRootRelative checks that what the model reads names paths
// as it gave them, never the root's absolute path.
func TestMessagesAreRootRelative(t *testing.T) {
	r, root := fixture(t)
	real, _ := filepath.EvalSymlinks(root)
	for _, c := range []struct{ tool, args string }{
		{"read_file", `{"path":"nope/x.txt"}`},
		{"read_file", `{"path":"main.go/x"}`},
		{"ls", `{"path":"nope"}`},
		{"write_file", `{"path":"main.go/x","content":"x"}`},
		{"replace_lines", `{"path":"nope","line_start":1,"line_end":1,"new_content":"x"}`},
		{"write_file", `{"path":"sub/lib.go","content":"x"}`},
	} {
		res := r.Execute(context.Background(), c.tool, json.RawMessage(c.args))
		text := res.Message() + res.Text()
		if strings.Contains(text, root) || strings.Contains(text, real) {
			t.Errorf("%s %s: message names the absolute root: %s", c.tool, c.args, text)
		}
	}
}

// TestAbsoluteLinkInsideRoot checks that an absolute link pointing inside
// the root is followed (os.Root alone would refuse it), for reading and for
// writing through it to its target.
func TestAbsoluteLinkInsideRoot(t *testing.T) {
	r, root := fixture(t)
	real, _ := filepath.EvalSymlinks(root)
	if err := os.Symlink(filepath.Join(real, "sub"), filepath.Join(root, "abs-sub")); err != nil {
		t.Fatal(err)
	}
	runCases(t, r, []toolCase{
		{"read", "read_file", `{"path":"abs-sub/lib.go"}`, TypeNone, []string{"1: package sub"}, nil},
		{"write", "write_file", `{"path":"abs-sub/new.txt","content":"n"}`, TypeNone, []string{"Created sub/new.txt"}, nil},
	})
	if b, err := os.ReadFile(filepath.Join(root, "sub", "new.txt")); err != nil || string(b) != "n" {
		t.Errorf("sub/new.txt = %q, %v", b, err)
	}
}
