//go:build unix

package filelock

import (
	"errors"
	"os"
	"syscall"
)

// try takes the lock on f without waiting; held reports another process
// holding it. A file system that cannot lock takes none, as no error.
func try(f *os.File) (held bool, err error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return false, nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return true, nil
		default:
			return false, nil // no locks here
		}
	}
}
