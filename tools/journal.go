package tools

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// maxJournalFile is the largest previous content a Journal keeps; the
// change of a larger file is recorded but cannot be undone.
const maxJournalFile = 64 << 20

// Errors of [Journal.Undo].
var (
	// ErrNothingToUndo: no file change is left to undo.
	ErrNothingToUndo = errors.New("no file change to undo")
	// ErrChangedSince: the file no longer holds what the tool wrote;
	// undoing would lose the newer content.
	ErrChangedSince = errors.New("changed since the tool wrote it")
)

// Journal keeps the previous state of every file the built-in file tools
// write (write_file, replace_lines, insert_lines), so that their changes
// can be undone, last first. Commands run by the bash tool are not
// journaled. Give a Journal to [Builtin] with [WithJournal]. It is safe
// for concurrent use.
type Journal struct {
	mu      sync.Mutex
	sb      *Sandbox
	changes []Change
}

// Change is one write by a tool: the file as it was before.
type Change struct {
	// Path is the file, relative to the root, with slashes.
	Path string
	// Existed is false when the write created the file.
	Existed bool
	// Before and Mode are the previous content and permission bits,
	// when the file existed.
	Before []byte
	Mode   fs.FileMode
	// Size is the size of the previous content; Kept is false when it was
	// too large to keep, or not a regular file (the change cannot be
	// undone).
	Size int64
	Kept bool

	rel   string   // the resolved path relative to the root
	after [32]byte // SHA-256 of what the tool wrote
}

// Changes returns the recorded changes, oldest first.
func (j *Journal) Changes() []Change {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Change(nil), j.changes...)
}

// Len is the number of changes that can still be undone.
func (j *Journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.changes)
}

// bind attaches the journal to the sandbox whose writes it records.
func (j *Journal) bind(sb *Sandbox) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.sb != nil && j.sb != sb {
		return errors.New("journal already records another tool set")
	}
	j.sb = sb
	return nil
}

// before reads the state of base in dir ahead of a write; fi is its
// Lstat (nil when it does not exist).
func before(dir *os.Root, rel, base string, fi fs.FileInfo) (Change, error) {
	c := Change{Path: filepath.ToSlash(rel), rel: rel, Kept: true}
	if fi == nil {
		return c, nil
	}
	c.Existed, c.Mode, c.Size = true, fi.Mode().Perm(), fi.Size()
	if !fi.Mode().IsRegular() || c.Size > maxJournalFile { // a link swapped in since the path was resolved, or too large
		c.Kept = false
		return c, nil
	}
	f, err := dir.OpenFile(base, openFlags, 0)
	if err != nil {
		return c, err
	}
	defer f.Close()
	c.Before, err = io.ReadAll(io.LimitReader(f, maxJournalFile+1))
	if err != nil {
		return c, err
	}
	if len(c.Before) > maxJournalFile {
		c.Before, c.Kept = nil, false
	}
	c.Size = int64(len(c.Before))
	return c, nil
}

// record adds a change once the write of data has succeeded.
func (j *Journal) record(c Change, data []byte) {
	c.after = sha256.Sum256(data)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.changes = append(j.changes, c)
}

// Undo reverts the last change: it writes the previous content back byte
// for byte, with its permission bits (atomically), or removes a file the
// tool created. A file that no longer holds what the tool wrote is left
// alone with an error wrapping [ErrChangedSince], unless force is set;
// the change then stays in the journal. With no change left the error is
// [ErrNothingToUndo]. Like the file tools' edits, an undo holds the edit
// lock of the file's directory (waiting for another process's edit there
// to end, for up to ten seconds). The undone change is returned.
func (j *Journal) Undo(force bool) (Change, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.changes) == 0 || j.sb == nil {
		return Change{}, ErrNothingToUndo
	}
	c := j.changes[len(j.changes)-1]
	if err := j.undo(c, force); err != nil {
		return c, err
	}
	j.changes = j.changes[:len(j.changes)-1]
	return c, nil
}

func (j *Journal) undo(c Change, force bool) error {
	if c.Existed && !c.Kept {
		if !force {
			return fmt.Errorf("%s: its previous content (%d bytes) was not kept (too large, or not a regular file); it cannot be restored", c.Path, c.Size)
		}
		return nil // dropped
	}
	parent := filepath.Dir(c.rel)
	dir, err := j.sb.dir.OpenRoot(parent)
	if errors.Is(err, fs.ErrNotExist) {
		switch {
		case !force:
			return fmt.Errorf("%s: its directory is gone: %w", c.Path, ErrChangedSince)
		case !c.Existed:
			return nil // nothing left to remove
		}
		if err := j.sb.dir.MkdirAll(parent, 0o755); err != nil {
			return j.sb.pathError(c.Path, err)
		}
		dir, err = j.sb.dir.OpenRoot(parent)
	}
	if err != nil {
		return j.sb.pathError(c.Path, err)
	}
	defer dir.Close()
	// Hold the directory's edit lock, as the file tools do, from the check
	// that the file is as the tool wrote it to the write: another offgrid
	// process's edit then lands either before the check (and the undo
	// refuses) or after the write, never between them to be overwritten.
	unlock, err := j.sb.lockDir(context.Background(), parent)
	if err != nil {
		return lockError(c.Path, err)
	}
	defer unlock()
	base := filepath.Base(c.rel)
	if !force {
		now, ok, err := current(dir, base)
		if err != nil {
			return j.sb.pathError(c.Path, err)
		}
		if !ok || sha256.Sum256(now) != c.after {
			return fmt.Errorf("%s: %w", c.Path, ErrChangedSince)
		}
	}
	if !c.Existed {
		if err := dir.Remove(base); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return j.sb.pathError(c.Path, err)
		}
		return nil
	}
	if err := atomicfile.WriteFileIn(dir, base, c.Before, c.Mode); err != nil {
		return j.sb.pathError(c.Path, err)
	}
	return nil
}

// current returns the content of base in dir; ok is false when it does
// not exist or is not a regular file.
func current(dir *os.Root, base string) (data []byte, ok bool, err error) {
	fi, err := dir.Lstat(base)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false, err
	}
	f, err := dir.OpenFile(base, openFlags, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	var b bytes.Buffer
	_, err = io.Copy(&b, io.LimitReader(f, maxJournalFile*4))
	return b.Bytes(), err == nil, err
}
