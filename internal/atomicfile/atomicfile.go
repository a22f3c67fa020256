// Package atomicfile replaces files so that a reader, or a crash, sees the
// old content or the new, never a mix.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to a temporary file in path's directory, gives it
// mode perm, syncs it, renames it over path and syncs the directory. On
// failure path is untouched and the temporary file is removed.
func WriteFile(path string, data []byte, perm fs.FileMode) (err error) {
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
	SyncDir(dir)
	return nil
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
