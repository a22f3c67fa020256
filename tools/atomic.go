package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
	"github.com/offgrid-ai/offgrid/internal/filelock"
)

// writeFile replaces the file at rel (a resolved path relative to the root)
// with data so that a reader (or a crash) sees either the old file or the
// new one, never a mix. It opens the parent directory once, as a root of
// its own, and does everything else relative to that descriptor: the
// temporary file is created beside the target, synced, renamed over it and
// the directory synced (atomicfile.WriteFileIn), so that swapping a directory on the path for a link
// midway can neither redirect the write nor strand the temporary file. An
// existing file keeps its permission bits; a new one gets perm. Stale
// temporary files in the directory are cleared first, once per sandbox.
// With a journal, the previous state of the file is recorded once the
// write succeeds.
func (s *Sandbox) writeFile(rel string, data []byte, perm fs.FileMode) (err error) {
	dirRel, base := filepath.Dir(rel), filepath.Base(rel)
	dir, err := s.dir.OpenRoot(dirRel)
	if err != nil {
		return err
	}
	defer dir.Close()
	s.sweep(dir, dirRel)
	var prev fs.FileInfo // for the journal
	if fi, err := dir.Lstat(base); err == nil {
		prev = fi
		switch {
		case fi.IsDir():
			return Errorf(TypeValidationFailed, "%s is a directory", filepath.ToSlash(rel))
		case fi.Mode().IsRegular():
			perm = fi.Mode().Perm()
		case fi.Mode()&fs.ModeSymlink == 0:
			return Errorf(TypeValidationFailed, "%s is %s, not a regular file; write_file replaces only regular files", filepath.ToSlash(rel), fileKind(fi.Mode()))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if s.journal == nil {
		return atomicfile.WriteFileIn(dir, base, data, perm)
	}
	c, err := before(dir, rel, base, prev)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFileIn(dir, base, data, perm); err != nil {
		return err
	}
	s.journal.record(c, data)
	return nil
}

// sweep removes stale temporary files (see atomicfile.IsStale) from dir, the
// directory rel names, the first time the sandbox meets it.
func (s *Sandbox) sweep(dir *os.Root, rel string) {
	s.mu.Lock()
	done := s.swept[rel]
	s.swept[rel] = true
	s.mu.Unlock()
	if !done {
		atomicfile.SweepStale(dir, time.Now())
	}
}

// lockWait is how long an edit waits for another process's lock on its
// directory (see [Sandbox.lockDir]) before failing.
const lockWait = 10 * time.Second

// lockDir takes the edit lock of the directory dirRel (resolved, relative
// to the root) and returns its release. The file tools hold it from their
// check that a file is as the model read it until the new version is
// renamed in and recorded as seen, so that another offgrid process
// editing a file of that directory meanwhile waits, then sees the change
// (write_file refuses: the file changed since it was read; a line edit
// applies to the file as it now is) rather than having its edit, or ours,
// silently overwritten. The lock is an advisory one (filelock: flock on
// unix; none elsewhere, where two processes editing one file at once can
// still lose an edit) on the directory itself, so that no lock file is
// left in the user's tree; other programs do not take it. A directory
// that cannot be opened is left for the edit to report, unlocked; the
// error is the lock's (filelock.ErrBusy) or ctx's.
func (s *Sandbox) lockDir(ctx context.Context, dirRel string) (unlock func(), err error) {
	d, err := s.dir.Open(dirRel)
	if err != nil {
		return func() {}, nil
	}
	if err := filelock.Lock(ctx, d, lockWait, nil); err != nil {
		d.Close()
		return nil, err
	}
	return func() { d.Close() }, nil
}

// lockError is the tool error for an edit of name that could not take
// the edit lock (see [Sandbox.lockDir]).
func lockError(name string, err error) error {
	if errors.Is(err, filelock.ErrBusy) {
		return Errorf(TypeIO, "%s is not changed: another process has held the edit lock on its directory for %s (another offgrid editing it); try again", name, lockWait)
	}
	return err
}
