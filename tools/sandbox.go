package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Sandbox confines paths to one root directory. Every path a tool takes is
// relative to the root; absolute paths, ".." escapes and symbolic links
// that lead outside the root are refused with [ErrOutsideRoot].
type Sandbox struct {
	root string // absolute, symlink-free
}

// NewSandbox returns a sandbox rooted at dir, which must be an existing
// directory.
func NewSandbox(dir string) (*Sandbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox root: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("sandbox root: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("sandbox root: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("sandbox root %s: not a directory", dir)
	}
	return &Sandbox{root: real}, nil
}

// Root returns the root directory: absolute and free of symbolic links.
func (s *Sandbox) Root() string { return s.root }

// maxLinks bounds symbolic-link hops in one resolution, as the kernel does.
const maxLinks = 40

// Resolve maps a path relative to the root to the absolute, symlink-free
// path it names, which need not exist yet. It refuses (with an error
// wrapping [ErrOutsideRoot]) absolute paths, paths whose ".." climbs above
// the root, and paths that pass through a symbolic link leading outside the
// root (dangling links included). "" and "." name the root itself.
func (s *Sandbox) Resolve(name string) (string, error) {
	if strings.IndexByte(name, 0) >= 0 {
		return "", Errorf(ErrValidationFailed, "path %q contains a NUL byte", name)
	}
	if filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != "" {
		return "", fmt.Errorf("%w: %q is absolute; give a path relative to the working directory", ErrOutsideRoot, name)
	}
	clean := filepath.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%w: %q climbs above the working directory", ErrOutsideRoot, name)
	}
	real, err := s.walk(clean)
	if err != nil {
		return "", err
	}
	if !within(s.root, real) {
		return "", fmt.Errorf("%w: %q leads outside the working directory through a symbolic link", ErrOutsideRoot, name)
	}
	return real, nil
}

// walk resolves rel component by component from the root, following
// symbolic links (absolute or relative), until a component does not exist;
// the rest is appended lexically (it cannot hold links, nor "..", since rel
// is clean and link targets are cleaned).
func (s *Sandbox) walk(rel string) (string, error) {
	cur := s.root
	parts := splitPath(rel)
	links := 0
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		switch p {
		case ".", "":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, p)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return filepath.Join(append([]string{next}, parts...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", Errorf(ErrIO, "too many levels of symbolic links in %q", rel)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			cur = string(filepath.Separator)
			if v := filepath.VolumeName(target); v != "" {
				cur = v + string(filepath.Separator)
			}
		}
		parts = append(splitPath(filepath.Clean(target)), parts...)
	}
	return cur, nil
}

func splitPath(p string) []string {
	p = strings.TrimPrefix(p, filepath.VolumeName(p))
	return strings.FieldsFunc(p, func(r rune) bool { return r == filepath.Separator || r == '/' })
}

// within reports whether path is root or below it; both must be clean and
// absolute.
func within(root, path string) bool {
	if path == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(path, root)
	}
	return strings.HasPrefix(path, root+string(filepath.Separator))
}

// Rel returns abs (a path inside the root) relative to the root, with
// forward slashes; the root itself is ".".
func (s *Sandbox) Rel(abs string) string {
	rel, err := filepath.Rel(s.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}
