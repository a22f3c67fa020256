package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Temporary files are named ".og-XXXXXX.tmp": short, so that a target name
// of up to 255 bytes still fits, and recognisable (IsTempName), so that
// those a killed write left behind can be cleared.
const (
	tempPrefix = ".og-"
	tempSuffix = ".tmp"
	tempRandom = 6
)

func tempName() string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, tempRandom)
	rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return tempPrefix + string(b) + tempSuffix
}

// IsTempName reports whether name has the form of this package's
// temporary files.
func IsTempName(name string) bool {
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

// WriteFile writes data to path atomically with mode perm; see WriteFileIn.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	dir, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return WriteFileIn(dir, filepath.Base(path), data, perm)
}

// WriteFileIn replaces the file name in dir with data: it writes a
// temporary file beside it, gives it mode perm, syncs it, renames it over
// name and syncs the directory, all relative to dir, so that a directory
// swapped for a link midway can neither redirect the write nor strand the
// temporary file. On failure name is untouched and the temporary file is
// removed.
func WriteFileIn(dir *os.Root, name string, data []byte, perm fs.FileMode) (err error) {
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
	if err = dir.Rename(tmp, name); err != nil {
		return err
	}
	syncRoot(dir)
	return nil
}

// CreateTemp creates a new temporary file in dir (mode 0600) with a name
// [IsTempName] recognises, for a caller that writes it in pieces and
// renames it into place itself; a killed write leaves it to [SweepStale].
func CreateTemp(dir *os.Root) (name string, f *os.File, err error) {
	return createTemp(dir)
}

// createTemp creates a new temporary file in dir.
func createTemp(dir *os.Root) (string, *os.File, error) {
	for range 100 {
		name := tempName()
		f, err := dir.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return name, f, err
	}
	return "", nil, fmt.Errorf("atomicfile: could not create a temporary file in %s", dir.Name())
}

// StaleAge is how old a temporary file must be before [SweepStale] takes
// it for one a killed write left behind: far longer than any write takes
// (writing keeps a file's modification time fresh).
const StaleAge = time.Hour

// IsStale reports whether fi, seen at now, is a temporary file a killed
// write left behind: this package's naming, a regular file, owned by this
// process's user and not modified for [StaleAge].
func IsStale(fi fs.FileInfo, now time.Time) bool {
	return IsTempName(fi.Name()) && fi.Mode().IsRegular() && ownedByUs(fi) && now.Sub(fi.ModTime()) > StaleAge
}

// SweepStale removes the stale temporary files (see [IsStale]) directly
// in dir and returns their names. It is best effort: what cannot be read
// or removed stays.
func SweepStale(dir *os.Root, now time.Time) []string {
	d, err := dir.OpenFile(".", os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	var removed []string
	for _, name := range names {
		if !IsTempName(name) {
			continue
		}
		if fi, err := dir.Lstat(name); err == nil && IsStale(fi, now) && dir.Remove(name) == nil {
			removed = append(removed, name)
		}
	}
	return removed
}

// SyncDir makes renames in dir durable as far as the file system allows.
// It is best effort: some platforms cannot sync a directory, and by then
// the file itself is already in place and synced.
func SyncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

func syncRoot(dir *os.Root) {
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
