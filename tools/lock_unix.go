//go:build unix

package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive advisory lock (flock) on f, polling while
// another process holds it, until ctx ends or lockWait passes
// ([errLockBusy]). A file system that cannot lock (some network ones) is
// no error: the edit goes ahead unlocked, as before locks were taken.
// Closing f releases the lock.
func lockFile(ctx context.Context, f *os.File) error {
	fd := int(f.Fd())
	deadline := time.Now().Add(lockWait)
	for wait := time.Millisecond; ; wait = min(2*wait, 10*time.Millisecond) {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return nil // no locks here
		case time.Now().After(deadline):
			return errLockBusy
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// fileID returns the inode number of the file fi describes: a file
// renamed over another is a different inode, whatever its size and times.
func fileID(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
