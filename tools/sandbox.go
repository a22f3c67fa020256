package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"
)

// Sandbox confines file operations to one root directory. Every path a
// tool takes is relative to the root, or absolute inside it; other
// absolute paths, ".." escapes and symbolic links that lead outside the
// root are refused with [ErrOutsideRoot].
//
// The confinement is enforced by the kernel, not only checked: every file
// operation goes through an [os.Root] (openat relative to a descriptor of
// the root, refusing any step out of it), so a directory swapped for a
// symbolic link between a check and the use cannot lead outside.
type Sandbox struct {
	root  string   // absolute, symlink-free
	given string   // absolute, as given (through a symbolic link, maybe)
	dir   *os.Root // every file operation goes through it

	mu    sync.Mutex
	swept map[string]bool // directories already cleared of stale temporary files

	journal *Journal // records writes for undo; nil: none

	hardlinks bool // read regular files with more than one link

	own []ownFile // where this process's output goes (see ownOutput)
}

// ownFile is a regular file this process's standard output or error is
// written to, such as out.txt in "offgrid run … > out.txt".
type ownFile struct {
	fi   fs.FileInfo
	name string // "standard output", "standard error"
}

// ownOutput returns the regular files this process's standard output and
// standard error are written to. Inside the root they are the program's
// own output, not the project's: the file tools do not list, search, read
// or write them. Asked for a sum in a folder where "offgrid run … 2>
// err.txt" was run, the 0.5B searched, found its own log in err.txt and
// answered with a count from it.
func ownOutput() []ownFile {
	var own []ownFile
	for _, o := range []struct {
		f    *os.File
		name string
	}{{os.Stdout, "standard output"}, {os.Stderr, "standard error"}} {
		if o.f == nil {
			continue
		}
		if fi, err := o.f.Stat(); err == nil && fi.Mode().IsRegular() {
			own = append(own, ownFile{fi, o.name})
		}
	}
	return own
}

// ownName returns which of the process's outputs (see ownOutput) fi is,
// "" when it is none.
func (s *Sandbox) ownName(fi fs.FileInfo) string {
	for _, o := range s.own {
		if os.SameFile(o.fi, fi) {
			return o.name
		}
	}
	return ""
}

// ownError is the error for a path naming a file ownName names.
func ownError(name, which string) error {
	return &Error{Type: TypePermissionDenied, Err: fmt.Errorf("%w: %s is the file this program's %s is being written to, not one of the project's files; it is not opened", ErrOwnOutput, filepath.ToSlash(name), which)}
}

// ErrOwnOutput is wrapped by the error for a path naming the file the
// program's own standard output or error is written to (see ownOutput).
var ErrOwnOutput = errors.New("the program's own output")

// NewSandbox returns a sandbox rooted at dir, which must be an existing
// directory. Stale temporary files of interrupted writes in the root
// directory itself are removed (see atomicfile.IsStale). The regular
// files the process's standard output and error are written to, as they
// are now, are left out and refused (see [ErrOwnOutput]).
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
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("sandbox root: %w", err)
	}
	s := &Sandbox{root: real, given: abs, dir: r, swept: map[string]bool{}, own: ownOutput()}
	s.sweep(r, ".")
	return s, nil
}

// Root returns the root directory: absolute and free of symbolic links.
func (s *Sandbox) Root() string { return s.root }

// maxLinks bounds symbolic-link hops in one resolution, as the kernel does.
const maxLinks = 40

// Resolve maps a path relative to the root, or an absolute one inside it,
// to the absolute, symlink-free path it names, which need not exist yet.
// It refuses (with an error wrapping [ErrOutsideRoot]) other absolute
// paths, paths whose ".." climbs above the root, and paths that pass
// through a symbolic link leading outside the root (dangling links
// included). "" and "." name the root itself.
//
// The answer describes the tree at the time of the call; the sandbox's own
// file operations do not rely on it staying true.
func (s *Sandbox) Resolve(name string) (string, error) {
	rel, err := s.resolve(name)
	if err != nil {
		return "", err
	}
	return filepath.Join(s.root, rel), nil
}

