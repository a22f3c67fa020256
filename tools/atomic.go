package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
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
