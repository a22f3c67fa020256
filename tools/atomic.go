package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data so that a reader (or a crash)
// sees either the old file or the new one, never a mix: it writes a
// temporary file in the same directory, syncs it, renames it over path and
// syncs the directory. An existing file keeps its permission bits; a new
// one gets perm.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return Errorf(ErrValidationFailed, "%s is a directory", filepath.Base(path))
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
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
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable, as far as the file system allows.
// Its failure is not reported: the file is already replaced and synced, and
// an error would tell the caller the write failed when it did not.
func syncDir(dir string) error {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