// resolve is Resolve relative to the root: a clean path naming the same
// file with every symbolic link that exists now followed, "." for the root.
// Following links here lets a tool write through a link to its target
// (rather than replace the link) and accept absolute links that point
// inside the root, which os.Root itself refuses.
func (s *Sandbox) resolve(name string) (string, error) {
	if name == "" {
		name = "."
	}
	if strings.IndexByte(name, 0) >= 0 {
		return "", Errorf(TypeValidationFailed, "path %q contains a NUL byte", name)
	}
	if !utf8.ValidString(name) {
		return "", Errorf(TypeValidationFailed, "path %q is not valid UTF-8", name)
	}
	if rel, ok := underRoot(name, s.root, s.given); ok {
		name = rel
	} else if absolute(name) {
		msg := fmt.Sprintf("%q is absolute; give a path relative to the working directory", name)
		if list := s.holds("."); list != "" {
			msg += ", which holds " + list
		}
		return "", fmt.Errorf("%w: %s", ErrOutsideRoot, msg)
	}
	if climbsOut(name) {
		return "", fmt.Errorf("%w: %q climbs above the working directory", ErrOutsideRoot, name)
	}
	clean := filepath.Clean(name)
	rel, err := s.walk(clean)
	if errors.Is(err, errLinkOut) {
		return "", fmt.Errorf("%w: %q leads outside the working directory through a symbolic link", ErrOutsideRoot, name)
	}
	if err != nil {
		return "", s.pathError(name, err)
	}
	return rel, nil
}

// absolute reports whether name is absolute on any system: "/etc",
// `\etc`, "C:x".
func absolute(name string) bool {
	return filepath.IsAbs(name) || strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.VolumeName(name) != ""
}

// underRoot returns name, an absolute path, relative to the first of
// roots (absolute paths of the working directory) it lies inside: a user
// may name a project's file by its full path, as a shell prints it, or
// through a symbolic link to the root (macOS's /tmp). It is false for
// any other path.
func underRoot(name string, roots ...string) (string, bool) {
	if !filepath.IsAbs(name) {
		return "", false
	}
	for _, root := range roots {
		if rel, err := filepath.Rel(root, filepath.Clean(name)); err == nil && !filepath.IsAbs(rel) && !climbsOut(rel) {
			return rel, true
		}
	}
	return "", false
}

// climbsOut reports whether the relative path name climbs above where it
// starts: "..", "../x", "docs/../../x".
func climbsOut(name string) bool {
	clean := filepath.Clean(name)
	return clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator))
}

// errLinkOut is walk's signal that a link leads outside the root.
var errLinkOut = errors.New("symbolic link leads outside the root")

// walk resolves rel component by component from the root, through the
// os.Root, following symbolic links (absolute ones only when they point
// inside the root) until a component does not exist; the rest is appended
// lexically (it cannot hold links, nor "..", since rel is clean and link
// targets are cleaned).
func (s *Sandbox) walk(rel string) (string, error) {
	var cur []string // resolved components below the root
	parts := splitPath(rel)
	links := 0
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		switch p {
		case ".", "":
			continue
		case "..":
			if len(cur) == 0 {
				return "", errLinkOut
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := append(cur[:len(cur):len(cur)], p)
		name := filepath.Join(next...)
		fi, err := s.dir.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return filepath.Join(append(next, parts...)...), nil
		}
		if isEscape(err) {
			return "", errLinkOut
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", Errorf(TypeIO, "too many levels of symbolic links in %q", rel)
		}
		target, err := s.dir.Readlink(name)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			target = filepath.Clean(target)
			if !within(s.root, target) {
				return "", errLinkOut
			}
			cur = nil
			target, _ = filepath.Rel(s.root, target)
		}
		parts = append(splitPath(filepath.Clean(target)), parts...)
	}
	if len(cur) == 0 {
		return ".", nil
	}
	return filepath.Join(cur...), nil
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

