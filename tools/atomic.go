package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/offgrid-ai/offgrid/internal/atomicfile"
)

// writeFileAtomic replaces path with data so that a reader (or a crash)
// sees either the old file or the new one, never a mix: it writes a
// temporary file in the same directory, syncs it, renames it over path and
// syncs the directory. An existing file keeps its permission bits; a new
// one gets perm.
func writeFileAtomic(path string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Stat(path); err == nil {
		if fi.IsDir() {
			return Errorf(ErrValidationFailed, "%s is a directory", filepath.Base(path))
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return atomicfile.WriteFile(path, data, perm)
}
