//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUs reports whether this process's user owns the file fi describes.
func ownedByUs(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