// isEscape reports whether err is os.Root's refusal of a path that leaves
// the root (the os package does not export that error).
func isEscape(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if err.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// pathError rewrites an error of an operation on name, the path the model
// gave, into the tool's own words with the path relative to the root:
// "a/b.txt does not exist", never the resolved or absolute path. An os.Root
// refusal becomes [ErrOutsideRoot]; the result still unwraps to the file
// system's error (with the relative path), so [TypeOf] classifies it.
func (s *Sandbox) pathError(name string, err error) error {
	if err == nil {
		return nil
	}
	if isEscape(err) {
		return fmt.Errorf("%w: %q leads outside the working directory through a symbolic link", ErrOutsideRoot, name)
	}
	var te *Error
	if errors.As(err, &te) {
		return err // already in the tool's words
	}
	name = filepath.ToSlash(name)
	if name == "" {
		name = "."
	}
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	var op string
	var cause error
	switch {
	case errors.As(err, &pe):
		op, cause = pe.Op, pe.Err
	case errors.As(err, &le):
		op, cause = le.Op, le.Err
	case errors.As(err, &se):
		op, cause = se.Syscall, se.Err
	default:
		return &toolPathError{msg: s.relative(err.Error()), err: err}
	}
	if plain, ok := rootOps[op]; ok {
		op = plain
	}
	wrapped := &fs.PathError{Op: op, Path: name, Err: cause}
	switch {
	case errors.Is(cause, fs.ErrNotExist):
		return &toolPathError{msg: s.missing(name), err: wrapped}
	case errors.Is(cause, syscall.ENOTDIR):
		return &Error{Type: TypeNotFound, Err: &toolPathError{msg: name + " does not exist: a parent on its path is a file, not a directory", err: wrapped}}
	case errors.Is(cause, fs.ErrPermission):
		return &toolPathError{msg: fmt.Sprintf("cannot %s %s: permission denied", op, name), err: wrapped}
	}
	return &toolPathError{msg: fmt.Sprintf("cannot %s %s: %s", op, name, s.relative(cause.Error())), err: wrapped}
}

// maxHolds is the most names a "holds" hint lists.
const maxHolds = 20

// holds lists what the directory rel (relative to the root) holds, for
// an error about a path that is not there, so that the model can find the
// one it meant: "a.txt, docs/, notes.txt". Names starting with a dot are
// left out; "" if rel cannot be listed.
func (s *Sandbox) holds(rel string) string {
	f, err := s.dir.Open(rel)
	if err != nil {
		return ""
	}
	defer f.Close()
	ents, err := f.ReadDir(10 * maxHolds)
	if err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	var names []string
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.IsDir():
			names = append(names, e.Name()+"/")
		default:
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	switch {
	case len(names) == 0:
		return "no files"
	case len(names) > maxHolds || len(ents) == 10*maxHolds:
		return strings.Join(names[:min(len(names), maxHolds)], ", ") + " and more"
	}
	return strings.Join(names, ", ")
}

// missing is the message for name, which does not exist: it says what
// the nearest directory on its path that does exist holds.
func (s *Sandbox) missing(name string) string {
	dir := s.nearest(name)
	if other := s.otherCase(dir, name); other != "" {
		return fmt.Sprintf("%s does not exist, but %s does (names differ in case)", name, other)
	}
	list := s.holds(dir)
	if list == "" {
		return name + " does not exist"
	}
	where := display(dir)
	if dir == "." {
		where = "the working directory"
	}
	return name + " does not exist; " + where + " holds " + list
}

// otherCase returns the path of the entry of dir, name's parent, whose
// name is name's but for case ("README.md" for "readme.md"), as name
// writes its parent; "" when there is none, or more than one.
func (s *Sandbox) otherCase(dir, name string) string {
	clean := filepath.Clean(filepath.FromSlash(name))
	if filepath.Dir(clean) != dir {
		return ""
	}
	f, err := s.dir.Open(dir)
	if err != nil {
		return ""
	}
	defer f.Close()
	names, _ := f.Readdirnames(10000)
	base, found := filepath.Base(clean), ""
	for _, n := range names {
		if strings.EqualFold(n, base) && n != base {
			if found != "" {
				return ""
			}
			found = n
		}
	}
	if found == "" {
		return ""
	}
	slash := filepath.ToSlash(name)
	return strings.TrimSuffix(slash, path.Base(strings.TrimSuffix(slash, "/"))) + found
}

// nearest returns the deepest directory on the path name (relative to
// the root) that exists, "." at least.
func (s *Sandbox) nearest(name string) string {
	d := filepath.Dir(filepath.Clean(filepath.FromSlash(name)))
	for d != "." && d != string(filepath.Separator) && !strings.HasPrefix(d, "..") {
		if fi, err := s.dir.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		d = filepath.Dir(d)
	}
	return "."
}

// toolPathError is a file-system error in a tool's words; it unwraps to
// the underlying error, which names the path relative to the root.
type toolPathError struct {
	msg string
	err error
}

func (e *toolPathError) Error() string { return e.msg }
func (e *toolPathError) Unwrap() error { return e.err }

// relative rewrites every mention of the root's absolute path in text as a path
// relative to the root ("<root>/a/b" as "a/b", the root itself as "."), so
// that nothing a model reads names the host's directories.
func (s *Sandbox) relative(text string) string {
	sep := string(filepath.Separator)
	if s.root == sep || s.root == filepath.VolumeName(s.root)+sep {
		return text // a root of "/" leaves nothing to cut
	}
	text = strings.ReplaceAll(text, s.root+sep, "")
	return strings.ReplaceAll(text, s.root, ".")
}

// rootOps maps the *at system calls os.Root names in its errors to the
// operations a reader knows.
var rootOps = map[string]string{
	"openat": "open", "statat": "stat", "lstatat": "lstat", "fstatat": "stat", "mkdirat": "mkdir",
	"renameat": "rename", "readlinkat": "readlink", "unlinkat": "remove", "removeat": "remove",
}

// openFlags open files for reading without blocking on a FIFO (or a
// device that waits for a peer); callers check the descriptor's type
// before reading.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// open opens the file name (a path argument) names for reading, without
// following any link out of the root and without blocking, and returns it
// with the descriptor's own FileInfo (fstat: the file actually opened) and
// the resolved path relative to the root. A regular file with more than
// one hard link is refused (see [ErrHardLinked]).
func (s *Sandbox) open(name string) (*os.File, fs.FileInfo, string, error) {
	rel, err := s.resolve(name)
	if err != nil {
		return nil, nil, "", err
	}
	f, err := s.dir.OpenFile(rel, openFlags, 0)
	if err != nil {
		return nil, nil, "", s.pathError(name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, "", s.pathError(name, err)
	}
	if n := linkCount(fi); fi.Mode().IsRegular() && n > 1 && !s.hardlinks {
		f.Close()
		return nil, nil, "", &Error{Type: TypePermissionDenied, Err: fmt.Errorf("%w: %s has %d hard links, so it may be a file from outside the working directory linked into it; it is not opened (offgrid: --allow-hardlinks)", ErrHardLinked, filepath.ToSlash(name), n)}
	}
	if which := s.ownName(fi); which != "" {
		f.Close()
		return nil, nil, "", ownError(name, which)
	}
	return f, fi, rel, nil
}

// ErrHardLinked is wrapped by the error for a regular file with more than
// one hard link, which the file tools do not open unless
// [WithHardLinks] allows it: the root cannot tell such a file from one of
// the outside linked in (a hard link, unlike a symbolic one, names no
// path to check).
var ErrHardLinked = errors.New("hard-linked file")

// fileKind names the type of a file that is not a regular file.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}
