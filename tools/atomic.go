package tools

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Temporary files of atomic writes are named ".og-XXXXXX.tmp": short, so
// that a target name of up to 255 bytes still fits, and recognisable, so
// that those a killed write left behind can be cleared (see [isStaleTemp]).
const (
	tempPrefix = ".og-"
	tempSuffix = ".tmp"
	tempRandom = 6
)

// staleTempAge is how old a temporary file of ours must be before a sweep
// removes it: far longer than any write takes.
const staleTempAge = time.Hour

func tempName() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, tempRandom)
	rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return tempPrefix + string(b) + tempSuffix
}

// isTempName reports whether name has the form of our temporary files.
func isTempName(name string) bool {
	if len(name) != len(tempPrefix)+tempRandom+len(tempSuffix) || !strings.HasPrefix(name, tempPrefix) || !strings.HasSuffix(name, tempSuffix) {
		return false
	}
	for _, c := range name[len(tempPrefix) : len(tempPrefix)+tempRandom] {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// isStaleTemp reports whether fi is a temporary file a killed write of
// ours left behind: our naming, a regular file, owned by this user and
// older than [staleTempAge].
func isStaleTemp(fi fs.FileInfo, now time.Time) bool {
	return isTempName(fi.Name()) && fi.Mode().IsRegular() && ownedByUs(fi) && now.Sub(fi.ModTime()) > staleTempAge
}

// writeFile replaces the file at rel (a resolved path relative to the root)
// with data so that a reader (or a crash) sees either the old file or the
// new one, never a mix. It opens the parent directory once, as a root of
// its own, and does everything else relative to that descriptor: the
// temporary file is created beside the target, synced, renamed over it and
// the directory synced, so that swapping a directory on the path for a link
// midway can neither redirect the write nor strand the temporary file. An
// existing file keeps its permission bits; a new one gets perm. Stale
// temporary files in the directory are cleared first, once per sandbox.
func (s *Sandbox) writeFile(rel string, data []byte, perm fs.FileMode) (err error) {
	dirRel, base := filepath.Dir(rel), filepath.Base(rel)
	dir, err := s.dir.OpenRoot(dirRel)
	if err != nil {
		return err
	}
	defer dir.Close()
	s.sweep(dir, dirRel)
	if fi, err := dir.Lstat(base); err == nil {
		switch {
		case fi.IsDir():
			return Errorf(ErrValidationFailed, "%s is a directory", filepath.ToSlash(rel))
		case fi.Mode().IsRegular():
			perm = fi.Mode().Perm()
		case fi.Mode()&fs.ModeSymlink == 0:
			return Errorf(ErrValidationFailed, "%s is %s, not a regular file; write_file replaces only regular files", filepath.ToSlash(rel), fileKind(fi.Mode()))
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp, f, err := createTemp(dir)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			dir.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = dir.Rename(tmp, base); err != nil {
		return err
	}
	if d, err := dir.Open("."); err == nil { // best effort, as atomicfile.SyncDir
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// createTemp creates a new temporary file of our naming in dir.
func createTemp(dir *os.Root) (string, *os.File, error) {
	for range 100 {
		name := tempName()
		f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
	return "", nil, Errorf(ErrIO, "could not create a temporary file")
}

// sweep removes stale temporary files (see [isStaleTemp]) from dir, the
// directory rel names, the first time the sandbox meets it.
func (s *Sandbox) sweep(dir *os.Root, rel string) {
	s.mu.Lock()
	done := s.swept[rel]
	s.swept[rel] = true
	s.mu.Unlock()
	if done {
		return
	}
	d, err := dir.OpenFile(".", openFlags, 0)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	now := time.Now()
	for _, name := range names {
		if !isTempName(name) {
			continue
		}
		if fi, err := dir.Lstat(name); err == nil && isStaleTemp(fi, now) {
			dir.Remove(name)
		}
	}
}
