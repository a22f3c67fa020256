package permission

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const allowBash = `{"version":1,"rules":[{"tool":"bash"}]}`

// TestWritablePolicyFileIgnored checks that a policies file that other
// users can change is ignored with a warning, and never rewritten.
func TestWritablePolicyFileIgnored(t *testing.T) {
	for _, tc := range []struct {
		name              string
		fileMode, dirMode os.FileMode
	}{
		{"group-writable file", 0o620, 0o700},
		{"world-writable file", 0o606, 0o700},
		{"group-writable directory", 0o600, 0o770},
		{"world-writable directory", 0o600, 0o707},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "offgrid")
			file := filepath.Join(dir, "policies.json")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(file, []byte(allowBash), 0o600)
			os.Chmod(file, tc.fileMode)
			os.Chmod(dir, tc.dirMode)
			p, err := New(Config{File: file, Interactive: true})
			if !errors.Is(err, ErrPolicyFile) || !strings.Contains(err.Error(), "writable by other users") {
				t.Fatalf("New: %v, want a warning about the permissions", err)
			}
			if v := p.Evaluate(bashTool, nil); v != Ask {
				t.Errorf("rule of an unsafe file applied: %v", v)
			}
			if err := p.Record(readTool, nil, AlwaysAllow); err == nil {
				t.Error("Record wrote to an unsafe policies file")
			}
		})
	}
	// Owner-only permissions are accepted.
	file := filepath.Join(t.TempDir(), "policies.json")
	os.WriteFile(file, []byte(allowBash), 0o644)
	p, err := New(Config{File: file})
	if err != nil || p.Evaluate(bashTool, nil) != Allow {
		t.Fatalf("0644 file: %v", err)
	}
}

// TestWritablePolicyTargetIgnored checks the permissions of a symbolic
// link's target and its directory too.
func TestWritablePolicyTargetIgnored(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o700)
	target := filepath.Join(shared, "policies.json")
	os.WriteFile(target, []byte(allowBash), 0o600)
	os.Chmod(shared, 0o777)
	link := filepath.Join(t.TempDir(), "policies.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{File: link}); !errors.Is(err, ErrPolicyFile) {
		t.Fatalf("New: %v, want the target's directory refused", err)
	}
}

// TestAlwaysAllowThroughSymlink checks that saving a rule writes to the
// target of a symbolic link (e.g. a policies file kept in a dotfiles
// repository) and leaves the link in place.
func TestAlwaysAllowThroughSymlink(t *testing.T) {
	target := filepath.Join(t.TempDir(), "dotfiles", "policies.json")
	os.Mkdir(filepath.Dir(target), 0o700)
	os.WriteFile(target, []byte(allowBash), 0o600)
	link := filepath.Join(t.TempDir(), "policies.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	p, err := New(Config{File: link, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Record(readTool, nil, AlwaysAllow); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(target)
	if !strings.Contains(string(data), `"read_file"`) || !strings.Contains(string(data), `"bash"`) {
		t.Errorf("target holds %s, want both rules", data)
	}

	// A dangling link is refused, not replaced.
	dangling := filepath.Join(t.TempDir(), "policies.json")
	os.Symlink(filepath.Join(t.TempDir(), "missing", "policies.json"), dangling)
	p, err = New(Config{File: dangling, Interactive: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Record(readTool, nil, AlwaysAllow); err == nil {
		t.Error("Record replaced a dangling link")
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the dangling link was replaced: %v", err)
	}
}
